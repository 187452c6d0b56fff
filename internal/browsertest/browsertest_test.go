package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

const goodPage = `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Good</title><style>.big{font-size:24px;color:#767676} .btn{background:#0b57d0;color:#fff} a:focus-visible{outline:3px solid #000}</style></head>
<body><main><h1>Good</h1><p>Plain text.</p><p class="big">Large grey text passes at 4.5:1 and needs only 3:1.</p>
<label for="q">Search</label> <input id="q"> <input aria-label="Code">
<button class="btn">Go</button> <a href="#x">A link</a> <button aria-label="Close">×</button>
<img src="data:," alt=""> <a href="#y"><img src="data:," alt="Home"></a>
<button disabled style="color:#ccc">Inactive controls are exempt</button>
<h2 id="s" style="position:absolute;width:1px;height:1px;overflow:hidden;color:#eee">Visually hidden</h2><section aria-labelledby="s"></section>
</main></body></html>`

const badPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width, user-scalable=no"></head>
<body style="background:#fff"><h1>One</h1><h1>Two</h1>
<p style="color:#999">Grey on white</p>
<div style="background:rgba(0,0,0,.5)"><span style="color:#333">Dark on half black</span></div>
<input id="nolabel"> <button></button> <a href="#"><img src="data:,"></a>
<section aria-labelledby="nope"></section>
</body></html>`

func serve(t *testing.T, pages map[string]string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(pages[r.URL.Path]))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The checker itself, on pages whose problems are known: it must find each of them, and
// nothing on a page without any.
func TestBrowserAccessibilityChecker(t *testing.T) {
	ctx := New(t)
	base := serve(t, map[string]string{"/good": goodPage, "/bad": badPage})

	Do(t, ctx, chromedp.Navigate(base+"/good"))
	if v, err := Accessibility(ctx); err != nil || len(v) != 0 {
		t.Fatalf("good page: %v\n  %s", err, strings.Join(v, "\n  "))
	}
	stops := Tab(t, ctx, 3)
	if stops[0].ID != "q" || !strings.HasPrefix(stops[2].Element, "button") {
		t.Fatalf("tab order: %v", stops)
	}

	Do(t, ctx, chromedp.Navigate(base+"/bad"))
	v, err := Accessibility(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"document: <html> has no lang",
		"document: no <title> text",
		"document: 2 h1 elements, want exactly one",
		"document: the viewport forbids zooming: width=device-width, user-scalable=no",
		`no accessible name: input#nolabel`,
		`form field without a label: input#nolabel`,
		`no accessible name: button`,
		`no accessible name: a`,
		`img without alt: data:,`,
		`aria-labelledby names a missing id "nope": section`,
		`contrast 2.85:1, need 4.5:1 (normal text, 16px): p "Grey on white" (#999999 on #ffffff)`,
		`contrast 3.18:1, need 4.5:1 (normal text, 16px): span "Dark on half black" (#333333 on #808080)`,
		"no name in Chromium's accessibility tree: input#nolabel (role textbox)",
		"no name in Chromium's accessibility tree: button (role button)",
		"no name in Chromium's accessibility tree: a (role link)",
		"no name in Chromium's accessibility tree: img (role image)",
	} {
		if !slices.Contains(v, want) {
			t.Errorf("bad page: %q not found in\n  %s", want, strings.Join(v, "\n  "))
		}
	}
	if len(v) != 16 {
		t.Errorf("bad page: %d problems, want 16:\n  %s", len(v), strings.Join(v, "\n  "))
	}

	Screenshot(t, ctx, "bad")
	if fi, err := os.Stat(filepath.Join(ScreenshotDir(t), "bad.png")); err != nil || fi.Size() < 1000 {
		t.Fatalf("screenshot: %v %v", fi, err)
	}
}
