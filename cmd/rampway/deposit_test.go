package main

import (
	"encoding/json"
	"math/big"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// Area C's journeys against `rampway dev`: the user pays fiat, the merchant's deposit address
// receives exactly crypto_amount (checked on chain to the base unit), and the events go to the
// order's merchant_webhook_url, which overrides the merchant's.

// devDepositAddress reads the demo merchant's deposit address for symbol from dev.json.
func devDepositAddress(t *testing.T, dir, symbol string) common.Address {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, devJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Merchant struct {
			DepositAddresses []struct{ Symbol, Network, Address string } `json:"deposit_addresses"`
		} `json:"merchant"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, a := range v.Merchant.DepositAddresses {
		if a.Symbol == symbol {
			return common.HexToAddress(a.Address)
		}
	}
	t.Fatalf("dev.json has no deposit address for %s: %s", symbol, data)
	return common.Address{}
}

// balanceOf is addr's balance of symbol (ETH, or the demo token) on the dev chain.
func (j *fiatJourney) balanceOf(t *testing.T, symbol string, addr common.Address) *big.Int {
	t.Helper()
	if symbol == "ETH" {
		b, err := j.c.BalanceAt(t.Context(), addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	token := common.HexToAddress(j.dj.Contracts.Token)
	out, err := j.c.CallContract(t.Context(), ethereum.CallMsg{To: &token, Data: rampway.ERC20Call(rampway.SelBalanceOf, addr, new(big.Int))[:36]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// depositOrder creates a C1 order of amount in currency into symbol, with method ("" for the
// page's choice), its events to hook.
func (j *fiatJourney) depositOrder(t *testing.T, currency, amount, symbol, method, hook string) map[string]any {
	t.Helper()
	body := map[string]any{"merchant_id": j.dj.Merchant.MerchantID, "order_fiat_symbol": currency, "order_fiat_amount": amount,
		"convert_to_crypto_symbol": symbol, "convert_to_crypto_network": j.dj.Chain.Network, "merchant_user_id": "user-1",
		"merchant_redirect_url": "http://127.0.0.1:3000/done", "merchant_txn_id": t.Name(), "merchant_webhook_url": hook}
	if symbol != "ETH" {
		body["convert_to_crypto_contractAddress"] = j.dj.Contracts.Token
	}
	if method != "" {
		body["fiat_payment_method"] = method
	}
	for k, v := range identity {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	code, o := post(t, j.dj.API.DepositBaseURL+"/merchant/sdk/on-ramp/order", j.dj.Merchant.APIKey, string(b))
	if code != 201 {
		t.Fatalf("C1: %d %v", code, o)
	}
	return o
}

func (j *fiatJourney) depositLookup(t *testing.T, id string) map[string]any { return j.lookup(t, id) }

func (j *fiatJourney) depositWait(t *testing.T, id, status string) map[string]any {
	t.Helper()
	return j.waitStatus(t, id, status, 30*time.Second)
}

var depositEvents = []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing, rampway.EventOnrampSuccess,
	rampway.EventDepositProcessing, rampway.EventDepositSuccess, rampway.EventSuccess}

// units parses a decimal amount of symbol into base units.
func baseUnits(t *testing.T, amount, symbol string) *big.Int {
	t.Helper()
	d := uint8(18)
	if symbol != "ETH" {
		d = 6
	}
	v, err := rampway.ParseUnits(amount, d)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A card into ETH, a SEPA transfer into the token told through the admin route, and an order
// without a method (the page's quote screen, then the card): each deposit address holds
// exactly crypto_amount more, and the events reach the overriding webhook URL.
func TestDepositJourneys(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	// The order's merchant_webhook_url overrides the merchant's: a receiver of its own.
	override := &receiver{secret: j.dj.Merchant.WebhookSecret, events: map[string][]string{}}
	srv := httptest.NewServer(override)
	t.Cleanup(srv.Close)
	hook := srv.URL + "/override"

	t.Run("card into ETH", func(t *testing.T) {
		to := devDepositAddress(t, j.dir, "ETH")
		before := j.balanceOf(t, "ETH", to)
		o := j.depositOrder(t, "EUR", "100.00", "ETH", rampway.MethodCard, hook)
		if o["crypto_amount"] == "" || o["convert_to_crypto_contractAddress"] != nil || o["order_fiat_amount"] != "100.00" {
			t.Fatalf("C1 answer %v", o)
		}
		id := o["order_id"].(string)
		j.card(t, o, j.dj.Fiat.TestCards.Success)
		v := j.depositWait(t, id, "SUCCESS")
		if v["deposit_address"] != to.Hex() || v["crypto_amount"] != o["crypto_amount"] || v["execution_tx_hash"] == nil {
			t.Fatalf("lookup %v", v)
		}
		if got, want := j.balanceOf(t, "ETH", to), new(big.Int).Add(before, baseUnits(t, o["crypto_amount"].(string), "ETH")); got.Cmp(want) != 0 {
			t.Fatalf("deposit address holds %s, want %s", got, want)
		}
		j.movement(t, id, "capture", "100.00")
		override.wantEvents(t, id, depositEvents)
	})

	t.Run("SEPA into the token", func(t *testing.T) {
		to := devDepositAddress(t, j.dir, "DUSD")
		before := j.balanceOf(t, "DUSD", to)
		o := j.depositOrder(t, "EUR", "50.00", "DUSD", rampway.MethodSEPABankTransfer, hook)
		id := o["order_id"].(string)
		ref := j.bankReference(t, o)
		j.bankTransfer(t, ref, "50.00", "EUR")
		j.depositWait(t, id, "SUCCESS")
		// The same transfer told twice, and a short one: refunded, no second delivery.
		j.bankTransfer(t, ref, "50.00", "EUR")
		j.bankTransfer(t, ref, "3.00", "EUR")
		j.movement(t, id, "refund", "50.00")
		j.movement(t, id, "refund", "3.00")
		if got, want := j.balanceOf(t, "DUSD", to), new(big.Int).Add(before, baseUnits(t, o["crypto_amount"].(string), "DUSD")); got.Cmp(want) != 0 {
			t.Fatalf("deposit address holds %s, want %s", got, want)
		}
		override.wantEvents(t, id, depositEvents)
	})

	t.Run("the method chosen on the page", func(t *testing.T) {
		to := devDepositAddress(t, j.dir, "ETH")
		before := j.balanceOf(t, "ETH", to)
		o := j.depositOrder(t, "GBP", "80.00", "ETH", "", hook)
		id := o["order_id"].(string)
		if _, ok := o["fiat_payment_method"]; ok {
			t.Fatalf("C1 without a method answers one: %v", o)
		}
		_, html := j.page(t, o["gateway_url"].(string))
		for _, m := range []string{rampway.MethodCard, rampway.MethodGBPBankTransfer, rampway.MethodOpenBanking} {
			if !strings.Contains(html, `name="method" value="`+m+`"`) {
				t.Fatalf("the quote screen does not offer %s:\n%s", m, html)
			}
		}
		if strings.Contains(html, `id="card-form"`) {
			t.Fatal("the card form before the method is chosen")
		}
		u, _ := url.Parse(o["gateway_url"].(string))
		_, html = j.submit(t, j.abs("/checkout/method"), url.Values{"order_id": {id}, "hash": {u.Query().Get("hash")}, "method": {rampway.MethodCard}})
		// The card form, whose post starts the payment: the choice started none.
		if !strings.Contains(html, `id="card-form"`) || strings.Contains(html, `id="start-form"`) {
			t.Fatalf("after the choice no card form:\n%s", html)
		}
		v := j.depositLookup(t, id)
		if v["fiat_payment_method"] != rampway.MethodCard || v["fiat_payment"] != nil {
			t.Fatalf("after the choice: %v", v)
		}
		j.card(t, o, j.dj.Fiat.TestCards.Success)
		v = j.depositWait(t, id, "SUCCESS")
		if got, want := j.balanceOf(t, "ETH", to), new(big.Int).Add(before, baseUnits(t, v["crypto_amount"].(string), "ETH")); got.Cmp(want) != 0 {
			t.Fatalf("deposit address holds %s, want %s", got, want)
		}
	})
}
