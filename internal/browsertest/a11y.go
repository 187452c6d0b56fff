package browsertest

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

//go:embed a11y.js
var a11yJS string

// Accessibility runs the accessibility check of a11y.js in the tab's current page and returns
// its violations, one line each (none: the page passes). It checks what a machine judges
// reliably: lang, title, one h1, a zoomable viewport; an accessible name on every control and
// a label on every form field; alt on every img; aria-labelledby/-describedby targets; WCAG 2
// text contrast (4.5:1, 3:1 for large text) against the effective background.
//
// The names are checked twice: by a11y.js, and in Chromium's own accessibility tree (the names
// a screen reader gets), where every control, image and field that is not ignored must have one.
func Accessibility(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](a11yJS))
	if err != nil {
		return nil, err
	}
	unnamed, err := chromedp.Run(ctx, unnamedInAXTree)
	return append(v, unnamed...), err
}

// namedRoles are the roles whose nodes need a name (WCAG 4.1.2, 1.1.1).
var namedRoles = map[string]bool{"button": true, "link": true, "textbox": true, "searchbox": true, "combobox": true,
	"checkbox": true, "radio": true, "switch": true, "slider": true, "spinbutton": true, "listbox": true, "tab": true,
	"menuitem": true, "image": true, "img": true}

// unnamedInAXTree lists the nodes of Chromium's accessibility tree with a role of namedRoles
// and an empty name.
func unnamedInAXTree(ctx context.Context, t *chromedp.Target) ([]string, error) {
	tree, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		return nil, fmt.Errorf("accessibility tree: %w", err)
	}
	var out []string
	for _, n := range tree.Nodes {
		if n.Ignored || n.Role == nil {
			continue
		}
		var role, name string
		_ = jsonv2.Unmarshal(n.Role.Value, &role)
		if n.Name != nil {
			_ = jsonv2.Unmarshal(n.Name.Value, &name)
		}
		if !namedRoles[role] || strings.TrimSpace(name) != "" {
			continue
		}
		el := "?"
		if n.BackendDOMNodeID != 0 {
			if d, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: n.BackendDOMNodeID}); err == nil && d.Node != nil {
				el = d.Node.LocalName
				for i := 0; i+1 < len(d.Node.Attributes); i += 2 {
					if d.Node.Attributes[i] == "id" {
						el += "#" + d.Node.Attributes[i+1]
					}
				}
			}
		}
		out = append(out, fmt.Sprintf("no name in Chromium's accessibility tree: %s (role %s)", el, role))
	}
	return out, nil
}

// CheckAccessibility fails the test with every violation Accessibility finds in the page,
// naming the page by what.
func CheckAccessibility(tb testing.TB, ctx context.Context, what string) {
	tb.Helper()
	v, err := Accessibility(ctx)
	if err != nil {
		tb.Fatalf("accessibility check of %s: %v", what, err)
	}
	if len(v) > 0 {
		tb.Errorf("accessibility of %s: %d problems:\n  %s", what, len(v), strings.Join(v, "\n  "))
	}
}

// Focus is where keyboard focus landed after a Tab.
type Focus struct {
	// Element describes the focused element: tag, #id or .classes, and its text.
	Element string `json:"element"`
	// ID is its id attribute.
	ID string `json:"id"`
	// Indicator is the visible focus indicator ("outline 3px solid rgb(...)", "box-shadow ...")
	// or "" when there is none.
	Indicator string `json:"indicator"`
	// Contrast is the outline's contrast with the background around the element (WCAG 1.4.11
	// asks 3:1 of a focus indicator), 0 when there is no outline.
	Contrast float64 `json:"contrast"`
}

func (f Focus) String() string {
	return fmt.Sprintf("%s [%s, %.2f:1]", f.Element, f.Indicator, f.Contrast)
}

// focusJS describes document.activeElement as a Focus.
const focusJS = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {element: "body", id: "", indicator: "", contrast: 0};
  let s = el.tagName.toLowerCase();
  if (el.id) s += "#" + el.id; else if (typeof el.className === "string" && el.className.trim()) s += "." + el.className.trim().split(/\s+/).join(".");
  const t = (el.textContent || "").replace(/\s+/g, " ").trim();
  if (t) s += ' "' + (t.length > 40 ? t.slice(0, 40) + "…" : t) + '"';
  const cs = getComputedStyle(el);
  let indicator = "", contrast = 0;
  if (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) {
    indicator = "outline " + cs.outlineWidth + " " + cs.outlineStyle + " " + cs.outlineColor;
    const rgb = (c) => (/rgba?\(([^)]*)\)/.exec(c) || [, "0,0,0"])[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    let bg = [255, 255, 255];
    for (let e = el.parentElement; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] >= 1) { bg = c.slice(0, 3); break; }
    }
    const lum = (c) => { const ch = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]; };
    const a = lum(rgb(cs.outlineColor)), b = lum(bg);
    contrast = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  } else if (cs.boxShadow && cs.boxShadow !== "none") {
    indicator = "box-shadow " + cs.boxShadow;
  }
  return {element: s, id: el.id, indicator, contrast};
})()`

// Tab presses Tab n times, as a keyboard user would, and returns where focus landed each time.
func Tab(tb testing.TB, ctx context.Context, n int) []Focus {
	tb.Helper()
	var stops []Focus
	for range n {
		Do(tb, ctx, chromedp.KeyEvent(kb.Tab))
		time.Sleep(20 * time.Millisecond) // let :focus-visible styles apply
		stops = append(stops, Eval[Focus](tb, ctx, focusJS))
	}
	return stops
}
