package checkoutpage_test

import (
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/sqlite"
)

// user.widget.close is recorded once per visit, over HTTP against the SQLite store, whatever
// the browser sends: the beacons of one visit (a reload sends one, leaving the next, a
// back-forward return another, some at once) record one event; another visit (another tab, a
// later day) records its own; a beacon without a visit, with a made-up one, or with a wrong
// hash records nothing. user.widget.open stays once per order however often the page opens.
func TestWidgetCloseOncePerVisit(t *testing.T) {
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: "Demo Store", Status: rampway.MerchantActive, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateMerchant(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://shop.example/done", Network: "devnet",
		Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, CryptoAmount: big.NewInt(10262800000000000), CryptoReceived: new(big.Int),
		PaymentValue: big.NewInt(1e16), NetworkFee: new(big.Int), ServiceFee: new(big.Int), FunctionArgs: []byte(`{}`), FunctionID: "scf_x",
		DepositAddress: common.HexToAddress("0x1111111111111111111111111111111111111111"), ExpiresAt: now.Add(30 * time.Minute), CreatedAt: now, UpdatedAt: now}
	if err := store.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	h := checkoutpage.New(checkoutpage.Config{}, checkoutpage.Deps{Store: store, Checkout: hashes{},
		Chains: nets{&rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1}}, Log: slog.New(slog.DiscardHandler)})
	srv := httptest.NewServer(h)
	defer srv.Close()
	hash := "h-" + o.ID
	open := func() {
		t.Helper()
		res, err := http.Get(srv.URL + "/checkout?order_id=" + o.ID + "&hash=" + hash)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("page: %v %v", err, res)
		}
		_, _ = io.Copy(io.Discard, res.Body) // to its end: the open is recorded before it
		res.Body.Close()
	}
	// beacon posts what navigator.sendBeacon posts (a URLSearchParams body).
	beacon := func(form url.Values) {
		t.Helper()
		res, err := http.Post(srv.URL+"/checkout/close", "application/x-www-form-urlencoded;charset=UTF-8", strings.NewReader(form.Encode()))
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Fatalf("close: %v %v", err, res)
		}
		res.Body.Close()
	}
	visit := func(v string) url.Values { return url.Values{"order_id": {o.ID}, "hash": {hash}, "visit": {v}} }
	events := func() (open, closed int) {
		t.Helper()
		evs, err := store.OrderEvents(t.Context(), o.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			switch e.Name {
			case rampway.EventWidgetOpen:
				open++
			case rampway.EventWidgetClose:
				closed++
			}
		}
		return open, closed
	}

	// A visit: the page opens, the user reloads twice (each reload's beacon), goes to the
	// provider and comes back, then leaves.
	const first = "0123456789abcdef0123456789abcdef"
	for range 3 {
		open()
		beacon(visit(first))
	}
	open()
	var wg sync.WaitGroup
	for range 4 { // the last beacons at once
		wg.Go(func() { beacon(visit(first)) })
	}
	wg.Wait()
	if o, c := events(); o != 1 || c != 1 {
		t.Fatalf("after one visit: %d open, %d close; want 1 and 1", o, c)
	}
	// Beacons that name no visit of the page's, or another order's hash: nothing.
	for _, f := range []url.Values{{"order_id": {o.ID}, "hash": {hash}}, visit(""), visit("not a visit!"), visit(strings.Repeat("a", rampway.MaxVisitLength+1)),
		{"order_id": {o.ID}, "hash": {"h-ord_other"}, "visit": {"fedcba9876543210fedcba9876543210"}}} {
		beacon(f)
	}
	if o, c := events(); o != 1 || c != 1 {
		t.Fatalf("after beacons without a valid visit: %d open, %d close", o, c)
	}
	// Another visit (another tab, or the user back a day later): one more close, no more open.
	open()
	beacon(visit("fedcba9876543210fedcba9876543210"))
	beacon(visit("fedcba9876543210fedcba9876543210"))
	if o, c := events(); o != 1 || c != 2 {
		t.Fatalf("after a second visit: %d open, %d close; want 1 and 2", o, c)
	}
	// The events go to the merchant in order, each once.
	evs, err := store.OrderEvents(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range evs {
		names = append(names, string(e.Name))
	}
	if want := []string{"order.created", "user.widget.open", "user.widget.close", "user.widget.close"}; !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
}
