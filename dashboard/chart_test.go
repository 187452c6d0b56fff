package dashboard

import (
	"bytes"
	"encoding/xml"
	"math/big"
	"strings"
	"testing"
	"time"
)

// Stacks meet exactly, the highest total fills the plot, amounts beyond 64 bits scale in
// integers, and the drawn SVG is well-formed XML with its accessible name.
func TestBarChart(t *testing.T) {
	t.Parallel()
	huge, _ := new(big.Int).SetString("300000000000000000000000000000", 10) // 3e29: beyond 64 bits
	third := new(big.Int).Quo(huge, big.NewInt(3))
	c := newBarChart("c1", `Volume <in> "ETH"`, []string{"Jan 1", "Jan 2", "Jan 3"}, []chartSeries{
		{Name: "A", Class: "area-mint", Values: []*big.Int{third, nil, big.NewInt(0)}},
		{Name: "B", Class: "area-nft-ramp", Values: []*big.Int{new(big.Int).Sub(huge, third), third}},
	}, func(v *big.Int) string { return v.String() })

	plotH := chartHeight - chartTop - chartBottom
	base := chartTop + plotH
	if len(c.Rects) != 3 {
		t.Fatalf("rects %+v, want 3 (no bar for nothing)", c.Rects)
	}
	a, b, b2 := c.Rects[0], c.Rects[1], c.Rects[2]
	if a.Y+a.H != base || b.Y+b.H != a.Y || b.Y != chartTop {
		t.Errorf("day 1's stacks %+v, %+v: want them on the axis, meeting, up to the top", a, b)
	}
	if b2.H != plotH/3 || b2.Y+b2.H != base {
		t.Errorf("day 2's bar %+v, want a third of %d", b2, plotH)
	}
	if got := strings.Join(c.Rows[0], "|"); got != "Jan 1|100000000000000000000000000000|200000000000000000000000000000|300000000000000000000000000000" {
		t.Errorf("table row %s", got)
	}
	if got := strings.Join(c.Rows[2], "|"); got != "Jan 3|0|0|0" {
		t.Errorf("table row %s", got)
	}

	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, "chart", c); err != nil {
		t.Fatal(err)
	}
	raw := buf.String()
	svg := raw[strings.Index(raw, "<svg") : strings.Index(raw, "</svg>")+len("</svg>")]
	var doc struct {
		Role   string `xml:"role,attr"`
		Labels string `xml:"aria-labelledby,attr"`
		Title  string `xml:"title"`
		Rects  []struct {
			Class string `xml:"class,attr"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	if doc.Role != "img" || doc.Labels != "c1-title" || doc.Title != `Volume <in> "ETH"` || len(doc.Rects) != 3 {
		t.Errorf("svg %+v", doc)
	}
	if strings.Contains(raw, "style=") {
		t.Error("a style attribute (the CSP refuses it)")
	}
}

// Nothing at all draws no bar and divides by nothing.
func TestBarChartEmpty(t *testing.T) {
	t.Parallel()
	c := newBarChart("c", "t", []string{"Jan 1"}, nil, func(v *big.Int) string { return v.String() })
	if len(c.Rects) != 0 || len(c.Rows) != 1 {
		t.Fatalf("%+v", c)
	}
}

func TestPercentAndDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		part, whole int64
		want        string
	}{{1, 2, "50.0 %"}, {2, 3, "66.7 %"}, {1, 3, "33.3 %"}, {3, 3, "100.0 %"}, {0, 5, "0.0 %"}} {
		if got := percent(tt.part, tt.whole); got != tt.want {
			t.Errorf("percent(%d, %d) = %q, want %q", tt.part, tt.whole, got, tt.want)
		}
	}
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850 ms", 42 * time.Second: "42 s",
		185 * time.Second: "3 min 5 s", 130 * time.Minute: "2 h 10 min"} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}
