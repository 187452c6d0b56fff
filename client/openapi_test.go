package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// The SDK cannot drift from the server: every merchant operation of rampway's OpenAPI document
// (httpapi/openapi.json, the one GET /openapi.json serves) has a Client method that calls its
// method and path, and every property of its request and answer schemas, nested ones included,
// is a JSON field of the matching struct and the other way round.

// openAPIDoc is the part of the document the test reads.
type openAPIDoc struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas    map[string]*schema           `json:"schemas"`
		Responses  map[string]*openAPIResponse  `json:"responses"`
		Parameters map[string]*openAPIParameter `json:"parameters"`
	} `json:"components"`
}

type openAPIOperation struct {
	OperationID string              `json:"operationId"`
	Parameters  []*openAPIParameter `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema *schema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]*openAPIResponse `json:"responses"`
}

type openAPIResponse struct {
	Ref     string `json:"$ref"`
	Content map[string]struct {
		Schema *schema `json:"schema"`
	} `json:"content"`
}

type openAPIParameter struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

type schema struct {
	Ref        string             `json:"$ref"`
	Type       any                `json:"type"` // a string, or a list ("string", "null")
	Format     string             `json:"format"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
}

// types is the schema's types without "null", and whether null is one.
func (s *schema) types() (types []string, nullable bool) {
	switch t := s.Type.(type) {
	case string:
		return []string{t}, false
	case []any:
		for _, x := range t {
			if x == "null" {
				nullable = true
			} else {
				types = append(types, x.(string))
			}
		}
	}
	return types, nullable
}

func loadOpenAPI(t *testing.T) *openAPIDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d openAPIDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// resolve follows a schema's $ref.
func (d *openAPIDoc) resolve(t *testing.T, s *schema) (*schema, string) {
	t.Helper()
	if s == nil || s.Ref == "" {
		return s, ""
	}
	name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/")
	if !ok || d.Components.Schemas[name] == nil {
		t.Fatalf("unresolvable $ref %q", s.Ref)
	}
	return d.Components.Schemas[name], name
}

// jsonField is a struct field as encoding/json sees it.
type jsonField struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// jsonFields returns the JSON fields of struct type st, those of embedded structs included.
func jsonFields(st reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for f := range st.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = jsonField{name: name, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty"), typ: f.Type}
	}
	return out
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	rawMessage = reflect.TypeFor[json.RawMessage]()
)

// compare checks that Go type typ is schema s (resolved), at where: the same properties as
// JSON fields, fitting types, nested objects alike. In a request, a required property is never
// omitempty and an optional one always is.
func (d *openAPIDoc) compare(t *testing.T, where string, s *schema, typ reflect.Type, request bool) {
	t.Helper()
	s, ref := d.resolve(t, s)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	types, _ := s.types()
	if len(types) > 1 {
		t.Errorf("%s: schema types %v: the test knows one type and null", where, types)
		return
	}
	kind := ""
	if len(types) == 1 {
		kind = types[0]
	} else if s.Properties != nil {
		kind = "object"
	}
	fits := func(ok bool) {
		if !ok {
			t.Errorf("%s: Go type %s does not fit schema type %q (format %q)", where, typ, kind, s.Format)
		}
	}
	switch kind {
	case "":
		// Any JSON value (function_args): a map, raw JSON or any.
		fits(typ == rawMessage || typ.Kind() == reflect.Map || typ.Kind() == reflect.Interface)
	case "string":
		fits(typ.Kind() == reflect.String || (typ == timeType && (s.Format == "date-time" || s.Format == "date")))
	case "integer":
		switch typ.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		default:
			fits(false)
		}
	case "boolean":
		fits(typ.Kind() == reflect.Bool)
	case "array":
		if typ.Kind() != reflect.Slice || typ == rawMessage {
			fits(false)
			return
		}
		if s.Items != nil {
			d.compare(t, where+"[]", s.Items, typ.Elem(), request)
		}
	case "object":
		if s.Properties == nil {
			fits(typ.Kind() == reflect.Map || typ == rawMessage)
			return
		}
		if typ.Kind() != reflect.Struct {
			fits(false)
			return
		}
		if ref != "" && typ.Name() != ref && !(ref == "Error" && typ == reflect.TypeFor[errorBody]()) {
			t.Errorf("%s: schema %s is Go type %s: name it %s", where, ref, typ, ref)
		}
		fields := jsonFields(typ)
		for name, p := range s.Properties {
			f, ok := fields[name]
			if !ok {
				t.Errorf("%s: property %q of the schema is no JSON field of %s", where, name, typ)
				continue
			}
			if request {
				switch required := slices.Contains(s.Required, name); {
				case required && f.omitempty:
					t.Errorf("%s.%s: required, but %s omits it when empty", where, name, typ)
				case !required && !f.omitempty:
					t.Errorf("%s.%s: optional, but %s sends it when empty (omitempty)", where, name, typ)
				}
			}
			d.compare(t, where+"."+name, p, f.typ, request)
		}
		for name := range fields {
			if _, ok := s.Properties[name]; !ok {
				t.Errorf("%s: JSON field %q of %s is not in the schema", where, name, typ)
			}
		}
	default:
		t.Errorf("%s: schema type %q", where, kind)
	}
}

// merchantOperation is the Go side of one merchant operation.
type merchantOperation struct {
	request  any // the request body's type (nil: none)
	response any // the success answer's type
	query    any // the type of the query parameters' struct (nil: none but merchant_id)
	call     func(ctx context.Context, c *Client) error
}

// Placeholder ids the calls use; the document's path parameters are replaced by them.
var pathValues = map[string]string{"order_id": "ord_P", "event_id": "evt_P", "refund_id": "rfd_P"}

func merchantOperations() map[string]merchantOperation {
	const o, e, r = "ord_P", "evt_P", "rfd_P"
	return map[string]merchantOperation{
		"createMintOrder": {MintOrderRequest{}, MintOrder{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateMintOrder(ctx, &MintOrderRequest{})
			return err
		}},
		"createCryptoQuote": {CryptoQuoteRequest{}, CryptoQuote{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateCryptoQuote(ctx, &CryptoQuoteRequest{})
			return err
		}},
		"getMintOrder": {nil, Order{}, nil, func(ctx context.Context, c *Client) error { _, err := c.GetMintOrder(ctx, o); return err }},
		"listMintOrders": {nil, OrderList{}, ListOrdersParams{}, func(ctx context.Context, c *Client) error {
			_, err := c.ListMintOrdersPage(ctx, nil)
			return err
		}},
		"listMintOrderWebhooks": {nil, DeliveryLog{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListMintOrderWebhooks(ctx, o)
			return err
		}},
		"resendMintOrderWebhook": {resendRequest{}, Delivery{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ResendMintOrderWebhook(ctx, o, e)
			return err
		}},
		"createMintOrderRefund": {RefundRequest{}, Refund{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateMintOrderRefund(ctx, o, &RefundRequest{})
			return err
		}},
		"listMintOrderRefunds": {nil, RefundList{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListMintOrderRefunds(ctx, o)
			return err
		}},
		"setMintOrderRefundAddress": {MerchantRefundAddressRequest{}, Refund{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.SetMintOrderRefundAddress(ctx, o, r, &MerchantRefundAddressRequest{})
			return err
		}},
		"createFiatOrder": {FiatOrderRequest{}, FiatOrder{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateFiatOrder(ctx, &FiatOrderRequest{})
			return err
		}},
		"listFiatCurrencies": {nil, FiatCurrencies{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListFiatCurrencies(ctx)
			return err
		}},
		"createFiatQuote": {FiatQuoteRequest{}, FiatQuote{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateFiatQuote(ctx, &FiatQuoteRequest{})
			return err
		}},
		"getFiatOrder": {nil, Order{}, nil, func(ctx context.Context, c *Client) error { _, err := c.GetFiatOrder(ctx, o); return err }},
		"listFiatOrders": {nil, OrderList{}, ListOrdersParams{}, func(ctx context.Context, c *Client) error {
			_, err := c.ListFiatOrdersPage(ctx, nil)
			return err
		}},
		"listFiatOrderWebhooks": {nil, DeliveryLog{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListFiatOrderWebhooks(ctx, o)
			return err
		}},
		"resendFiatOrderWebhook": {resendRequest{}, Delivery{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ResendFiatOrderWebhook(ctx, o, e)
			return err
		}},
		"createFiatOrderRefund": {RefundRequest{}, Refund{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateFiatOrderRefund(ctx, o, &RefundRequest{})
			return err
		}},
		"listFiatOrderRefunds": {nil, RefundList{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListFiatOrderRefunds(ctx, o)
			return err
		}},
		"createDepositOrder": {DepositOrderRequest{}, DepositOrder{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateDepositOrder(ctx, &DepositOrderRequest{})
			return err
		}},
		"listDepositFiatCurrencies": {nil, FiatCurrencies{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListDepositFiatCurrencies(ctx)
			return err
		}},
		"getDepositOrder": {nil, Order{}, nil, func(ctx context.Context, c *Client) error { _, err := c.GetDepositOrder(ctx, o); return err }},
		"listDepositOrders": {nil, OrderList{}, ListOrdersParams{}, func(ctx context.Context, c *Client) error {
			_, err := c.ListDepositOrdersPage(ctx, nil)
			return err
		}},
		"listDepositOrderWebhooks": {nil, DeliveryLog{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListDepositOrderWebhooks(ctx, o)
			return err
		}},
		"resendDepositOrderWebhook": {resendRequest{}, Delivery{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ResendDepositOrderWebhook(ctx, o, e)
			return err
		}},
		"createDepositOrderRefund": {RefundRequest{}, Refund{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.CreateDepositOrderRefund(ctx, o, &RefundRequest{})
			return err
		}},
		"listDepositOrderRefunds": {nil, RefundList{}, nil, func(ctx context.Context, c *Client) error {
			_, err := c.ListDepositOrderRefunds(ctx, o)
			return err
		}},
	}
}

// isMerchantPath reports whether a path of the document is the merchant API's: under one of
// the three areas' default base paths.
func isMerchantPath(p string) bool {
	for _, base := range []string{DefaultMintPath, DefaultNFTRampPath, DefaultDepositPath} {
		if strings.HasPrefix(p, base+"/") {
			return true
		}
	}
	return false
}

func TestOpenAPIMerchantOperations(t *testing.T) {
	d := loadOpenAPI(t)
	ops := merchantOperations()

	// A server recording the method and escaped path of each call.
	var mu sync.Mutex
	var last string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		last = r.Method + " " + r.URL.EscapedPath()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	c := New("k", WithServerURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))

	seen := map[string]bool{}
	var paths []string
	for p := range d.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if !isMerchantPath(path) {
			continue
		}
		for method, raw := range d.Paths[path] {
			var op openAPIOperation
			if err := json.Unmarshal(raw, &op); err != nil || op.OperationID == "" {
				continue // a path's shared parameters, or the like
			}
			id := op.OperationID
			seen[id] = true
			mo, ok := ops[id]
			if !ok {
				t.Errorf("%s %s (%s): no Client method for this merchant operation", strings.ToUpper(method), path, id)
				continue
			}
			t.Run(id, func(t *testing.T) {
				// A method named after the operation.
				name := string(unicode.ToUpper(rune(id[0]))) + id[1:]
				if _, ok := reflect.TypeFor[*Client]().MethodByName(name); !ok {
					t.Errorf("Client has no method %s", name)
				}
				// It calls the operation's method and path.
				want := strings.ToUpper(method) + " " + path
				for k, v := range pathValues {
					want = strings.ReplaceAll(want, "{"+k+"}", v)
				}
				if err := mo.call(t.Context(), c); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				got := last
				mu.Unlock()
				if got != want {
					t.Errorf("the call sent %s, the document says %s", got, want)
				}
				// Its request body.
				var req *schema
				if op.RequestBody != nil {
					req = op.RequestBody.Content["application/json"].Schema
				}
				switch {
				case req == nil && mo.request != nil:
					t.Errorf("the document has no request body; the Client sends %T", mo.request)
				case req != nil && mo.request == nil:
					t.Errorf("the document has a request body; the Client sends none")
				case req != nil:
					d.compare(t, "request", req, reflect.TypeOf(mo.request), true)
				}
				// Its answers: the success's, and every error's is the envelope.
				successes := 0
				for code, res := range op.Responses {
					if res.Ref != "" {
						name := strings.TrimPrefix(res.Ref, "#/components/responses/")
						if res = d.Components.Responses[name]; res == nil {
							t.Fatalf("unresolvable response %s", name)
						}
					}
					s := res.Content["application/json"].Schema
					switch {
					case strings.HasPrefix(code, "2"):
						successes++
						if s == nil {
							t.Errorf("%s answer without a JSON schema", code)
							continue
						}
						d.compare(t, code, s, reflect.TypeOf(mo.response), false)
					case s != nil:
						d.compare(t, code, s, reflect.TypeFor[errorBody](), false)
					}
				}
				if successes != 1 {
					t.Errorf("%d success answers", successes)
				}
				// Its query parameters: the struct's url tags, and merchant_id, which the
				// Client leaves out (optional; the key names the merchant).
				var docQuery []string
				for _, p := range op.Parameters {
					if p.Ref != "" {
						p = d.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
					}
					if p.In == "query" && p.Name != "merchant_id" {
						docQuery = append(docQuery, p.Name)
					}
				}
				var goQuery []string
				if mo.query != nil {
					for f := range reflect.TypeOf(mo.query).Fields() {
						goQuery = append(goQuery, f.Tag.Get("url"))
					}
				}
				sort.Strings(docQuery)
				sort.Strings(goQuery)
				if !slices.Equal(docQuery, goQuery) {
					t.Errorf("query parameters: the document's %v, the Client's %v", docQuery, goQuery)
				}
			})
		}
	}
	for id := range ops {
		if !seen[id] {
			t.Errorf("the Client calls %s, which the document does not have", id)
		}
	}
}

// The event context's refunds (and refund) and the lookup's are one type, the document's
// Refund; the envelope is the document's Error.
func TestOpenAPISharedSchemas(t *testing.T) {
	d := loadOpenAPI(t)
	d.compare(t, "Refund", &schema{Ref: "#/components/schemas/Refund"}, reflect.TypeFor[Refund](), false)
	d.compare(t, "Error", &schema{Ref: "#/components/schemas/Error"}, reflect.TypeFor[errorBody](), false)
	// ContractExecution is sent in requests: its optional members are left out when empty.
	d.compare(t, "ContractExecution", &schema{Ref: "#/components/schemas/ContractExecution"}, reflect.TypeFor[ContractExecution](), true)
}
