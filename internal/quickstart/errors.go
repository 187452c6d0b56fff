// Package quickstart keeps docs/quickstart.md true. Its tests run the page's Go snippets
// against a real `rampway dev` (sdk/js/test/quickstart.test.mjs runs the TypeScript ones), and
// its error catalogue is generated here from the code's own tables: the codes of error.go, the
// HTTP statuses httpapi/respond.go answers them with, and whether the Go client retries them.
//
//	go test ./internal/quickstart                                    # checks the page
//	go test ./internal/quickstart -run TestErrorCatalogue -update    # rewrites its error table
package quickstart

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway/client"
)

// ErrorCode is one row of the error catalogue: an error code of rampway and what a merchant
// sees of it.
type ErrorCode struct {
	Name       string // the Go constant, EINVALID
	Value      string // its value, "invalid"
	Meaning    string // error.go's comment of it, without the status
	Status     int    // the HTTP status httpapi answers it with
	BodyStatus int    // the error envelope's statusCode
	Retryable  string // client.Error.Retryable for an answer of Status: "yes", "no", or "with `Retry-After`"
	Advice     string // what the merchant should do
}

// advice is what a merchant does about each code: the one part of the catalogue written by
// hand. A code added to error.go without an entry here fails TestErrorCatalogue.
var advice = map[string]string{
	"EINVALID": "Fix the request: `message` names the field and why (`payableCryptoSymbol BTC is not valid for network devnet`). " +
		"Nothing was created, so the same `Idempotency-Key` may carry the corrected request.",
	"EFUNCARGS": "Fix `contractExecution.function_args` to fit the registered function's ABI: `message` names the argument " +
		"(`Function arguments are not valid: argument 'quantity' must be of type uint256`).",
	"EUNAUTHORIZED": "Check the `X-API-KEY` (revoked or rotated?), that the body's `merchant_id` is the key's merchant, and that the merchant is enabled.",
	"ENOTFOUND":     "The id is unknown, another merchant's, or another area's: look an order up under the area that created it.",
	"ECONFLICT": "With `Retry-After`, a request with the same `Idempotency-Key` is still running: retried under that key (the SDKs do), " +
		"it gets that request's answer. Without, the resource's state refuses it (a refund that no longer waits for an address, " +
		"a resend while the merchant is disabled): read it again rather than retry.",
	"EUNPROCESSABLE": "The `Idempotency-Key` was used before for another request: a new request needs a new key.",
	"ETOOLARGE":      "The body is over `http.max_body_bytes` (1 MiB): send less (long `function_args` arrays).",
	"EUNSUPPORTED":   "Send `Content-Type: application/json` (the SDKs do).",
	"EMETHOD":        "Use the method of the route (`Allow` lists them); the SDKs do.",
	"ERATELIMIT":     "Wait `Retry-After` seconds and retry (the SDKs do); sustained, ask the operator about `http.rate_limit`.",
	"ENOTIMPLEMENTED": "No route answers it today. The SDKs count it retryable (every 5xx is), but a retry gets the same answer: " +
		"tell the operator.",
	"EUNAVAILABLE": "A node, price source or the database is down for a moment: retry after `Retry-After` (the SDKs do). " +
		"Money already paid is safe; the order goes on once it is back.",
	"EINTERNAL": "Retry with the same `Idempotency-Key` (the SDKs do): a create that went through is replayed, never made twice. " +
		"If it persists, give the operator the `err_…` id of `message` (also in `X-Error-Id`).",
}

// ReadErrorCodes reads the catalogue from the code under root (the repository): the codes of
// error.go in their order, and their statuses from httpapi/respond.go's statusOf and
// bodyStatusOf tables.
func ReadErrorCodes(root string) ([]ErrorCode, error) {
	fset := token.NewFileSet()
	errFile, err := parser.ParseFile(fset, filepath.Join(root, "error.go"), nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	respond, err := parser.ParseFile(fset, filepath.Join(root, "httpapi", "respond.go"), nil, 0)
	if err != nil {
		return nil, err
	}
	statusOf, err := statusTable(respond, "statusOf")
	if err != nil {
		return nil, err
	}
	bodyStatusOf, err := statusTable(respond, "bodyStatusOf")
	if err != nil {
		return nil, err
	}

	var codes []ErrorCode
	seen := map[string]bool{}
	for _, decl := range errFile.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || len(vs.Values) != 1 || !codeName.MatchString(vs.Names[0].Name) {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			name := vs.Names[0].Name
			value, err := strconv.Unquote(lit.Value)
			if err != nil {
				return nil, err
			}
			status, ok := statusOf[name]
			if !ok {
				return nil, fmt.Errorf("httpapi/respond.go: statusOf has no status for rampway.%s", name)
			}
			body := status
			if b, ok := bodyStatusOf[name]; ok {
				body = b
			}
			if advice[name] == "" {
				return nil, fmt.Errorf("error.go has %s, and internal/quickstart/errors.go no advice for it: add it to advice", name)
			}
			codes = append(codes, ErrorCode{
				Name: name, Value: value, Meaning: meaning(vs.Comment.Text()), Status: status, BodyStatus: body,
				Retryable: retryable(status), Advice: advice[name],
			})
			seen[name] = true
		}
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("error.go: no error codes (const E... = \"...\") found")
	}
	for name := range statusOf {
		if !seen[name] {
			return nil, fmt.Errorf("httpapi/respond.go maps rampway.%s, which error.go does not define", name)
		}
	}
	for name := range advice {
		if !seen[name] {
			return nil, fmt.Errorf("internal/quickstart/errors.go advises on %s, which error.go does not define", name)
		}
	}
	return codes, nil
}

// retryable says when the Go client retries an answer of status: "yes", "no", or "with
// `Retry-After`" when only an answer that carries one is.
func retryable(status int) string {
	bare := (&client.Error{StatusCode: status}).Retryable()
	after := (&client.Error{StatusCode: status, RetryAfter: time.Second}).Retryable()
	switch {
	case bare && after:
		return "yes"
	case !bare && after:
		return "with `Retry-After`"
	case !bare && !after:
		return "no"
	}
	return "without `Retry-After`"
}

// codeName is an error code's constant: EINVALID.
var codeName = regexp.MustCompile(`^E[A-Z]+$`)

// meaning is an error.go comment without the status it states: "bad input: 400" is "bad
// input".
func meaning(comment string) string {
	comment = strings.TrimSpace(comment)
	if m := regexp.MustCompile(`^(.*?):\s*\d{3}\b`).FindStringSubmatch(comment); m != nil {
		return m[1]
	}
	return comment
}

// statusTable reads a map literal `var name = map[string]int{rampway.EX: http.StatusY, ...}`.
func statusTable(f *ast.File, name string) (map[string]int, error) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.CompositeLit)
			if !ok {
				return nil, fmt.Errorf("httpapi/respond.go: %s is not a map literal", name)
			}
			table := map[string]int{}
			for _, elt := range lit.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					return nil, fmt.Errorf("httpapi/respond.go: %s: an element that is not key: value", name)
				}
				code, ok1 := selector(kv.Key, "rampway")
				st, ok2 := selector(kv.Value, "http")
				status, ok3 := httpStatus[st]
				if !ok1 || !ok2 || !ok3 {
					return nil, fmt.Errorf("httpapi/respond.go: %s: an entry that is not rampway.E...: http.Status...", name)
				}
				table[code] = status
			}
			return table, nil
		}
	}
	return nil, fmt.Errorf("httpapi/respond.go: no var %s (the code-to-status table this catalogue is made from)", name)
}

// selector returns the name of pkg.Name.
func selector(e ast.Expr, pkg string) (string, bool) {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	x, ok := s.X.(*ast.Ident)
	if !ok || x.Name != pkg {
		return "", false
	}
	return s.Sel.Name, true
}

// httpStatus maps net/http's status constant names to their values, made from
// http.StatusText ("Request Entity Too Large" is StatusRequestEntityTooLarge).
var httpStatus = func() map[string]int {
	m := map[string]int{}
	for code := 100; code < 600; code++ {
		text := http.StatusText(code)
		if text == "" {
			continue
		}
		var b strings.Builder
		b.WriteString("Status")
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
		m[b.String()] = code
	}
	return m
}()

// Markers around the catalogue in docs/quickstart.md.
const (
	CatalogueBegin = "<!-- errors: generated from error.go and httpapi/respond.go by internal/quickstart; " +
		"go test ./internal/quickstart -run TestErrorCatalogue -update rewrites it -->\n"
	CatalogueEnd = "<!-- /errors -->\n"
)

// RenderErrorCatalogue renders codes as the Markdown table between the markers, markers
// included.
func RenderErrorCatalogue(codes []ErrorCode) string {
	var b strings.Builder
	b.WriteString(CatalogueBegin)
	b.WriteString("| Code | HTTP status | Body `statusCode` | Retry? | Means | What to do |\n|---|---|---|---|---|---|\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "| `%s` (`%s`) | %d %s | %d | %s | %s | %s |\n",
			c.Name, c.Value, c.Status, http.StatusText(c.Status), c.BodyStatus, c.Retryable, c.Meaning, c.Advice)
	}
	b.WriteString(CatalogueEnd)
	return b.String()
}

// ReplaceBetween returns doc with the text from begin to end (both included) replaced by
// section, which starts with begin and ends with end.
func ReplaceBetween(doc []byte, begin, end, section string) ([]byte, error) {
	i := strings.Index(string(doc), begin)
	if i < 0 {
		return nil, fmt.Errorf("no %q marker", strings.TrimSpace(begin))
	}
	j := strings.Index(string(doc[i:]), end)
	if j < 0 {
		return nil, fmt.Errorf("no %q marker after %q", strings.TrimSpace(end), strings.TrimSpace(begin))
	}
	j += i + len(end)
	out := append([]byte{}, doc[:i]...)
	out = append(out, section...)
	return append(out, doc[j:]...), nil
}
