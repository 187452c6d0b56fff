package checkoutpage_test

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

type hashes struct{}

func (hashes) CheckHash(id, hash string) bool { return hash == "h-"+id }

func (hashes) Cancel(context.Context, string) (*rampway.Order, error) {
	return nil, rampway.Errorf(rampway.ECONFLICT, "not in this benchmark")
}

type nets struct{ n *rampway.Network }

func (c nets) Network(string) (*rampway.Network, bool)      { return c.n, true }
func (c nets) Head(context.Context, string) (uint64, error) { return 100, nil }

// BenchmarkCheckoutPage measures the page's time to first byte over loopback HTTP, with the
// SQLite store (the target: under 50 ms), and reports the page's weight with its
// assets (target: under 100 KB).
func BenchmarkCheckoutPage(b *testing.B) {
	srv, _, o := pageWorld(b)
	url := srv.URL + "/checkout?order_id=" + o.ID + "&hash=h-" + o.ID
	weight := 0
	for _, u := range []string{url, srv.URL + "/checkout/assets/checkout.css", srv.URL + "/checkout/assets/checkout.js"} {
		res, err := http.Get(u)
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("%s: %v %v", u, err, res)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		weight += int(n)
	}
	var ttfb []time.Duration
	b.ResetTimer()
	for b.Loop() {
		var start, first time.Time
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			WroteRequest:         func(httptrace.WroteRequestInfo) { start = time.Now() },
			GotFirstResponseByte: func() { first = time.Now() },
		}))
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			b.Fatal(err, res)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		ttfb = append(ttfb, first.Sub(start))
	}
	b.StopTimer()
	slices.Sort(ttfb)
	b.ReportMetric(float64(ttfb[len(ttfb)/2].Microseconds())/1000, "ms-ttfb-p50")
	b.ReportMetric(float64(ttfb[len(ttfb)*99/100].Microseconds())/1000, "ms-ttfb-p99")
	b.ReportMetric(float64(weight)/1024, "KiB-page+assets")
	if weight > 100<<10 {
		b.Fatalf("page and assets weigh %d bytes, over 100 KB", weight)
	}
}

// pageWorld is the page's handler over HTTP on a SQLite store holding one area A order of a
// merchant (its page's hash is "h-" and its id), until tb ends.
func pageWorld(tb testing.TB) (*httptest.Server, *sqlstore.Store, *rampway.Order) {
	tb.Helper()
	store, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "p.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: "Demo Store", Status: rampway.MerchantActive, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateMerchant(tb.Context(), m); err != nil {
		tb.Fatal(err)
	}
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://shop.example/done", Network: "devnet",
		Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, CryptoAmount: big.NewInt(10262800000000000), CryptoReceived: new(big.Int),
		PaymentValue: big.NewInt(1e16), NetworkFee: new(big.Int), ServiceFee: new(big.Int), FunctionArgs: []byte(`{}`), FunctionID: "scf_x",
		DepositAddress: common.HexToAddress("0x1111111111111111111111111111111111111111"), ExpiresAt: now.Add(30 * time.Minute), CreatedAt: now, UpdatedAt: now}
	if err := store.CreateOrder(tb.Context(), o); err != nil {
		tb.Fatal(err)
	}
	h := checkoutpage.New(checkoutpage.Config{}, checkoutpage.Deps{Store: store, Checkout: hashes{},
		Chains: nets{&rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1}}, Log: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv, store, o
}
