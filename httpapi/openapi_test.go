package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/mock"
	"github.com/rampway/rampway/provider/sandbox"
)

// The OpenAPI document (openapi.json) is held here to what the server does: its routes are
// exactly those of routes.go (and of the checkout page it mounts), each of them is answered by
// the server (never "Cannot METHOD path"), with a status the document lists, under the
// configured base paths, and its schemas list exactly the fields of the views the handlers
// answer with.

// jsonObject is a decoded JSON object of the document.
type jsonObject = map[string]any

func decodeDoc(t *testing.T, raw []byte) jsonObject {
	t.Helper()
	var doc jsonObject
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("openapi.json has data after the document")
	}
	return doc
}

// obj returns v[key] as an object, failing when it is not one.
func obj(t *testing.T, v any, key string) jsonObject {
	t.Helper()
	m, ok := v.(jsonObject)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	o, ok := m[key].(jsonObject)
	if !ok {
		t.Fatalf("%q is not an object in %v", key, m)
	}
	return o
}

// resolve follows a local $ref ("#/components/...") to what it names.
func resolve(t *testing.T, doc jsonObject, v any) jsonObject {
	t.Helper()
	o, _ := v.(jsonObject)
	for o != nil {
		ref, ok := o["$ref"].(string)
		if !ok {
			return o
		}
		target, err := pointer(doc, ref)
		if err != nil {
			t.Fatalf("$ref %s: %v", ref, err)
		}
		o, _ = target.(jsonObject)
	}
	t.Fatalf("%v is not an object", v)
	return nil
}

func pointer(doc jsonObject, ref string) (any, error) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("not a local reference")
	}
	var cur any = doc
	for _, part := range strings.Split(rest, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(jsonObject)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", part)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("%s is missing", part)
		}
	}
	return cur, nil
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// docOps returns the operations of a document by "METHOD /path".
func docOps(t *testing.T, doc jsonObject) map[string]jsonObject {
	t.Helper()
	out := map[string]jsonObject{}
	for path, item := range obj(t, doc, "paths") {
		for _, m := range httpMethods {
			if op, ok := item.(jsonObject)[m].(jsonObject); ok {
				out[strings.ToUpper(m)+" "+path] = op
			}
		}
	}
	return out
}

// opParams returns the parameters of an operation (its own and its path's), resolved.
func opParams(t *testing.T, doc jsonObject, path string, op jsonObject) []jsonObject {
	t.Helper()
	var out []jsonObject
	item := obj(t, doc, "paths")[path].(jsonObject)
	for _, src := range []any{item["parameters"], op["parameters"]} {
		list, _ := src.([]any)
		for _, p := range list {
			out = append(out, resolve(t, doc, p))
		}
	}
	return out
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	doc := decodeDoc(t, openAPIDoc)
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", v)
	}
	info := obj(t, doc, "info")
	if info["title"] == "" || info["version"] == "" || !strings.Contains(info["description"].(string), "/nft-ramp") {
		t.Fatalf("info %v", info)
	}
	if servers, _ := doc["servers"].([]any); len(servers) != 1 || servers[0].(jsonObject)["url"] != "/" {
		t.Fatalf("servers %v, want one, relative: /", doc["servers"])
	}
	// The document is written with the configuration's default base paths.
	def := config.Default().HTTP.BasePaths
	if got := (BasePaths{def.Mint, def.NFTRamp, def.Deposit, def.Admin}); got != openAPIBasePaths {
		t.Fatalf("config defaults %+v, document's base paths %+v", got, openAPIBasePaths)
	}

	// Every $ref resolves.
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case jsonObject:
			if ref, ok := v["$ref"].(string); ok {
				if _, err := pointer(doc, ref); err != nil {
					t.Errorf("$ref %s: %v", ref, err)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)

	schemes := obj(t, obj(t, doc, "components"), "securitySchemes")
	if k := schemes["merchantApiKey"].(jsonObject); k["type"] != "apiKey" || k["in"] != "header" || k["name"] != "X-API-KEY" {
		t.Errorf("merchantApiKey %v", k)
	}
	if b := schemes["adminBearer"].(jsonObject); b["type"] != "http" || b["scheme"] != "bearer" {
		t.Errorf("adminBearer %v", b)
	}

	wildcard := regexp.MustCompile(`\{([^}]+)\}`)
	ids := map[string]string{}
	for route, op := range docOps(t, doc) {
		method, path, _ := strings.Cut(route, " ")
		id, _ := op["operationId"].(string)
		if id == "" || ids[id] != "" {
			t.Errorf("%s: operationId %q missing or also %s", route, id, ids[id])
		}
		ids[id] = route

		// Path parameters: exactly the template's.
		var declared, want []string
		for _, p := range opParams(t, doc, path, op) {
			if p["in"] == "path" {
				declared = append(declared, p["name"].(string))
				if p["required"] != true {
					t.Errorf("%s: path parameter %s is not required", route, p["name"])
				}
			}
		}
		for _, m := range wildcard.FindAllStringSubmatch(path, -1) {
			want = append(want, m[1])
		}
		sort.Strings(declared)
		sort.Strings(want)
		if !slices.Equal(declared, want) {
			t.Errorf("%s: path parameters %v, template has %v", route, declared, want)
		}

		responses := obj(t, op, "responses")
		merchantAPI := strings.HasPrefix(path, "/mint/") || strings.HasPrefix(path, "/nft-ramp/") || strings.HasPrefix(path, "/deposit/") ||
			strings.HasPrefix(path, "/merchant/")
		adminAPI := strings.HasPrefix(path, "/admin/")
		sec, _ := json.Marshal(op["security"])
		switch {
		case merchantAPI && string(sec) != `[{"merchantApiKey":[]}]`,
			adminAPI && string(sec) != `[{"adminBearer":[]}]`,
			!merchantAPI && !adminAPI && string(sec) != `[]`:
			t.Errorf("%s: security %s", route, sec)
		}
		if merchantAPI || adminAPI {
			// Every error of the JSON API is the envelope; 401 and 500 can always happen.
			for _, code := range []string{"401", "500"} {
				if responses[code] == nil {
					t.Errorf("%s: no %s response", route, code)
				}
			}
			for code, r := range responses {
				if code[0] != '4' && code[0] != '5' {
					continue
				}
				schema := obj(t, obj(t, resolve(t, doc, r)["content"], "application/json"), "schema")
				if schema["$ref"] != "#/components/schemas/Error" {
					t.Errorf("%s: %s is not the envelope: %v", route, code, schema)
				}
			}
		}
		var idem bool
		for _, p := range opParams(t, doc, path, op) {
			idem = idem || (p["in"] == "header" && p["name"] == "Idempotency-Key")
		}
		switch {
		case merchantAPI && method == "POST":
			if !idem || responses["409"] == nil || responses["422"] == nil {
				t.Errorf("%s: a merchant POST documents Idempotency-Key (%v), 409 and 422", route, idem)
			}
		case idem:
			t.Errorf("%s: only merchant POSTs take Idempotency-Key", route)
		}
		// Every route is built: none answers 501 or says it is not implemented.
		description, _ := op["description"].(string)
		if responses["501"] != nil || strings.Contains(strings.ToLower(description), "not implemented") {
			t.Errorf("%s: built, but documented as not implemented", route)
		}
	}
	// Nor does the document anywhere else (its introduction, tags, shared responses).
	if raw := strings.ToLower(string(openAPIDoc)); strings.Contains(raw, "not implemented") || strings.Contains(raw, `"501"`) {
		t.Error("openapi.json still speaks of routes that are not implemented")
	}

	// Served with the default base paths, it is the same document.
	served, err := openAPIFor(openAPIBasePaths)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decodeDoc(t, served), doc) {
		t.Fatal("the document served with the default base paths differs from openapi.json")
	}
}

// sourceRoutes returns the routes that routes.go mounts, at the default base paths, as
// "METHOD /path"; and whether it mounts the checkout page.
func sourceRoutes(t *testing.T) (routes []string, page bool) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{} // constants and the base path variables
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						values[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		case *ast.AssignStmt: // mint, ramp, ... := s.cfg.BasePaths.Mint, ...
			for i, rhs := range n.Rhs {
				sel, ok := rhs.(*ast.SelectorExpr)
				if !ok || i >= len(n.Lhs) {
					continue
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "BasePaths" {
					v := reflect.ValueOf(openAPIBasePaths).FieldByName(sel.Sel.Name)
					if !v.IsValid() {
						t.Fatalf("routes.go: unknown base path %s", sel.Sel.Name)
					}
					values[n.Lhs[i].(*ast.Ident).Name] = v.String()
				}
			}
		}
		return true
	})
	var eval func(e ast.Expr) (string, bool)
	eval = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			return s, err == nil && e.Kind == token.STRING
		case *ast.Ident:
			s, ok := values[e.Name]
			return s, ok
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.BinaryExpr:
			x, ok1 := eval(e.X)
			y, ok2 := eval(e.Y)
			return x + y, ok1 && ok2 && e.Op == token.ADD
		}
		return "", false
	}

	isField := func(e ast.Expr, name string) bool {
		if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
			if f, ok := c.Fun.(*ast.Ident); ok && f.Name == "labelled" {
				e = c.Args[0] // labelled(s.page): the page, with its route in the metrics
			}
		}
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == name
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == "routes" {
			fn = d
		}
	}
	if fn == nil {
		t.Fatal("routes.go has no routes function")
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false // the api and adm helpers' bodies, handlers
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			if fun.Name != "api" && fun.Name != "adm" {
				return true
			}
		case *ast.SelectorExpr:
			if fun.Sel.Name != "Handle" && fun.Sel.Name != "HandleFunc" {
				return true
			}
			switch {
			case isField(call.Args[1], "page"):
				page = true
				return true
			case isField(call.Args[1], "home"):
				return true // the dev server's demo store: not part of the API
			case isField(call.Args[1], "dashboard"):
				return true // the dashboard: HTML for people, not part of the API
			}
		default:
			return true
		}
		pattern, ok := eval(call.Args[0])
		if !ok {
			t.Fatalf("routes.go:%d: cannot read the route pattern", fset.Position(call.Pos()).Line)
		}
		if pattern == "/" {
			return true // the envelope's 404 and 405
		}
		if !strings.Contains(pattern, " ") {
			t.Fatalf("routes.go: route %q has no method: document it and teach this test", pattern)
		}
		routes = append(routes, pattern)
		return true
	})
	// The payment providers' operations (providerRoutes): those of dev mode's provider, under
	// its module's name, are documented. Their own pages are HTML for people, not the API.
	for _, op := range sandbox.New(sandbox.Config{}, nil, nil).AdminOps() {
		routes = append(routes, "POST "+openAPIBasePaths.Admin+"/"+sandbox.Name+"/"+op.Path)
	}
	return routes, page
}

// pageRoutes returns the routes of the hosted checkout page (checkoutpage/page.go), and its
// asset files.
func pageRoutes(t *testing.T) (routes, assets []string) {
	t.Helper()
	src, err := os.ReadFile("../checkoutpage/page.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"((?:GET|POST|PUT|PATCH|DELETE) /checkout[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		if !slices.Contains(routes, m[1]) {
			routes = append(routes, m[1])
		}
	}
	files, err := os.ReadDir("../checkoutpage/assets")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !f.IsDir() { // methods/: the payment method icons, a path of their own in the document
			assets = append(assets, f.Name())
		}
	}
	if len(routes) < 5 || len(assets) == 0 {
		t.Fatalf("checkout page routes %v, assets %v: the test no longer reads page.go right", routes, assets)
	}
	return routes, assets
}

// TestOpenAPIMatchesRoutes: the document has every route of routes.go, and no other.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	doc := decodeDoc(t, openAPIDoc)
	want, page := sourceRoutes(t)
	if !page {
		t.Fatal("routes.go no longer mounts the checkout page: take it out of openapi.json")
	}
	pr, assets := pageRoutes(t)
	for _, r := range pr {
		if strings.HasSuffix(r, "/assets/") {
			want = append(want, r+"methods/{icon}") // the payment method icons, one path
			r += "{file}"                           // the other asset files, one path
		}
		want = append(want, r)
	}
	if len(want) < 30 {
		t.Fatalf("only %d routes read from routes.go: %v", len(want), want)
	}
	ops := docOps(t, doc)
	var missing, extra []string
	for _, r := range want {
		if ops[r] == nil {
			missing = append(missing, r)
		}
	}
	for r := range ops {
		if !slices.Contains(want, r) {
			extra = append(extra, r)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("openapi.json lacks %q; routes.go does not mount %q", missing, extra)
	}
	// The asset path's file parameter names exactly the embedded assets.
	var enum []string
	for _, p := range opParams(t, doc, "/checkout/assets/{file}", ops["GET /checkout/assets/{file}"]) {
		for _, v := range obj(t, p, "schema")["enum"].([]any) {
			enum = append(enum, v.(string))
		}
	}
	sort.Strings(enum)
	sort.Strings(assets)
	if !slices.Equal(enum, assets) {
		t.Fatalf("asset files %v, documented %v", assets, enum)
	}
	// And the icon path's, exactly the icons.
	var icons, documented []string
	files, err := os.ReadDir("../checkoutpage/assets/methods")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		icons = append(icons, f.Name())
	}
	for _, p := range opParams(t, doc, "/checkout/assets/methods/{icon}", ops["GET /checkout/assets/methods/{icon}"]) {
		for _, v := range obj(t, p, "schema")["enum"].([]any) {
			documented = append(documented, v.(string))
		}
	}
	sort.Strings(documented)
	if !slices.Equal(icons, documented) {
		t.Fatalf("icons %v, documented %v", icons, documented)
	}
}

// openAPIChains answers the checkout page's questions about networks: none are asked, since
// no request here names a real order.
type openAPIChains struct{}

func (openAPIChains) Network(string) (*rampway.Network, bool)      { return nil, false }
func (openAPIChains) Head(context.Context, string) (uint64, error) { return 0, nil }

// newOpenAPIServer serves e's merchant, store and services, with the checkout page, under
// other base paths.
func newOpenAPIServer(t *testing.T, e *env, bp BasePaths) *httptest.Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := New(Config{BasePaths: bp, MaxBodyBytes: 1 << 20, AdminToken: adminToken, Version: "test"},
		Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store, DB: e.ping, Log: log,
			Metrics: prometheus.NewRegistry(), Page: checkoutpage.New(checkoutpage.Config{}, checkoutpage.Deps{Store: e.store, Checkout: e.checkout, Fiat: e.checkout, Chains: openAPIChains{}, Log: log}),
			Providers:        []rampway.FiatProvider{sandbox.New(sandbox.Config{BaseURL: "https://pay.example", Secret: sandboxTestSecret}, sandbox.NewBooks(e.store, sandbox.Name), nil)},
			DepositAddresses: newDepositAddresses(t, e), Refunds: newRefunds(t, e), Orders: e.store})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// getDoc fetches /openapi.json.
func getDoc(t *testing.T, base string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/openapi.json", nil)
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, body := getDoc(t, e.srv.URL, nil)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") ||
		!strings.Contains(res.Header.Get("Cache-Control"), "max-age=") || res.Header.Get("ETag") == "" {
		t.Fatalf("%d %v: %.200s", res.StatusCode, res.Header, body)
	}
	if !reflect.DeepEqual(decodeDoc(t, body), decodeDoc(t, openAPIDoc)) {
		t.Fatal("served document differs from openapi.json at the default base paths")
	}
	res, body = getDoc(t, e.srv.URL, http.Header{"If-None-Match": {res.Header.Get("ETag")}})
	if res.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match: %d %.100s", res.StatusCode, body)
	}
}

// TestOpenAPIRoutesAnswer: under configured base paths, /openapi.json shows them, and every
// route it documents is answered by the server (not "Cannot METHOD path", not 405), with a
// status the document lists for it.
func TestOpenAPIRoutesAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bp := BasePaths{Mint: "/shop/mint", NFTRamp: "/ramp", Deposit: "/dep", Admin: "/ops/admin"}
	srv := newOpenAPIServer(t, e, bp)
	res, body := getDoc(t, srv.URL, nil)
	if res.StatusCode != 200 {
		t.Fatalf("%d %.200s", res.StatusCode, body)
	}
	served := decodeDoc(t, body)

	embedded := decodeDoc(t, openAPIDoc)
	var want, got []string
	for p := range obj(t, embedded, "paths") {
		for _, r := range [][2]string{{"/mint/", bp.Mint + "/"}, {"/nft-ramp/", bp.NFTRamp + "/"}, {"/deposit/", bp.Deposit + "/"}, {"/admin/", bp.Admin + "/"}} {
			if rest, ok := strings.CutPrefix(p, r[0]); ok {
				p = r[1] + rest
				break
			}
		}
		want = append(want, p)
	}
	for p := range obj(t, served, "paths") {
		got = append(got, p)
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("served paths\n%q\nwant\n%q", got, want)
	}

	samples := map[string]string{"order_id": "ord_00000000000000000000000000", "event_id": "evt_00000000000000000000000000",
		"key_id": "key_00000000000000000000000000", "function_id": "scf_00000000000000000000000000",
		"merchant_id": e.merchant.ID, "file": "checkout.css", "icon": "credit_debit_card.svg", "provider": "sandbox",
		"network": "devnet", "symbol": "DUSD", "refund_id": "rfd_00000000000000000000000000", "action_id": "fac_00000000000000000000000000"}
	send := func(method, path string) (int, ErrorBody) {
		var reqBody io.Reader
		if method == http.MethodPost || method == http.MethodPatch {
			b := "{}"
			if !strings.HasPrefix(path, bp.Admin+"/") {
				b = `{"merchant_id":"` + e.merchant.ID + `"}`
			}
			reqBody = strings.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, reqBody)
		if reqBody != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("X-API-KEY", e.key)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		var eb ErrorBody
		if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			_ = json.Unmarshal(data, &eb)
		}
		return res.StatusCode, eb
	}
	fill := regexp.MustCompile(`\{([^}]+)\}`)
	ops := docOps(t, served)
	if len(ops) < 30 {
		t.Fatalf("only %d operations served", len(ops))
	}
	for route, op := range ops {
		method, path, _ := strings.Cut(route, " ")
		path = fill.ReplaceAllStringFunc(path, func(w string) string {
			v, ok := samples[strings.Trim(w, "{}")]
			if !ok {
				t.Fatalf("%s: no sample value for %s", route, w)
			}
			return v
		})
		status, eb := send(method, path)
		t.Logf("%s: %d %s", route, status, eb.Message)
		if status == http.StatusMethodNotAllowed || (status == http.StatusNotFound && strings.HasPrefix(eb.Message, "Cannot ")) {
			t.Errorf("%s: documented, but the server answers %d %q", route, status, eb.Message)
		} else if obj(t, op, "responses")[strconv.Itoa(status)] == nil {
			t.Errorf("%s: answers %d %q, which the document does not list", route, status, eb.Message)
		}
	}
	// The check can fail: the default base paths are unknown routes on this server.
	if status, eb := send(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders"); status != 404 || !strings.HasPrefix(eb.Message, "Cannot GET") {
		t.Fatalf("default base path on a configured server: %d %q", status, eb.Message)
	}
}

// jsonTypes are the JSON Schema types a Go value of type t marshals to (nil: any).
func jsonTypes(t reflect.Type) []string {
	if t == reflect.TypeFor[json.RawMessage]() {
		return nil
	}
	var out []string
	if t.Kind() == reflect.Pointer {
		out, t = append(out, "null"), t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		out = append(out, "string")
	case reflect.Bool:
		out = append(out, "boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out = append(out, "integer")
	case reflect.Float32, reflect.Float64:
		out = append(out, "number")
	case reflect.Slice, reflect.Array:
		out = append(out, "array") // the views never answer a nil slice
	case reflect.Map, reflect.Struct:
		out = append(out, "object")
	}
	sort.Strings(out)
	return out
}

// schemaTypes are the types a schema allows (nil: any).
func schemaTypes(t *testing.T, doc, s jsonObject) []string {
	t.Helper()
	s = resolve(t, doc, s)
	var out []string
	switch v := s["type"].(type) {
	case string:
		out = []string{v}
	case []any:
		for _, x := range v {
			out = append(out, x.(string))
		}
	}
	sort.Strings(out)
	return out
}

// field is the type of a struct's field.
func field(t reflect.Type, name string) reflect.Type {
	f, ok := t.FieldByName(name)
	if !ok {
		panic(t.String() + " has no field " + name)
	}
	return f.Type
}

// jsonFields returns a struct's fields by JSON name.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct { // embedded: its fields are the body's own
			maps.Copy(out, jsonFields(f.Type))
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// TestOpenAPISchemasMatchViews: the schemas list exactly the JSON fields of the views the
// handlers answer with (and of the request bodies they read), with their types; the success
// answers of the merchant API's routes are those views; every error is the envelope.
func TestOpenAPISchemasMatchViews(t *testing.T) {
	t.Parallel()
	doc := decodeDoc(t, openAPIDoc)
	schemas := obj(t, obj(t, doc, "components"), "schemas")
	views := map[reflect.Type]string{
		reflect.TypeFor[ErrorBody]():                      "Error",
		reflect.TypeFor[CryptoQuoteView]():                "CryptoQuote",
		reflect.TypeFor[MintOrderView]():                  "MintOrder",
		reflect.TypeFor[OrderView]():                      "Order",
		reflect.TypeFor[RefundView]():                     "Refund",
		reflect.TypeFor[RefundListView]():                 "RefundList",
		reflect.TypeFor[ListView[OrderView]]():            "OrderList",
		reflect.TypeFor[DeliveryView]():                   "Delivery",
		reflect.TypeFor[AttemptView]():                    "DeliveryAttempt",
		reflect.TypeFor[ListView[DeliveryView]]():         "DeliveryLog",
		reflect.TypeFor[MerchantView]():                   "Merchant",
		reflect.TypeFor[ListView[MerchantView]]():         "MerchantList",
		reflect.TypeFor[APIKeyView]():                     "APIKey",
		reflect.TypeFor[ListView[APIKeyView]]():           "APIKeyList",
		reflect.TypeFor[WebhookSecretView]():              "WebhookSecret",
		reflect.TypeFor[WebhookSecretState]():             "WebhookSecretState",
		reflect.TypeFor[FiatActionView]():                 "FiatAction",
		reflect.TypeFor[ListView[FiatActionView]]():       "FiatActionList",
		reflect.TypeFor[ContractFunctionView]():           "ContractFunction",
		reflect.TypeFor[ListView[ContractFunctionView]](): "ContractFunctionList",
		reflect.TypeFor[checkoutpage.Status]():            "CheckoutStatus",
		reflect.TypeFor[FiatCurrenciesView]():             "FiatCurrencies",
		reflect.TypeFor[FiatCurrencyView]():               "FiatCurrency",
		reflect.TypeFor[PaymentOptionView]():              "PaymentOption",
		reflect.TypeFor[FiatQuoteView]():                  "FiatQuote",
		reflect.TypeFor[FiatOrderView]():                  "FiatOrder",
		reflect.TypeFor[DepositOrderView]():               "DepositOrder",
		reflect.TypeFor[FiatPaymentView]():                "FiatPayment",
		reflect.TypeFor[FiatMovementView]():               "FiatMovement",
		reflect.TypeFor[sandbox.BankTransferView]():       "BankTransfer",
		reflect.TypeFor[DepositAddressView]():             "DepositAddress",
		reflect.TypeFor[ListView[DepositAddressView]]():   "DepositAddressList",
		reflect.TypeFor[RefundAdminView]():                "AdminRefund",
		reflect.TypeFor[ListView[RefundAdminView]]():      "AdminRefundList",
		reflect.TypeFor[LedgerDriftView]():                "LedgerDrift",
		reflect.TypeFor[LedgerDriftsView]():               "LedgerDrifts",
		reflect.TypeFor[LedgerDayView]():                  "LedgerDay",
		reflect.TypeFor[LedgerReportView]():               "LedgerReport",
		reflect.TypeFor[LedgerTransferView]():             "LedgerTransfer",
		reflect.TypeFor[LedgerTransfersView]():            "LedgerTransfers",
	}
	bodies := map[reflect.Type]string{
		reflect.TypeFor[mintOrderBody]():                                "MintOrderRequest",
		reflect.TypeFor[quoteBody]():                                    "CryptoQuoteRequest",
		reflect.TypeFor[fiatQuoteBody]():                                "FiatQuoteRequest",
		reflect.TypeFor[fiatOrderBody]():                                "FiatOrderRequest",
		reflect.TypeFor[depositOrderBody]():                             "DepositOrderRequest",
		opBody(sandbox.New(sandbox.Config{}, nil, nil).AdminOps()[0]):   "BankTransferRequest",
		reflect.TypeFor[depositAddressBody]():                           "DepositAddressRequest",
		reflect.TypeFor[refundAddressBody]():                            "RefundAddressRequest",
		reflect.TypeFor[merchantRefundAddressBody]():                    "MerchantRefundAddressRequest",
		reflect.TypeFor[refundBody]():                                   "RefundRequest",
		reflect.TypeFor[ledgerAcceptBody]():                             "LedgerAcceptRequest",
		reflect.TypeFor[refundApproveBody]():                            "RefundApproveRequest",
		reflect.TypeFor[refundRejectBody]():                             "RefundRejectRequest",
		reflect.TypeFor[executionBody]():                                "ContractExecution",
		field(reflect.TypeFor[executionBody](), "Payment").Elem():       "ContractExecutionPayment",
		field(reflect.TypeFor[executionBody](), "NetworkParams").Elem(): "NetworkParams",
	}
	check := func(t *testing.T, typ reflect.Type, name string, answer bool) {
		s, ok := schemas[name].(jsonObject)
		if !ok {
			t.Fatalf("no schema %s", name)
		}
		props, _ := s["properties"].(jsonObject)
		fields := jsonFields(typ)
		var got, want, required, wantRequired []string
		for p := range props {
			got = append(got, p)
		}
		for n, f := range fields {
			want = append(want, n)
			if !strings.Contains(f.Tag.Get("json"), ",omitempty") {
				wantRequired = append(wantRequired, n)
			}
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			required = append(required, r.(string))
		}
		for _, l := range [][]string{got, want, required, wantRequired} {
			sort.Strings(l)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("schema %s lists %q; %s has %q", name, got, typ, want)
		}
		for n, f := range fields {
			prop := props[n].(jsonObject)
			ft := f.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				ft = ft.Elem() // a nested request object, absent or null alike
			}
			if ft.Kind() == reflect.Pointer && strings.Contains(f.Tag.Get("json"), ",omitempty") {
				ft = ft.Elem() // omitempty: absent when nil, never null
			}
			// A view (or a body) of its own is its schema, by reference.
			elem := ft
			target := prop
			if elem.Kind() == reflect.Slice && elem.Elem().Kind() == reflect.Struct {
				elem, target = elem.Elem(), obj(t, prop, "items")
			}
			if other, ok := views[elem]; ok && target["$ref"] != "#/components/schemas/"+other {
				t.Errorf("%s.%s: want $ref to %s, have %v", name, n, other, target)
			}
			if other, ok := bodies[elem]; ok && target["$ref"] != "#/components/schemas/"+other {
				t.Errorf("%s.%s: want $ref to %s, have %v", name, n, other, target)
			}
			wantT, gotT := jsonTypes(ft), schemaTypes(t, doc, prop)
			switch {
			case wantT == nil: // json.RawMessage: any JSON
			case answer && !slices.Equal(gotT, wantT):
				t.Errorf("%s.%s: schema types %v, Go %s answers %v", name, n, gotT, f.Type, wantT)
			case !answer && !slices.Contains(gotT, slices.DeleteFunc(wantT, func(s string) bool { return s == "null" })[0]):
				t.Errorf("%s.%s: schema types %v, Go %s reads %v", name, n, gotT, f.Type, wantT)
			}
		}
		if answer && !slices.Equal(required, wantRequired) {
			t.Errorf("schema %s requires %q; %s always has %q", name, required, typ, wantRequired)
		}
	}
	for typ, name := range views {
		t.Run(name, func(t *testing.T) { check(t, typ, name, true) })
	}
	for typ, name := range bodies {
		t.Run(name, func(t *testing.T) { check(t, typ, name, false) })
	}

	// The envelope: exactly its five fields, status always false.
	env := schemas["Error"].(jsonObject)
	if env["additionalProperties"] != false || obj(t, env, "properties")["status"].(jsonObject)["const"] != false {
		t.Errorf("Error schema %v", env)
	}

	// The merchant API's routes answer those views; every error response is the envelope.
	ops := docOps(t, doc)
	for _, c := range []struct{ route, status, schema string }{
		{"POST /mint/merchant/hosted/nftCheckout/order", "201", "MintOrder"},
		{"POST /mint/merchant/hosted/nftCheckout/cryptoQuote", "200", "CryptoQuote"},
		{"GET /mint/merchant/hosted/nftCheckout/order/{order_id}", "200", "Order"},
		{"GET /mint/merchant/hosted/nftCheckout/orders", "200", "OrderList"},
		{"GET /nft-ramp/merchant/hosted/nftCheckout/fiatCurrencies", "200", "FiatCurrencies"},
		{"POST /nft-ramp/merchant/hosted/nftCheckout/fiatQuote", "200", "FiatQuote"},
		{"POST /nft-ramp/merchant/hosted/nftCheckout/order", "201", "FiatOrder"},
		{"GET /nft-ramp/merchant/hosted/nftCheckout/order/{order_id}", "200", "Order"},
		{"GET /nft-ramp/merchant/hosted/nftCheckout/orders", "200", "OrderList"},
		{"GET /mint/merchant/hosted/nftCheckout/order/{order_id}/webhooks", "200", "DeliveryLog"},
		{"GET /nft-ramp/merchant/hosted/nftCheckout/order/{order_id}/webhooks", "200", "DeliveryLog"},
		{"POST /mint/merchant/hosted/nftCheckout/order/{order_id}/webhooks/{event_id}/resend", "202", "Delivery"},
		{"POST /nft-ramp/merchant/hosted/nftCheckout/order/{order_id}/webhooks/{event_id}/resend", "202", "Delivery"},
		{"POST /deposit/merchant/sdk/on-ramp/order", "201", "DepositOrder"},
		{"GET /deposit/merchant/sdk/onramp-to-deposit/fiatCurrencies", "200", "FiatCurrencies"},
		{"GET /deposit/merchant/sdk/on-ramp/order/{order_id}", "200", "Order"},
		{"GET /deposit/merchant/sdk/on-ramp/orders", "200", "OrderList"},
		{"GET /deposit/merchant/sdk/on-ramp/order/{order_id}/webhooks", "200", "DeliveryLog"},
		{"POST /deposit/merchant/sdk/on-ramp/order/{order_id}/webhooks/{event_id}/resend", "202", "Delivery"},
		{"POST /providers/{provider}/webhook", "200", "ProviderWebhookReceipt"},
		{"POST /admin/sandbox/bank-transfers", "201", "BankTransfer"},
		{"POST /mint/merchant/hosted/nftCheckout/order/{order_id}/refunds/{refund_id}/address", "200", "Refund"},
		{"POST /mint/merchant/hosted/nftCheckout/order/{order_id}/refunds", "200", "Refund"},
		{"GET /mint/merchant/hosted/nftCheckout/order/{order_id}/refunds", "200", "RefundList"},
		{"POST /nft-ramp/merchant/hosted/nftCheckout/order/{order_id}/refunds", "200", "Refund"},
		{"GET /nft-ramp/merchant/hosted/nftCheckout/order/{order_id}/refunds", "200", "RefundList"},
		{"POST /deposit/merchant/sdk/on-ramp/order/{order_id}/refunds", "200", "Refund"},
		{"GET /deposit/merchant/sdk/on-ramp/order/{order_id}/refunds", "200", "RefundList"},
		{"GET /admin/refunds", "200", "AdminRefundList"},
		{"GET /admin/refunds/{refund_id}", "200", "AdminRefund"},
		{"POST /admin/refunds/{refund_id}/approve", "200", "AdminRefund"},
		{"POST /admin/refunds/{refund_id}/reject", "200", "AdminRefund"},
		{"GET /admin/fiat-actions", "200", "FiatActionList"},
		{"POST /admin/fiat-actions/{action_id}/retry", "200", "FiatAction"},
		{"POST /admin/fiat-actions/{action_id}/resolve", "200", "FiatAction"},
		{"POST /admin/refunds/{refund_id}/address", "200", "AdminRefund"},
	} {
		r := resolve(t, doc, obj(t, ops[c.route], "responses")[c.status])
		schema := obj(t, obj(t, r["content"], "application/json"), "schema")
		if schema["$ref"] != "#/components/schemas/"+c.schema {
			t.Errorf("%s %s: schema %v, want %s", c.route, c.status, schema, c.schema)
		}
	}
	for name, r := range obj(t, obj(t, doc, "components"), "responses") {
		schema := obj(t, obj(t, r.(jsonObject)["content"], "application/json"), "schema")
		if schema["$ref"] != "#/components/schemas/Error" {
			t.Errorf("response %s is not the envelope", name)
		}
	}
	// The provider webhook's receipt is a map of the handler's: exactly received, duplicate and ignored.
	receipt := schemas["ProviderWebhookReceipt"].(jsonObject)
	props := obj(t, receipt, "properties")
	if len(props) != 3 || schemaTypes(t, doc, obj(t, props, "received"))[0] != "boolean" || schemaTypes(t, doc, obj(t, props, "ignored"))[0] != "boolean" ||
		schemaTypes(t, doc, obj(t, props, "duplicate"))[0] != "boolean" || len(receipt["required"].([]any)) != 3 {
		t.Errorf("ProviderWebhookReceipt %v", receipt)
	}
}

// Every field a request schema documents is one its handler reads: sent (as null, which no
// field refuses for its type), it is never 'Unknown field' (the handlers refuse those). The
// admin requests' schemas are written by hand (their bodies are the handlers' own), so this is
// what holds them to the code, logo_url, display_name and image_url included.
func TestOpenAPIRequestFieldsRead(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	// With the sandbox provider, for its admin route's body.
	srv := httptest.NewServer(New(testConfig(), Deps{Merchants: e.svc, Functions: &mock.Functions{}, Checkout: &mock.Checkout{}, Idempotency: e.store, DB: e.ping,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: prometheus.NewRegistry(),
		Providers:        []rampway.FiatProvider{sandbox.New(sandbox.Config{BaseURL: "https://pay.example", Secret: sandboxTestSecret}, sandbox.NewBooks(e.store, sandbox.Name), nil)},
		DepositAddresses: merchant.NewDepositAddresses(merchant.DepositAddressesConfig{}, e.store, noDepositChains{}, nil)}))
	t.Cleanup(srv.Close)
	e.srv = srv
	doc := decodeDoc(t, openAPIDoc)
	fill := regexp.MustCompile(`\{([^}]+)\}`)
	checked := map[string]bool{}
	for route, op := range docOps(t, doc) {
		rb, ok := op["requestBody"]
		if !ok {
			continue
		}
		media, ok := obj(t, resolve(t, doc, rb), "content")["application/json"].(jsonObject)
		if !ok {
			continue
		}
		schema := resolve(t, doc, media["schema"])
		props, _ := schema["properties"].(jsonObject)
		method, path, _ := strings.Cut(route, " ")
		path = fill.ReplaceAllString(path, "x")
		if strings.HasPrefix(path, "/admin/merchants/x") {
			path = "/admin/merchants/" + e.merchant.ID + strings.TrimPrefix(path, "/admin/merchants/x")
		}
		for p := range props {
			body := map[string]any{p: nil}
			if !strings.HasPrefix(path, "/admin/") && p != "merchant_id" {
				body["merchant_id"] = e.merchant.ID
			}
			r := e.do(method, path, body, map[string]string{"X-API-KEY": e.key, "Authorization": "Bearer " + adminToken})
			var eb ErrorBody
			_ = json.Unmarshal(r.body, &eb)
			if strings.Contains(eb.Message, "Unknown field") {
				t.Errorf("%s documents %s, which the server does not read: %d %s", route, p, r.status, eb.Message)
			}
			checked[route] = true
		}
	}
	for _, route := range []string{"POST /admin/merchants", "PATCH /admin/merchants/{merchant_id}", "POST /admin/merchants/{merchant_id}/contract-functions",
		"POST /admin/sandbox/bank-transfers", "POST /admin/merchants/{merchant_id}/deposit-addresses",
		"POST /mint/merchant/hosted/nftCheckout/order/{order_id}/refunds/{refund_id}/address", "POST /admin/refunds/{refund_id}/approve",
		"POST /admin/refunds/{refund_id}/reject", "POST /admin/refunds/{refund_id}/address", "POST /admin/merchants/{merchant_id}/api-keys", "POST /admin/merchants/{merchant_id}/webhook-secret",
		"POST /mint/merchant/hosted/nftCheckout/order/{order_id}/refunds", "POST /nft-ramp/merchant/hosted/nftCheckout/order/{order_id}/refunds",
		"POST /deposit/merchant/sdk/on-ramp/order/{order_id}/refunds"} {
		if !checked[route] {
			t.Errorf("%s: no request fields checked", route)
		}
	}
}
