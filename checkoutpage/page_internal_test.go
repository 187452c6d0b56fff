package checkoutpage

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func TestPaymentURI(t *testing.T) {
	dep := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	token := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	native := &rampway.Order{DepositAddress: dep, CryptoAmount: big.NewInt(10262800000000000), Asset: rampway.Asset{Symbol: "ETH", Decimals: 18}}
	tok := &rampway.Order{DepositAddress: dep, CryptoAmount: big.NewInt(10_050_000), Asset: rampway.Asset{Symbol: "DUSD", Decimals: 6, Contract: token}}
	for _, tc := range []struct {
		o     *rampway.Order
		chain *big.Int
		units *big.Int
		want  template.URL
	}{
		{native, big.NewInt(1337), native.CryptoAmount, "ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8@1337?value=10262800000000000"},
		{tok, big.NewInt(1337), tok.CryptoAmount, "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@1337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=10050000"},
		{native, nil, native.CryptoAmount, "ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8?value=10262800000000000"},
		// What is still due after a partial payment.
		{native, big.NewInt(1), big.NewInt(5131400000000000), "ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8@1?value=5131400000000000"},
		{tok, big.NewInt(137), big.NewInt(25), "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@137/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25"},
	} {
		if got := paymentURI(tc.o, tc.chain, tc.units); got != tc.want {
			t.Errorf("paymentURI = %s, want %s", got, tc.want)
		}
	}
}

func TestReturnURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://shop.example/done":          "https://shop.example/done?order_id=ord_1&status=SUCCESS",
		"https://shop.example/done?cart=7":   "https://shop.example/done?cart=7&order_id=ord_1&status=SUCCESS",
		"https://shop.example/done?status=x": "https://shop.example/done?order_id=ord_1&status=SUCCESS", // ours wins
		"https://shop.example/done#fragment": "https://shop.example/done?order_id=ord_1&status=SUCCESS#fragment",
	} {
		if got := returnURL(raw, "ord_1", rampway.StatusSuccess); got != want {
			t.Errorf("returnURL(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestFunctionLabel(t *testing.T) {
	for sig, want := range map[string]string{"mint(address,uint256)": "mint", "mintWithToken(address,uint256)": "mint with token", "freeMint()": "free mint"} {
		if got := functionLabel(sig); got != want {
			t.Errorf("functionLabel(%s) = %q, want %q", sig, got, want)
		}
	}
}

func TestEveryStatusHasAText(t *testing.T) {
	for _, s := range rampway.OrderStatuses {
		if s == rampway.StatusOnrampProcessing || s == rampway.StatusOnrampSuccess {
			continue // fiat areas: their page comes with the fiat provider
		}
		if Messages["st_"+string(s)] == "" {
			t.Errorf("no text for %s", s)
		}
	}
}

// failingStore finds an order in DEPOSIT_PROCESSING but cannot read its transfers, as a
// database gone away mid-request; or, with orderErr, cannot read the order at all.
type failingStore struct {
	Store
	order    *rampway.Order
	orderErr error
}

func (s failingStore) Order(context.Context, string) (*rampway.Order, error) {
	return s.order, s.orderErr
}
func (s failingStore) OrderTransfers(context.Context, string) ([]*rampway.InboundTransfer, error) {
	return nil, errors.New("connection refused")
}

type anyHash struct{}

func (anyHash) CheckHash(string, string) bool { return true }

func (anyHash) Cancel(context.Context, string) (*rampway.Order, error) {
	return nil, rampway.Errorf(rampway.EUNAVAILABLE, "no cancel in this test")
}

type oneNetwork struct{}

func (oneNetwork) Network(string) (*rampway.Network, bool) {
	return &rampway.Network{Name: "devnet", Confirmations: 2}, true
}
func (oneNetwork) Head(context.Context, string) (uint64, error) { return 10, nil }

// What the store cannot answer now is 503 with Retry-After: an HTML page on the page itself
// (a person reads it; it says the payment is safe), the API's error envelope on the JSON status
// (the page's script reads it); never the details.
func TestUnavailable(t *testing.T) {
	id := rampway.NewID(rampway.PrefixOrder, time.Now())
	o := &rampway.Order{ID: id, Area: rampway.AreaMint, Status: rampway.StatusDepositProcessing, Network: "devnet",
		CryptoAmount: big.NewInt(10), CryptoReceived: big.NewInt(0), DepositAddress: common.Address{1}, MerchantRedirectURL: "https://shop.example/back"}
	transfersDown := New(Config{}, Deps{Store: failingStore{order: o}, Checkout: anyHash{}, Chains: oneNetwork{}, Log: slog.New(slog.DiscardHandler)})
	orderDown := New(Config{}, Deps{Store: failingStore{orderErr: errors.New("connection refused")}, Checkout: anyHash{}, Chains: oneNetwork{}, Log: slog.New(slog.DiscardHandler)})
	for _, tc := range []struct {
		h                       *Handler
		path, contentType, want string
	}{
		{transfersDown, "/checkout?order_id=" + id + "&hash=h", "text/html; charset=utf-8", Messages["unavailable"]},
		{transfersDown, "/checkout/status?order_id=" + id + "&hash=h", "application/json; charset=utf-8", `"statusCode":503`},
		// An order that cannot be read is not "not found": the person paying is not told their
		// valid link is not.
		{orderDown, "/checkout?order_id=" + id + "&hash=h", "text/html; charset=utf-8", Messages["unavailable"]},
		{orderDown, "/checkout/status?order_id=" + id + "&hash=h", "application/json; charset=utf-8", `"statusCode":503`},
		{orderDown, "/checkout/events?order_id=" + id + "&hash=h", "application/json; charset=utf-8", `"statusCode":503`},
	} {
		rec := httptest.NewRecorder()
		tc.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		body := rec.Body.String()
		if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || rec.Header().Get("Content-Type") != tc.contentType ||
			!strings.Contains(body, tc.want) || strings.Contains(body, "connection refused") {
			t.Fatalf("%s: %d %v\n%s", tc.path, rec.Code, rec.Header(), body)
		}
		if strings.HasPrefix(tc.contentType, "application/json") {
			var env rampway.ErrorEnvelope
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Status || !strings.HasPrefix(env.Path, "/checkout/") || env.Timestamp == "" {
				t.Fatalf("envelope %+v, %v", env, err)
			}
		}
	}
}

// Every payment method rampway knows has its own icon, served as SVG; another gets the
// generic one.
func TestMethodIcons(t *testing.T) {
	h := New(Config{}, Deps{Checkout: anyHash{}, Chains: oneNetwork{}, Log: slog.New(slog.DiscardHandler)})
	for _, id := range []string{"credit_debit_card", "apple_pay", "google_pay", "sepa_bank_transfer", "gbp_bank_transfer",
		"pm_open_banking", "pm_cash_app", "pm_jwire", "pm_unknown"} {
		path := MethodIcon(id)
		want := "/checkout/assets/methods/" + id + ".svg"
		if id == "pm_unknown" {
			want = "/checkout/assets/methods/default.svg"
		}
		if path != want {
			t.Fatalf("MethodIcon(%s) = %s, want %s", id, path, want)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != 200 || w.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(w.Body.String(), "<svg ") {
			t.Fatalf("%s: %d %q %.40s", path, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
}
