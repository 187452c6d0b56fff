package dashboard

import (
	"math/big"
)

// Charts are drawn on the server as inline SVG, with no script and no style attribute (the
// page's CSP allows neither): shapes carry classes that dashboard.css colours, and positions
// are presentation attributes. Each chart has an accessible name (role="img" and its <title>)
// and a table of the same figures beside it. Values are integers (counts, amounts in base
// units) and every position is computed in integers: no float touches an amount.

// Chart geometry, in the SVG's own units (it scales to the page's width).
const (
	chartWidth  = 640
	chartHeight = 200
	chartLeft   = 8  // the plot's left edge
	chartTop    = 18 // room above the plot for the top value
	chartBottom = 20 // room below the plot for the days
)

// chartSeries is one stack of a bar chart: a name for the legend and the table, a class for
// its colour, and a value per label (nil counts as 0).
type chartSeries struct {
	Name, Class string
	Values      []*big.Int
}

// barChart is a stacked bar chart ready to draw: the SVG's shapes and texts, its legend, and
// its table.
type barChart struct {
	// ID is unique on the page (the title's id); Title the chart's accessible name.
	ID, Title     string
	Width, Height int
	Rects         []chartRect
	Texts         []chartText
	// Axis is the plot's base line.
	Axis   chartLine
	Legend []chartLegend
	// Head are the table's column names (the label's, each series', the total's), Rows its
	// rows, formatted.
	Head []string
	Rows [][]string
}

// chartRect is a bar's part: one series on one label.
type chartRect struct {
	Class      string
	X, Y, W, H int
	// Tip is the part's tooltip (the label, the series, the value).
	Tip string
}

// chartText is a text of the chart: a day under the axis, the scale's top value.
type chartText struct {
	X, Y   int
	Anchor string // start, middle or end
	Text   string
}

// chartLine is a line of the chart.
type chartLine struct{ X1, Y1, X2, Y2 int }

// chartLegend is a series in the legend.
type chartLegend struct{ Name, Class string }

// newBarChart lays out a stacked bar chart of series over labels (one bar per label), values
// formatted by format. Bars are scaled to the largest total; at most about eight labels are
// written under the axis (every k-th), all of them in the table.
func newBarChart(id, title string, labels []string, series []chartSeries, format func(*big.Int) string) *barChart {
	c := &barChart{ID: id, Title: title, Width: chartWidth, Height: chartHeight,
		Head: []string{"Day"}}
	plotW, plotH := chartWidth-chartLeft, chartHeight-chartTop-chartBottom
	base := chartTop + plotH
	c.Axis = chartLine{X1: chartLeft, Y1: base, X2: chartWidth, Y2: base}
	value := func(s chartSeries, i int) *big.Int {
		if i < len(s.Values) && s.Values[i] != nil {
			return s.Values[i]
		}
		return new(big.Int)
	}
	totals := make([]*big.Int, len(labels))
	top := new(big.Int)
	for i := range labels {
		totals[i] = new(big.Int)
		for _, s := range series {
			totals[i].Add(totals[i], value(s, i))
		}
		if totals[i].Cmp(top) > 0 {
			top.Set(totals[i])
		}
	}
	for _, s := range series {
		c.Legend = append(c.Legend, chartLegend{Name: s.Name, Class: s.Class})
		c.Head = append(c.Head, s.Name)
	}
	c.Head = append(c.Head, "Total")
	n := max(len(labels), 1)
	slot := plotW / n
	barW := max(slot*3/4, 1)
	every := (len(labels) + 7) / 8
	for i, label := range labels {
		x := chartLeft + i*slot + (slot-barW)/2
		// Each stack's top is its cumulative share of the largest total, in whole units, so
		// that the stacks of a bar meet exactly.
		cum, y := new(big.Int), base
		for _, s := range series {
			v := value(s, i)
			if v.Sign() <= 0 {
				continue
			}
			cum.Add(cum, v)
			next := base - scale(cum, top, plotH)
			c.Rects = append(c.Rects, chartRect{Class: s.Class, X: x, Y: next, W: barW, H: y - next,
				Tip: label + ", " + s.Name + ": " + format(v)})
			y = next
		}
		if every > 0 && i%every == 0 {
			c.Texts = append(c.Texts, chartText{X: x + barW/2, Y: chartHeight - 5, Anchor: "middle", Text: label})
		}
		row := []string{label}
		for _, s := range series {
			row = append(row, format(value(s, i)))
		}
		c.Rows = append(c.Rows, append(row, format(totals[i])))
	}
	c.Texts = append(c.Texts, chartText{X: chartLeft, Y: chartTop - 6, Anchor: "start", Text: "Highest day: " + format(top)})
	return c
}

// scale returns v/top of length, rounded down (0 when top is 0).
func scale(v, top *big.Int, length int) int {
	if top.Sign() <= 0 {
		return 0
	}
	q := new(big.Int).Mul(v, big.NewInt(int64(length)))
	return int(q.Quo(q, top).Int64())
}
