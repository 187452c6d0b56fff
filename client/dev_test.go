package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/internal/devtest"
)

// The SDK end to end against a real `rampway dev` process, as a merchant's server uses it:
// the three areas' journeys (create, pay as the user would, look up until SUCCESS, receive and
// verify the webhooks), a create retried after its answer was lost that makes one order, the
// server's errors, and the list iterators over real pages. The tests that pay may import
// go-ethereum and rampway's packages; the client package itself stays standard library only.

// devJSON is what the tests read of `rampway dev`'s dev.json.
type devJSON struct {
	API        client.BaseURLs `json:"api"`
	AdminToken string          `json:"admin_token"`
	Merchant   struct {
		MerchantID       string `json:"merchant_id"`
		APIKey           string `json:"api_key"`
		WebhookSecret    string `json:"webhook_secret"`
		DepositAddresses []struct {
			Symbol  string `json:"symbol"`
			Network string `json:"network"`
			Address string `json:"address"`
		} `json:"deposit_addresses"`
	} `json:"merchant"`
	Chain struct {
		Network         string `json:"network"`
		ChainID         int64  `json:"chain_id"`
		RPCURL          string `json:"rpc_url"`
		PayerPrivateKey string `json:"payer_private_key"`
		PayerAddress    string `json:"payer_address"`
	} `json:"chain"`
	SmartContractFunctions []struct {
		ID            string                   `json:"id"`
		PayableSymbol string                   `json:"payable_symbol"`
		Example       client.ContractExecution `json:"example"`
	} `json:"smart_contract_functions"`
	Fiat struct {
		TestCards struct {
			Success string `json:"success"`
			Decline string `json:"decline"`
			ThreeDS string `json:"three_ds"`
		} `json:"test_cards"`
	} `json:"fiat"`
}

// startDev runs `rampway dev` on free ports with a fresh data directory, waits for its
// dev.json and stops it (Ctrl-C) when the test ends.
func startDev(t *testing.T) devJSON {
	t.Helper()
	bin := devtest.BuildRampway(t)
	dir := t.TempDir()
	out := &devtest.LockedBuffer{}
	cmd := exec.Command(bin, "dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				t.Logf("rampway dev: %v", err)
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("rampway dev did not stop within a minute of an interrupt")
		}
		if t.Failed() {
			t.Logf("rampway dev's output:\n%s", out)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("rampway dev exited: %v\n%s", err, out)
		default:
		}
		if data, err := os.ReadFile(filepath.Join(dir, "dev.json")); err == nil {
			var dj devJSON
			if err := json.Unmarshal(data, &dj); err == nil {
				return dj
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dev.json after 60s\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hookReceiver is the merchant's webhook endpoint: client.WebhookHandler with a Verifier of
// the merchant's secret, which records each order's events in order, and below it a count of
// every delivery of each event (duplicates, acknowledged without processing, included).
type hookReceiver struct {
	url string

	mu         sync.Mutex
	events     map[string][]*client.Event // order_id -> events processed, in arrival order
	deliveries map[string]int             // eventId -> deliveries received
	refused    []string                   // deliveries the handler refused
}

func newHookReceiver(t *testing.T, secret string) *hookReceiver {
	r := &hookReceiver{events: map[string][]*client.Event{}, deliveries: map[string]int{}}
	v := &client.Verifier{Secrets: []string{secret}, Seen: client.NewMemoryDeduper(time.Hour)}
	h := client.WebhookHandler(v, func(ctx context.Context, ev *client.Event) error {
		o, err := ev.Order()
		if err != nil {
			return err
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events[o.OrderID] = append(r.events[o.OrderID], ev)
		return nil
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ev struct {
			ID string `json:"eventId"`
		}
		_ = json.Unmarshal(body, &ev)
		req.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		r.mu.Lock()
		r.deliveries[ev.ID]++
		if rec.Code != http.StatusOK {
			r.refused = append(r.refused, fmt.Sprintf("%d %s", rec.Code, rec.Body))
		}
		r.mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/hooks"
	return r
}

// wantEvents waits until the order's events are want, in that order, and returns them.
func (r *hookReceiver) wantEvents(t *testing.T, orderID string, want []string) []*client.Event {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.mu.Lock()
		evs, refused := slices.Clone(r.events[orderID]), slices.Clone(r.refused)
		r.mu.Unlock()
		if len(refused) > 0 {
			t.Fatalf("deliveries refused by the receiver: %v", refused)
		}
		var got []string
		for _, ev := range evs {
			got = append(got, ev.Name)
		}
		if slices.Equal(got, want) {
			return evs
		}
		if len(got) > len(want) || time.Now().After(deadline) {
			t.Fatalf("events of %s: %v, want %v", orderID, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitDeliveries waits until eventID was delivered n times.
func (r *hookReceiver) waitDeliveries(t *testing.T, eventID string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r.mu.Lock()
		got := r.deliveries[eventID]
		r.mu.Unlock()
		if got == n {
			return
		}
		if got > n || time.Now().After(deadline) {
			t.Fatalf("event %s delivered %d times, want %d", eventID, got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitStatus looks the order up with get until it is status, failing on another final one.
func waitStatus(t *testing.T, get func(context.Context, string, ...client.CallOption) (*client.Order, error), id string, status client.OrderStatus) *client.Order {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		o, err := get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status == status {
			return o
		}
		switch o.Status {
		case client.StatusSuccess, client.StatusFailed, client.StatusExpired, client.StatusCancelled, client.StatusRefunded:
			t.Fatalf("order %s is %s (%s), want %s", id, o.Status, o.FailureReason, status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s still %s after 60s, want %s", id, o.Status, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// payCrypto sends amount (decimal, whole units of the native coin) from the dev payer to to.
func payCrypto(t *testing.T, dj devJSON, to, amount string) {
	t.Helper()
	c, err := ethclient.Dial(dj.Chain.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key, err := crypto.HexToECDSA(strings.TrimPrefix(dj.Chain.PayerPrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	value, err := rampway.ParseUnits(amount, 18)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.PendingNonceAt(t.Context(), crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	tx := devchaintest.SignTx(t, c, big.NewInt(dj.Chain.ChainID), key, nonce, common.HexToAddress(to), value, nil, 100_000)
	if err := c.SendTransaction(t.Context(), tx); err != nil {
		t.Fatalf("pay %s ETH to %s: %v", amount, to, err)
	}
}

// identity is every identity field a card payment needs: the page skips its identity step.
var identity = client.UserDetails{UserFirstName: "Ada", UserLastName: "Lovelace", UserEmailID: "ada@example.com",
	UserDOB: "1990-12-10", UserCountryCode: "DE", UserMobileNumber: "+4915112345678"}

// The events of each area's journey, paid at once.
var (
	mintEvents = []string{client.EventOrderCreated, client.EventOrderDepositProcessing, client.EventOrderDepositSuccess,
		client.EventOrderSmartContractProcessing, client.EventOrderSmartContractSuccess, client.EventOrderSuccess}
	fiatEvents = []string{client.EventOrderCreated, client.EventUserWidgetOpen, client.EventOrderOnrampProcessing, client.EventOrderOnrampSuccess,
		client.EventOrderSmartContractProcessing, client.EventOrderSmartContractSuccess, client.EventOrderSuccess}
	depositEvents = []string{client.EventOrderCreated, client.EventUserWidgetOpen, client.EventOrderOnrampProcessing, client.EventOrderOnrampSuccess,
		client.EventOrderDepositProcessing, client.EventOrderDepositSuccess, client.EventOrderSuccess}
)

// checkLog checks an order's webhook log against the events received: each delivered to the
// receiver, and the same events.
func checkLog(t *testing.T, log *client.DeliveryLog, hook string, evs []*client.Event) {
	t.Helper()
	if len(log.Data) != len(evs) || log.HasMore {
		t.Fatalf("webhook log of %d deliveries (has_more %v), %d events received", len(log.Data), log.HasMore, len(evs))
	}
	received := map[string]string{}
	for _, ev := range evs {
		received[ev.ID] = ev.Name
	}
	for _, d := range log.Data {
		if received[d.EventID] != d.EventName || d.URL != hook {
			t.Errorf("delivery %s %s to %s: not received there", d.EventID, d.EventName, d.URL)
		}
		if d.Status != "delivered" && d.Status != "pending" { // the last may be logged a moment after it was received
			t.Errorf("delivery %s is %s", d.EventID, d.Status)
		}
	}
}

func TestDevJourneys(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs rampway dev")
	}
	dj := startDev(t)
	c := client.New(dj.Merchant.APIKey, client.WithBaseURLs(dj.API), client.WithMerchantID(dj.Merchant.MerchantID))
	hooks := newHookReceiver(t, dj.Merchant.WebhookSecret)
	example := dj.SmartContractFunctions[0].Example // pays 0.01 ETH to a mint
	run := strings.ReplaceAll(time.Now().Format("150405.000"), ".", "")

	t.Run("A: paid in crypto", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		q, err := c.CreateCryptoQuote(ctx, &client.CryptoQuoteRequest{CryptoSymbol: "ETH", CryptoNetwork: dj.Chain.Network, ContractExecution: example})
		if err != nil {
			t.Fatal(err)
		}
		if !q.Allowed || q.CryptoAmount == "" || q.TotalValue != example.Payment.TotalValue || q.GasLimit == 0 {
			t.Fatalf("quote %+v", q)
		}
		o, err := c.CreateMintOrder(ctx, &client.MintOrderRequest{CryptoSymbol: "ETH", CryptoNetwork: dj.Chain.Network, ContractExecution: example,
			MerchantUserID: "user-1", MerchantTxnID: "a-" + run, MerchantRedirectURL: "http://127.0.0.1:3000/done", MerchantWebhookURL: hooks.url})
		if err != nil {
			t.Fatal(err)
		}
		if o.CryptoSymbol != "ETH" || o.CryptoContractAddress != "" || o.CryptoAmount == "" || !strings.Contains(o.GatewayURL, o.OrderID) || o.Info != "" {
			t.Fatalf("A1 answer %+v", o)
		}
		v, err := c.GetMintOrder(ctx, o.OrderID)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != client.StatusCreated || v.DepositAddress == "" || v.CryptoAmount != o.CryptoAmount || v.MerchantTxnID != "a-"+run ||
			v.MerchantWebhookURL != hooks.url || v.SmartContractFunctionID != example.SmartContractFunctionID {
			t.Fatalf("lookup %+v", v)
		}
		payCrypto(t, dj, v.DepositAddress, o.CryptoAmount)
		done := waitStatus(t, c.GetMintOrder, o.OrderID, client.StatusSuccess)
		if done.ExecutionTxHash == "" || done.CryptoAmountReceived != o.CryptoAmount || len(done.Deposits) != 1 ||
			done.Deposits[0].FromAddress != dj.Chain.PayerAddress || len(done.Refunds) != 0 {
			t.Fatalf("paid order %+v", done)
		}
		evs := hooks.wantEvents(t, o.OrderID, mintEvents)
		for _, ev := range evs {
			oc, _ := ev.Order()
			if oc.MerchantTxnID != "a-"+run {
				t.Fatalf("event %s carries merchant_txn_id %q", ev.Name, oc.MerchantTxnID)
			}
		}
		log, err := c.ListMintOrderWebhooks(ctx, o.OrderID)
		if err != nil {
			t.Fatal(err)
		}
		checkLog(t, log, hooks.url, evs)

		// Resent, the last event arrives again: the receiver acknowledges it as a duplicate.
		last := evs[len(evs)-1]
		d, err := c.ResendMintOrderWebhook(ctx, o.OrderID, last.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.EventID != last.ID || d.Status != "pending" || d.URL != hooks.url {
			t.Fatalf("resend %+v", d)
		}
		hooks.waitDeliveries(t, last.ID, 2)

		// The order is in the list of SUCCESS orders.
		found := false
		for l, err := range c.ListMintOrders(ctx, &client.ListOrdersParams{Status: client.StatusSuccess}) {
			if err != nil {
				t.Fatal(err)
			}
			found = found || l.OrderID == o.OrderID
		}
		if !found {
			t.Fatalf("order %s not in the SUCCESS list", o.OrderID)
		}

		// The merchant refunds a part, paid back on chain to the payer less its network fee.
		rf, err := c.CreateMintOrderRefund(ctx, o.OrderID, &client.RefundRequest{Amount: "0.001", Reason: "returned"})
		if err != nil {
			t.Fatal(err)
		}
		if rf.Origin != "merchant" || rf.Amount != "0.001" || rf.Currency != "ETH" || rf.ToAddress != dj.Chain.PayerAddress {
			t.Fatalf("refund %+v", rf)
		}
		paidBack := waitRefund(t, func() (*client.RefundList, error) { return c.ListMintOrderRefunds(ctx, o.OrderID) }, rf.RefundID)
		if paidBack.TxHash == "" || paidBack.Fee == "" || paidBack.AmountSent == "" {
			t.Fatalf("paid back %+v", paidBack)
		}
	})

	t.Run("B: paid by card", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		cur, err := c.ListFiatCurrencies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(cur.Currencies, func(f client.FiatCurrency) bool {
			return f.Symbol == "EUR" && slices.ContainsFunc(f.PaymentOptions, func(p client.PaymentOption) bool { return p.ID == client.MethodCard && p.MinAmount > 0 })
		}) {
			t.Fatalf("B2 has no EUR card: %+v", cur)
		}
		q, err := c.CreateFiatQuote(ctx, &client.FiatQuoteRequest{OrderFiatSymbol: "EUR", FiatPaymentMethod: client.MethodCard, ContractExecution: example})
		if err != nil {
			t.Fatal(err)
		}
		if !q.Allowed || q.FiatAmount == "" || q.FiatSymbol != "EUR" || q.PayableCryptoSymbol != "ETH" || q.ExpiresAt.IsZero() {
			t.Fatalf("quote %+v", q)
		}
		o, err := c.CreateFiatOrder(ctx, &client.FiatOrderRequest{OrderFiatSymbol: "EUR", FiatPaymentMethod: client.MethodCard, ContractExecution: example,
			MerchantUserID: "user-1", MerchantTxnID: "b-" + run, MerchantRedirectURL: "http://127.0.0.1:3000/done", MerchantWebhookURL: hooks.url,
			UserDetails: identity})
		if err != nil {
			t.Fatal(err)
		}
		if o.OrderFiatSymbol != "EUR" || o.FiatPaymentMethod != client.MethodCard || o.OrderFiatAmount != q.FiatAmount {
			t.Fatalf("B1 answer %+v, quote %s", o, q.FiatAmount)
		}
		devtest.PayCard(t, o.GatewayURL, dj.Fiat.TestCards.Success)
		done := waitStatus(t, c.GetFiatOrder, o.OrderID, client.StatusSuccess)
		if done.ExecutionTxHash == "" || done.OrderFiatAmount != o.OrderFiatAmount || done.FiatPayment == nil ||
			done.FiatPayment.CardLast4 != dj.Fiat.TestCards.Success[12:] {
			t.Fatalf("paid order %+v, payment %+v", done, done.FiatPayment)
		}
		evs := hooks.wantEvents(t, o.OrderID, fiatEvents)
		log, err := c.ListFiatOrderWebhooks(ctx, o.OrderID)
		if err != nil {
			t.Fatal(err)
		}
		checkLog(t, log, hooks.url, evs)
		if _, err := c.ResendFiatOrderWebhook(ctx, o.OrderID, evs[0].ID); err != nil {
			t.Fatal(err)
		}
		hooks.waitDeliveries(t, evs[0].ID, 2)

		// The merchant refunds all of it through the provider: REFUNDED.
		rf, err := c.CreateFiatOrderRefund(ctx, o.OrderID, &client.RefundRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if rf.Amount != o.OrderFiatAmount || rf.Currency != "EUR" {
			t.Fatalf("refund %+v", rf)
		}
		if r := waitRefund(t, func() (*client.RefundList, error) { return c.ListFiatOrderRefunds(ctx, o.OrderID) }, rf.RefundID); r.ProviderReference == "" {
			t.Fatalf("refunded %+v", r)
		}
		if v := waitStatus(t, c.GetFiatOrder, o.OrderID, client.StatusRefunded); v.RefundedAmount != o.OrderFiatAmount {
			t.Fatalf("refunded order %+v", v)
		}
	})

	t.Run("C: paid by card into ETH", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		cur, err := c.ListDepositFiatCurrencies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(cur.Currencies) == 0 {
			t.Fatal("C2 lists no currency")
		}
		var to string
		for _, a := range dj.Merchant.DepositAddresses {
			if a.Symbol == "ETH" && a.Network == dj.Chain.Network {
				to = a.Address
			}
		}
		o, err := c.CreateDepositOrder(ctx, &client.DepositOrderRequest{OrderFiatSymbol: "EUR", OrderFiatAmount: "100",
			ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: dj.Chain.Network, FiatPaymentMethod: client.MethodCard,
			MerchantUserID: "user-1", MerchantTxnID: "c-" + run, MerchantRedirectURL: "http://127.0.0.1:3000/done", MerchantWebhookURL: hooks.url,
			UserDetails: identity})
		if err != nil {
			t.Fatal(err)
		}
		if o.OrderFiatAmount != "100.00" || o.CryptoAmount == "" || o.ConvertToCryptoContractAddress != "" || o.FiatPaymentMethod != client.MethodCard {
			t.Fatalf("C1 answer %+v", o)
		}
		devtest.PayCard(t, o.GatewayURL, dj.Fiat.TestCards.Success)
		done := waitStatus(t, c.GetDepositOrder, o.OrderID, client.StatusSuccess)
		if done.DepositAddress != to || done.CryptoAmount != o.CryptoAmount || done.ExecutionTxHash == "" {
			t.Fatalf("paid order %+v (deposit address %s)", done, to)
		}
		evs := hooks.wantEvents(t, o.OrderID, depositEvents)
		log, err := c.ListDepositOrderWebhooks(ctx, o.OrderID)
		if err != nil {
			t.Fatal(err)
		}
		checkLog(t, log, hooks.url, evs)
		if _, err := c.ResendDepositOrderWebhook(ctx, o.OrderID, evs[2].ID); err != nil {
			t.Fatal(err)
		}
		hooks.waitDeliveries(t, evs[2].ID, 2)
	})

	// A create whose first answer is lost after the server made the order: the retry sends the
	// same Idempotency-Key and gets that order's answer replayed; one order exists.
	t.Run("retried create makes one order", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		dropped := map[string]bool{} // Idempotency-Key -> first answer dropped
		hc := &http.Client{Timeout: 20 * time.Second, Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			res, err := http.DefaultTransport.RoundTrip(r)
			key := r.Header.Get("Idempotency-Key")
			mu.Lock()
			defer mu.Unlock()
			if err == nil && key != "" && !dropped[key] {
				dropped[key] = true
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				return nil, fmt.Errorf("connection reset after a %d answer", res.StatusCode)
			}
			return res, err
		})}
		lossy := client.New(dj.Merchant.APIKey, client.WithBaseURLs(dj.API), client.WithMerchantID(dj.Merchant.MerchantID), client.WithHTTPClient(hc),
			client.WithRetryPolicy(client.RetryPolicy{BaseDelay: 50 * time.Millisecond}))
		ctx := t.Context()

		var info client.ResponseInfo
		txn := "retry-a-" + run
		o, err := lossy.CreateMintOrder(ctx, &client.MintOrderRequest{CryptoSymbol: "ETH", CryptoNetwork: dj.Chain.Network, ContractExecution: example,
			MerchantUserID: "user-1", MerchantTxnID: txn, MerchantRedirectURL: "http://127.0.0.1:3000/done"}, client.WithResponseInfo(&info))
		if err != nil {
			t.Fatal(err)
		}
		if info.Attempts != 2 || !info.Replayed || info.StatusCode != http.StatusCreated {
			t.Fatalf("info %+v", info)
		}
		var same []string
		for l, err := range c.ListMintOrders(ctx, &client.ListOrdersParams{Limit: 100}) {
			if err != nil {
				t.Fatal(err)
			}
			if l.MerchantTxnID == txn {
				same = append(same, l.OrderID)
			}
		}
		if !slices.Equal(same, []string{o.OrderID}) {
			t.Fatalf("orders of %s: %v, want only %s", txn, same, o.OrderID)
		}

		// The same for area C, with the caller's own key.
		txn = "retry-c-" + run
		d, err := lossy.CreateDepositOrder(ctx, &client.DepositOrderRequest{OrderFiatSymbol: "GBP", OrderFiatAmount: "50.00",
			ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: dj.Chain.Network, MerchantUserID: "user-1", MerchantTxnID: txn,
			MerchantRedirectURL: "http://127.0.0.1:3000/done"}, client.WithIdempotencyKey("dep-"+run), client.WithResponseInfo(&info))
		if err != nil {
			t.Fatal(err)
		}
		if info.Attempts != 2 || !info.Replayed || info.IdempotencyKey != "dep-"+run {
			t.Fatalf("info %+v", info)
		}
		same = nil
		for l, err := range c.ListDepositOrders(ctx, &client.ListOrdersParams{Status: client.StatusCreated}) {
			if err != nil {
				t.Fatal(err)
			}
			if l.MerchantTxnID == txn {
				same = append(same, l.OrderID)
			}
		}
		if !slices.Equal(same, []string{d.OrderID}) {
			t.Fatalf("orders of %s: %v, want only %s", txn, same, d.OrderID)
		}
	})

	t.Run("errors", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		var info client.ResponseInfo
		check := func(name string, err error, status, code int, message string) {
			t.Helper()
			e, ok := errors.AsType[*client.Error](err)
			if !ok || e.StatusCode != status || e.Code != code || !strings.Contains(e.Message, message) || e.Retryable() ||
				e.Attempts != 1 || e.RequestID == "" || e.Timestamp.IsZero() || e.Path == "" {
				t.Errorf("%s: %#v, want %d (%d) %q, not retried", name, err, status, code, message)
			}
		}
		bad := client.New("rw_test_wrong", client.WithBaseURLs(dj.API), client.WithMerchantID(dj.Merchant.MerchantID))
		_, err := bad.GetMintOrder(ctx, "ord_06h12sktf7t9fn4apnn9raevh8")
		check("wrong key", err, 401, 401, "Unauthorized")

		_, err = c.GetFiatOrder(ctx, "ord_06h12sktf7t9fn4apnn9raevh8")
		check("unknown order", err, 404, 404, "not found")

		ex := example
		ex.FunctionArgs = map[string]any{"to": dj.Chain.PayerAddress, "quantity": "many"}
		_, err = c.CreateFiatOrder(ctx, &client.FiatOrderRequest{OrderFiatSymbol: "EUR", FiatPaymentMethod: client.MethodCard, ContractExecution: ex,
			MerchantUserID: "user-1", MerchantRedirectURL: "http://127.0.0.1:3000/done"})
		check("bad function argument", err, 400, 403, "Function arguments are not valid")

		_, err = c.CreateDepositOrder(ctx, &client.DepositOrderRequest{OrderFiatSymbol: "EUR", OrderFiatAmount: "5.00", ConvertToCryptoSymbol: "ETH",
			ConvertToCryptoNetwork: dj.Chain.Network, FiatPaymentMethod: client.MethodCard, MerchantUserID: "user-1", MerchantRedirectURL: "http://127.0.0.1:3000/done"})
		check("below the minimum", err, 400, 400, "20")

		_, err = c.CreateMintOrder(ctx, &client.MintOrderRequest{MerchantID: "mch_someone_else", CryptoSymbol: "ETH", CryptoNetwork: dj.Chain.Network,
			ContractExecution: example, MerchantUserID: "user-1", MerchantRedirectURL: "http://127.0.0.1:3000/done"})
		check("another merchant's id", err, 401, 401, "Unauthorized")

		// One key, another body: 422, not retried.
		req := &client.MintOrderRequest{CryptoSymbol: "ETH", CryptoNetwork: dj.Chain.Network, ContractExecution: example,
			MerchantUserID: "user-1", MerchantRedirectURL: "http://127.0.0.1:3000/done"}
		if _, err := c.CreateMintOrder(ctx, req, client.WithIdempotencyKey("reused-"+run)); err != nil {
			t.Fatal(err)
		}
		req.MerchantUserID = "user-2"
		_, err = c.CreateMintOrder(ctx, req, client.WithIdempotencyKey("reused-"+run), client.WithResponseInfo(&info))
		check("a key reused for another body", err, 422, 422, "different request")

		_, err = c.ListFiatOrdersPage(ctx, &client.ListOrdersParams{StartingAfter: "ord_06h12sktf7t9fn4apnn9raevh8"})
		check("a foreign cursor", err, 400, 400, "starting_after")
	})

	// Not parallel: it runs before the others start, so that its orders are made one after
	// the other.
	t.Run("pages", func(t *testing.T) {
		ctx := t.Context()
		txn := "page-" + run + "-"
		var made []string
		for i := range 5 {
			o, err := c.CreateMintOrder(ctx, &client.MintOrderRequest{CryptoSymbol: "ETH", CryptoNetwork: dj.Chain.Network, ContractExecution: example,
				MerchantUserID: "user-1", MerchantTxnID: fmt.Sprint(txn, i), MerchantRedirectURL: "http://127.0.0.1:3000/done"})
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, o.OrderID)
		}
		slices.Reverse(made) // newest first
		var got []string
		for o, err := range c.ListMintOrders(ctx, &client.ListOrdersParams{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(o.MerchantTxnID, txn) {
				got = append(got, o.OrderID)
			}
		}
		if !slices.Equal(got, made) {
			t.Fatalf("orders listed %v, made %v", got, made)
		}
		// One page at a time, by hand.
		p, err := c.ListMintOrdersPage(ctx, &client.ListOrdersParams{Limit: 2, StartingAfter: made[0]})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Data) != 2 || p.Data[0].OrderID != made[1] || !p.HasMore {
			t.Fatalf("the page after %s: %+v", made[0], p)
		}
	})
}

// waitRefund waits until refund id in the list is done, and returns it.
func waitRefund(t *testing.T, list func() (*client.RefundList, error), id string) client.Refund {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		l, err := list()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.Data {
			if r.RefundID == id && r.Status == "done" {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("refund %s not done: %+v", id, l)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
