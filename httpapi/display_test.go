package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/mock"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/storetest"
)

// What the checkout page shows, through the admin API, on both stores: a merchant's logo_url
// and a function's display_name and image_url are stored as given (the name trimmed), returned
// by GET and by the lists, changed and removed by PATCH (the logo); a bad one is 400 in the
// envelope, naming its field. In production mode (as here) an http URL is refused.
func TestAdminDisplayFields(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(t *testing.T) *sqlstore.Store{
		"sqlite": func(t *testing.T) *sqlstore.Store { return storetest.OpenSQLite(t) },
		"postgres": func(t *testing.T) *sqlstore.Store {
			s, err := postgres.Open(t.Context(), pgtest.FreshDSN(t), nil, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	} {
		t.Run(name, func(t *testing.T) {
			store := open(t)
			t.Cleanup(func() { store.Close() })
			testAdminDisplayFields(t, store)
		})
	}
}

func testAdminDisplayFields(t *testing.T, store *sqlstore.Store) {
	c := devchaintest.Start(t)
	nets, err := chain.Dial(t.Context(), []rampway.Network{c.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	svc := merchant.NewService(store, merchant.Options{HashSecret: "hash-secret-0123456789abcdef0123456"})
	e := &env{t: t, store: store, svc: svc, ping: &fakePinger{}}
	e.srv = httptest.NewServer(New(testConfig(), Deps{Merchants: svc, Functions: contract.NewRegistry(contract.RegistryConfig{}, store, nets, nil), Checkout: &mock.Checkout{},
		Idempotency: store, DB: e.ping, Log: slog.New(slog.DiscardHandler), Metrics: prometheus.NewRegistry()}))
	t.Cleanup(e.srv.Close)

	logo := "https://cdn.shop.example/logo.svg?v=2"
	m := decode[MerchantView](t, e.admin(http.MethodPost, "/merchants", map[string]any{"name": "Shop", "logo_url": logo}), 201)
	if m.LogoURL != logo {
		t.Fatalf("created %+v", m)
	}
	mpath := "/merchants/" + m.MerchantID
	for _, step := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"unchanged by others", map[string]any{"name": "Shop Ltd"}, logo},
		{"changed", map[string]any{"logo_url": "https://203.0.113.7:8443/l.png"}, "https://203.0.113.7:8443/l.png"},
		{"removed", map[string]any{"logo_url": ""}, ""},
		{"set again", map[string]any{"logo_url": logo}, logo},
	} {
		if got := decode[MerchantView](t, e.admin(http.MethodPatch, mpath, step.body), 200); got.LogoURL != step.want {
			t.Fatalf("%s: %+v, want logo %q", step.name, got, step.want)
		}
		if got := decode[MerchantView](t, e.admin(http.MethodGet, mpath, nil), 200); got.LogoURL != step.want {
			t.Fatalf("%s: GET %+v, want logo %q", step.name, got, step.want)
		}
	}
	list := decode[ListView[MerchantView]](t, e.admin(http.MethodGet, "/merchants", nil), 200)
	if len(list.Data) != 1 || list.Data[0].LogoURL != logo {
		t.Fatalf("list %+v", list)
	}
	for _, tc := range []struct {
		name string
		v    any
		msg  string
	}{
		{"http", "http://cdn.shop.example/logo.svg", "logo_url must be an absolute https URL of at most 2048 characters"},
		{"relative", "/logo.svg", "logo_url must be an absolute https URL"},
		{"too long", "https://cdn.shop.example/" + strings.Repeat("l", 2048), "logo_url must be an absolute https URL of at most 2048 characters"},
		{"credentials", "https://u:p@cdn.shop.example/logo.svg", "logo_url must not carry credentials"},
		{"not a string", 7, "Field 'logo_url' must be a string"},
	} {
		t.Run("logo "+tc.name, func(t *testing.T) {
			wantEnvelope(t, e.admin(http.MethodPost, "/merchants", map[string]any{"name": "x", "logo_url": tc.v}), 400, 400, "/admin/merchants", tc.msg)
			wantEnvelope(t, e.admin(http.MethodPatch, mpath, map[string]any{"logo_url": tc.v}), 400, 400, "/admin"+mpath, tc.msg)
		})
	}
	if got := decode[MerchantView](t, e.admin(http.MethodGet, mpath, nil), 200); got.LogoURL != logo {
		t.Fatalf("a refused update changed the logo: %+v", got)
	}

	fpath := mpath + "/contract-functions"
	body := func(edit map[string]any) map[string]any {
		b := map[string]any{"network": "devnet", "contract_address": c.Contracts().NFT.Hex(), "abi": nftFragment(t, "mint"),
			"default_gas_limit": 200000, "payable_symbol": "ETH"}
		for k, v := range edit {
			b[k] = v
		}
		return b
	}
	f := decode[ContractFunctionView](t, e.admin(http.MethodPost, fpath, body(map[string]any{"display_name": "  Golden Ticket — № 1 ",
		"image_url": "https://img.shop.example/ticket.png"})), 201)
	if f.DisplayName != "Golden Ticket — № 1" || f.ImageURL != "https://img.shop.example/ticket.png" {
		t.Fatalf("registered %+v", f)
	}
	plain := decode[ContractFunctionView](t, e.admin(http.MethodPost, fpath, body(nil)), 201)
	if plain.DisplayName != "" || plain.ImageURL != "" {
		t.Fatalf("registered without them: %+v", plain)
	}
	if got := decode[ContractFunctionView](t, e.admin(http.MethodGet, fpath+"/"+f.SmartContractFunctionID, nil), 200); !reflect.DeepEqual(got, f) {
		t.Fatalf("GET %+v, want %+v", got, f)
	}
	fs := decode[ListView[ContractFunctionView]](t, e.admin(http.MethodGet, fpath, nil), 200)
	if len(fs.Data) != 2 || !reflect.DeepEqual(fs.Data[0], f) || !reflect.DeepEqual(fs.Data[1], plain) {
		t.Fatalf("list %+v", fs)
	}
	for _, tc := range []struct {
		name string
		edit map[string]any
		msg  string
	}{
		{"name too long", map[string]any{"display_name": strings.Repeat("é", 101)}, "display_name must be at most 100 characters of text"},
		{"name control", map[string]any{"display_name": "a\tb"}, "display_name must not contain control characters"},
		{"name not a string", map[string]any{"display_name": 5}, "Field 'display_name' must be a string"},
		{"image http", map[string]any{"image_url": "http://img.shop.example/t.png"}, "image_url must be an absolute https URL of at most 2048 characters"},
		{"image data", map[string]any{"image_url": "data:image/png;base64,AAAA"}, "image_url must be an absolute https URL"},
		{"image host", map[string]any{"image_url": "https://img.shop.example;x/t.png"}, "image_url must name its host by a DNS name"},
	} {
		t.Run("function "+tc.name, func(t *testing.T) {
			wantEnvelope(t, e.admin(http.MethodPost, fpath, body(tc.edit)), 400, 400, "/admin"+fpath, tc.msg)
		})
	}
}
