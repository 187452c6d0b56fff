package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/internal/devtest"
)

// Area B's journeys against `rampway dev`, as a merchant's server (B1, lookups, webhooks), a
// paying user's browser without scripts (the checkout page's forms, its start step first, the sandbox provider's
// pages, redirects followed) and the operator (the sandbox's bank transfers, through the
// admin API) see them. The NFT lands with the recipient of function_args, or nothing is minted.

// fiatJourney is a journey of fiat-paid orders.
type fiatJourney struct {
	*journey
	browser *http.Client
	dir     string // the dev data directory
}

func newFiatJourney(t *testing.T) *fiatJourney {
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	return &fiatJourney{journey: newJourney(t, dj), browser: &http.Client{Timeout: 20 * time.Second}, dir: dir}
}

// identity is a complete set of the identity step's fields: the page skips that step.
var identity = map[string]any{"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com",
	"user_dob": "1990-12-10", "user_countryCode": "DE", "user_mobileNumber": "+4915112345678"}

// order creates a B1 order of the mint example paid in currency by method; user adds or
// replaces user fields (nil values drop one).
func (j *fiatJourney) order(t *testing.T, currency, method string, user map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"merchant_id": j.dj.Merchant.MerchantID, "order_fiat_symbol": currency, "fiat_payment_method": method,
		"contractExecution": j.dj.SmartContractFunctions[0].Example, "merchant_user_id": "user-1",
		"merchant_redirect_url": "http://127.0.0.1:3000/done", "merchant_txn_id": t.Name(), "merchant_webhook_url": j.hook}
	for k, v := range identity {
		body[k] = v
	}
	for k, v := range user {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	b, _ := json.Marshal(body)
	code, o := post(t, j.dj.API.NFTRampBaseURL+"/merchant/hosted/nftCheckout/order", j.dj.Merchant.APIKey, string(b))
	if code != 201 {
		t.Fatalf("B1: %d %v", code, o)
	}
	return o
}

// lookup is the B or C order as its merchant sees it (its area's lookup).
func (j *fiatJourney) lookup(t *testing.T, id string) map[string]any {
	t.Helper()
	for _, u := range []string{j.dj.API.NFTRampBaseURL + "/merchant/hosted/nftCheckout/order/", j.dj.API.DepositBaseURL + "/merchant/sdk/on-ramp/order/"} {
		req, _ := http.NewRequest(http.MethodGet, u+id, nil)
		req.Header.Set("X-API-KEY", j.dj.Merchant.APIKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		err = json.NewDecoder(res.Body).Decode(&v)
		res.Body.Close()
		if res.StatusCode == 404 {
			continue // the other area's
		}
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("lookup %s: %d %v", id, res.StatusCode, err)
		}
		return v
	}
	t.Fatalf("lookup %s: not found", id)
	return nil
}

// waitStatus polls the order until it is status.
func (j *fiatJourney) waitStatus(t *testing.T, id, status string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		v := j.lookup(t, id)
		if v["status"] == status {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s is %v after %s, want %s (fiat_payment %v)", id, v["status"], limit, status, v["fiat_payment"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// page GETs a URL as the user's browser and returns the final URL and the HTML.
func (j *fiatJourney) page(t *testing.T, u string) (string, string) {
	t.Helper()
	res, err := j.browser.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return res.Request.URL.String(), string(b)
}

// submit POSTs a form as the user's browser (redirects followed) and returns the final URL and HTML.
func (j *fiatJourney) submit(t *testing.T, action string, form url.Values) (string, string) {
	t.Helper()
	res, err := j.browser.PostForm(action, form)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("POST %s: %d %s", action, res.StatusCode, b)
	}
	return res.Request.URL.String(), string(b)
}

var (
	formAction = regexp.MustCompile(`<form method="post" action="([^"]+)" id="card-form"`)
	payLink    = regexp.MustCompile(`id="pay-link" href="([^"]+)"`)
	reference  = regexp.MustCompile(`id="bank-reference">([^<]+)<`)
)

func match(t *testing.T, re *regexp.Regexp, html string) string {
	t.Helper()
	m := re.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no %s in the page:\n%s", re, html)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// abs makes a page's link absolute.
func (j *fiatJourney) abs(u string) string {
	if strings.HasPrefix(u, "/") {
		base, _ := url.Parse(j.dj.API.NFTRampBaseURL)
		return base.Scheme + "://" + base.Host + u
	}
	return u
}

// card pays the order's card form with number and returns the page the user lands on.
func (j *fiatJourney) card(t *testing.T, o map[string]any, number string) string {
	t.Helper()
	_, html := j.cardAt(t, o, number)
	return html
}

// paymentPage opens the order's page and, at its start step, starts the payment (a GET starts
// nothing): the URL and HTML of the page that shows the payment's step.
func (j *fiatJourney) paymentPage(t *testing.T, o map[string]any) (string, string) {
	t.Helper()
	return devtest.PaymentPage(t, j.browser, o["gateway_url"].(string))
}

// cardAt is card, with the URL of the page the user lands on.
func (j *fiatJourney) cardAt(t *testing.T, o map[string]any, number string) (string, string) {
	t.Helper()
	_, html := j.paymentPage(t, o)
	action := j.abs(match(t, formAction, html))
	return j.submit(t, action, url.Values{"card_number": {number}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada Lovelace"}})
}

// nfts is how many demo NFTs the mint example's recipient holds.
func (j *fiatJourney) nfts(t *testing.T) *big.Int {
	t.Helper()
	to := common.HexToAddress(j.dj.SmartContractFunctions[0].Example.FunctionArgs["to"].(string))
	data := append(crypto.Keccak256([]byte("balanceOf(address)"))[:4], common.LeftPadBytes(to.Bytes(), 32)...)
	nft := common.HexToAddress(j.dj.Contracts.NFT)
	out, err := j.c.CallContract(t.Context(), ethereum.CallMsg{To: &nft, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// movement finds the order's fiat movement of kind, waiting until it is done.
func (j *fiatJourney) movement(t *testing.T, id, kind, amount string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		v := j.lookup(t, id)
		ms, _ := v["fiat_movements"].([]any)
		for _, m := range ms {
			m := m.(map[string]any)
			if m["kind"] == kind && m["amount"] == amount && m["status"] == string(rampway.ActionDone) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s: no done %s of %s in %v", id, kind, amount, ms)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// captured waits until the order's capture of amount is done and the provider's notification
// of it has made the payment succeeded (the two arrive separately: the capture's answer first,
// then the provider's event), and returns the lookup's fiat_payment.
func (j *fiatJourney) captured(t *testing.T, id, amount string) map[string]any {
	t.Helper()
	j.movement(t, id, "capture", amount)
	deadline := time.Now().Add(time.Minute)
	for {
		fp := j.lookup(t, id)["fiat_payment"].(map[string]any)
		if fp["status"] == string(rampway.FiatSucceeded) {
			return fp
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s: fiat_payment still %v after its capture", id, fp)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var mintEvents = []rampway.EventName{rampway.EventSmartContractProcessing, rampway.EventSmartContractSuccess, rampway.EventSuccess}

// A GET of a fiat order's page starts nothing, however often and by whatever method (issue
// 29, 5: link previewers and prefetchers open URLs): no fiat payment in the lookup or the
// database, nothing in the sandbox's books. The sandbox's card form is on the page at once
// (as the dev-mode contract has it), posting to /checkout/pay, which starts the payment and
// hands the form on to it (307): paid through it, the order has one payment, at the sandbox.
func TestFiatPageGETStartsNothing(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	o := j.order(t, "EUR", rampway.MethodCard, nil)
	id, gw := o["order_id"].(string), o["gateway_url"].(string)
	db, err := sql.Open("sqlite", filepath.Join(j.dir, "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counts := func() (payments, atSandbox int) {
		t.Helper()
		if err := db.QueryRow(`SELECT COUNT(*) FROM fiat_payments WHERE order_id = ?`, id).Scan(&payments); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM sandbox_payments WHERE order_id = ?`, id).Scan(&atSandbox); err != nil {
			t.Fatal(err)
		}
		return payments, atSandbox
	}
	var pages []string
	for range 3 {
		_, html := j.page(t, gw)
		pages = append(pages, html)
	}
	res, err := j.browser.Head(gw)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("HEAD: %d", res.StatusCode)
	}
	if payments, atSandbox := counts(); payments != 0 || atSandbox != 0 {
		t.Fatalf("GETs and a HEAD of the page made %d fiat payments, %d at the sandbox", payments, atSandbox)
	}
	if v := j.lookup(t, id); v["fiat_payment"] != nil || v["status"] != "CREATED" {
		t.Fatalf("after GETs and a HEAD of the page: %v, fiat_payment %v", v["status"], v["fiat_payment"])
	}
	// The sandbox's card form is there at once (the dev-mode contract's page), posting to
	// /checkout/pay, which starts the payment and hands the form on to it.
	action := `<form method="post" action="/checkout/pay?order_id=` + id + `&amp;hash=`
	for i, html := range pages {
		if !strings.Contains(html, action) || strings.Contains(html, `id="start-form"`) {
			t.Fatalf("GET %d: not the card form posting to /checkout/pay:\n%s", i, html)
		}
	}
	// Paid with the test card through it: one payment, at the sandbox, authorised.
	devtest.PayCard(t, gw, "4242424242424242")
	if fp, _ := j.lookup(t, id)["fiat_payment"].(map[string]any); fp == nil || fp["card_last4"] != "4242" {
		t.Fatalf("after the card form: fiat_payment %v", fp)
	}
	if payments, atSandbox := counts(); payments != 1 || atSandbox != 1 {
		t.Fatalf("one start made %d fiat payments, %d at the sandbox", payments, atSandbox)
	}
}

// A card that succeeds: authorised, the NFT minted, then captured; the events of the journey.
func TestFiatCardJourney(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	before := j.nfts(t)
	o := j.order(t, "EUR", rampway.MethodCard, nil)
	id := o["order_id"].(string)
	j.card(t, o, j.dj.Fiat.TestCards.Success)
	j.waitStatus(t, id, "SUCCESS", 30*time.Second)
	if got := j.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("NFTs %s, want %s + 1", got, before)
	}
	fp := j.captured(t, id, o["order_fiat_amount"].(string))
	if fp["card_brand"] != "visa" || fp["card_last4"] != "4242" || fp["amount"] != o["order_fiat_amount"] {
		t.Fatalf("fiat_payment %v", fp)
	}
	j.hooks.wantEvents(t, id, append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing, rampway.EventOnrampSuccess}, mintEvents...))
}

// A declined card, then one that succeeds: one mint.
func TestFiatDeclineThenSuccess(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	before := j.nfts(t)
	o := j.order(t, "GBP", rampway.MethodCard, nil)
	id := o["order_id"].(string)
	if html := j.card(t, o, j.dj.Fiat.TestCards.Decline); !strings.Contains(html, `id="declined"`) || !strings.Contains(html, `id="card-form"`) {
		t.Fatalf("after a decline the page does not say so and offer the form again:\n%s", html)
	}
	if v := j.lookup(t, id); v["status"] != "CREATED" {
		t.Fatalf("declined order is %v", v["status"])
	}
	j.card(t, o, j.dj.Fiat.TestCards.Success)
	j.waitStatus(t, id, "SUCCESS", 30*time.Second)
	if got := j.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("NFTs %s, want %s + 1", got, before)
	}
	j.hooks.wantEvents(t, id, append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampFailure,
		rampway.EventOnrampProcessing, rampway.EventOnrampSuccess}, mintEvents...))
}

// 3-D Secure: completed, the order is minted; failed, nothing is minted and the order waits.
func TestFiatThreeDS(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	before := j.nfts(t)
	for _, tc := range []struct{ button, want string }{{"fail", "CREATED"}, {"complete", "SUCCESS"}} {
		o := j.order(t, "EUR", rampway.MethodCard, nil)
		id := o["order_id"].(string)
		at, html := j.cardAt(t, o, j.dj.Fiat.TestCards.ThreeDS)
		if !strings.Contains(html, "Complete authentication") || !strings.Contains(html, "Fail authentication") || !strings.HasSuffix(at, "/3ds") {
			t.Fatalf("no 3-D Secure challenge at %s:\n%s", at, html)
		}
		if v := j.waitStatus(t, id, "ONRAMP_PROCESSING", time.Minute); v["fiat_payment"].(map[string]any)["status"] != "processing" {
			t.Fatalf("in the challenge: %v", v["fiat_payment"])
		}
		j.submit(t, at, url.Values{"result": {tc.button}})
		j.waitStatus(t, id, tc.want, 30*time.Second)
		if tc.want == "CREATED" {
			if got := j.nfts(t); got.Cmp(before) != 0 {
				t.Fatalf("a failed authentication minted: %s, was %s", got, before)
			}
			j.hooks.wantEvents(t, id, []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing, rampway.EventOnrampFailure})
		}
	}
	if got := j.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("NFTs %s, want %s + 1", got, before)
	}
}

// approve follows the page's pay link to the sandbox page and presses button.
func (j *fiatJourney) approve(t *testing.T, o map[string]any, button string) string {
	t.Helper()
	_, html := j.paymentPage(t, o)
	at, page := j.page(t, j.abs(match(t, payLink, html)))
	if !strings.Contains(page, ">"+map[string]string{"pay": "Pay", "approve": "Approve payment"}[button]+"<") {
		t.Fatalf("no %s button at %s:\n%s", button, at, page)
	}
	_, out := j.submit(t, at, url.Values{"result": {button}})
	return out
}

// bankReference reads the reference of a bank-transfer order off its page (the payment
// started first, when it is not yet).
func (j *fiatJourney) bankReference(t *testing.T, o map[string]any) string {
	t.Helper()
	_, html := j.paymentPage(t, o)
	return match(t, reference, html)
}

// bankTransfer tells the sandbox, as the operator, that a transfer with reference arrived.
func (j *fiatJourney) bankTransfer(t *testing.T, ref, amount, currency string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"reference": ref, "amount": amount, "currency": currency})
	req, _ := http.NewRequest(http.MethodPost, j.dj.API.AdminBaseURL+"/sandbox/bank-transfers", strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+j.dj.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if body, _ := io.ReadAll(res.Body); res.StatusCode != 201 {
		t.Fatalf("bank transfer: %d %s", res.StatusCode, body)
	}
}

// Apple Pay and open banking: a wallet sheet authorises (then captured), an approval pushes
// the money (nothing to capture).
func TestFiatWalletAndOpenBanking(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	before := j.nfts(t)
	wallet := j.order(t, "EUR", rampway.MethodApplePay, nil)
	j.approve(t, wallet, "pay")
	j.waitStatus(t, wallet["order_id"].(string), "SUCCESS", 30*time.Second)
	j.movement(t, wallet["order_id"].(string), "capture", wallet["order_fiat_amount"].(string))

	ob := j.order(t, "GBP", rampway.MethodOpenBanking, nil)
	j.approve(t, ob, "approve")
	v := j.waitStatus(t, ob["order_id"].(string), "SUCCESS", 30*time.Second)
	if fp := v["fiat_payment"].(map[string]any); fp["status"] != "succeeded" || len(v["fiat_movements"].([]any)) != 0 {
		t.Fatalf("open banking: %v %v", fp, v["fiat_movements"])
	}
	if got := j.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(2))) != 0 {
		t.Fatalf("NFTs %s, want %s + 2", got, before)
	}
	j.hooks.wantEvents(t, ob["order_id"].(string), append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing,
		rampway.EventOnrampSuccess}, mintEvents...))
}

// SEPA: a short transfer is refunded and the order waits; the right amount completes it; a
// second one after that is refunded too. An unknown reference is 404.
func TestFiatBankTransfers(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	before := j.nfts(t)
	o := j.order(t, "EUR", rampway.MethodSEPABankTransfer, nil)
	id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
	if _, html := j.paymentPage(t, o); !strings.Contains(html, "DE89370400440532013000") || !strings.Contains(html, amount+" EUR") {
		t.Fatalf("bank details missing:\n%s", html)
	}
	ref := j.bankReference(t, o)
	j.bankTransfer(t, ref, "5.00", "EUR")
	j.movement(t, id, "refund", "5.00")
	if v := j.lookup(t, id); v["status"] != "CREATED" {
		t.Fatalf("after a short transfer the order is %v", v["status"])
	}
	// The right amount, told through the CLI this time.
	out := &lockedBuffer{}
	if err := run(t.Context(), []string{"admin", "--data-dir", j.dir, "sandbox", "bank-transfer", "--reference", ref, "--amount", amount,
		"--currency", "EUR"}, noEnv, out); err != nil || !strings.Contains(out.String(), `"credit_id": "sbc_`) {
		t.Fatalf("CLI bank transfer: %v\n%s", err, out)
	}
	j.waitStatus(t, id, "SUCCESS", 30*time.Second)
	j.bankTransfer(t, ref, amount, "EUR")
	j.movement(t, id, "refund", amount)
	if got := j.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("NFTs %s, want %s + 1", got, before)
	}
	j.hooks.wantEvents(t, id, append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing,
		rampway.EventOnrampSuccess}, mintEvents...))
	code, v := postAdmin(t, j.dj, "/sandbox/bank-transfers", `{"reference":"RW-NOPE","amount":"1.00","currency":"EUR"}`)
	if code != 404 {
		t.Fatalf("unknown reference: %d %v", code, v)
	}
	if code, v := postAdmin(t, j.dj, "/sandbox/bank-transfers", `{"reference":"RW-NOPE","amount":"1.00"}`); code != 400 || !strings.Contains(v["message"].(string), "currency") {
		t.Fatalf("no currency: %d %v", code, v)
	}
}

func postAdmin(t *testing.T, dj devJSON, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, dj.API.AdminBaseURL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+dj.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	_ = json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

// A call that reverts after the card is authorised (the collection sold out meanwhile):
// FAILED, the authorisation voided, nothing minted, then REFUNDED; a bank transfer's order that
// fails the same way is refunded through the provider.
func TestFiatExecutionFailsVoidsOrRefunds(t *testing.T) {
	t.Parallel()
	j := newFiatJourney(t)
	before := j.nfts(t)
	card := j.order(t, "EUR", rampway.MethodCard, nil)
	bank := j.order(t, "EUR", rampway.MethodSEPABankTransfer, nil)
	ref := j.bankReference(t, bank)
	// The owner caps the supply at what is minted: every mint now reverts ("DemoNFT: sold out").
	st, err := readDevState(j.dir)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.keys()
	if err != nil {
		t.Fatal(err)
	}
	nft := bindings.NewDemoNFT()
	minted, err := bind.Call(nft.Instance(j.c, common.HexToAddress(j.dj.Contracts.NFT)), nil, nft.PackTotalMinted(), nft.UnpackTotalMinted)
	if err != nil {
		t.Fatal(err)
	}
	send(t, j.c, keys.deployer, common.HexToAddress(j.dj.Contracts.NFT), nil, nft.PackSetMaxSupply(minted))

	j.card(t, card, j.dj.Fiat.TestCards.Success)
	j.bankTransfer(t, ref, bank["order_fiat_amount"].(string), "EUR")
	for _, o := range []map[string]any{card, bank} {
		v := j.waitStatus(t, o["order_id"].(string), "REFUNDED", 30*time.Second)
		if r, _ := v["failure_reason"].(string); !strings.Contains(r, "sold out") {
			t.Fatalf("failure_reason %v", v["failure_reason"])
		}
	}
	j.movement(t, card["order_id"].(string), "void", card["order_fiat_amount"].(string))
	j.movement(t, bank["order_id"].(string), "refund", bank["order_fiat_amount"].(string))
	if fp := j.lookup(t, card["order_id"].(string))["fiat_payment"].(map[string]any); fp["status"] != "voided" {
		t.Fatalf("card payment %v", fp)
	}
	if got := j.nfts(t); got.Cmp(before) != 0 {
		t.Fatalf("NFTs %s, want %s: nothing minted", got, before)
	}
	j.hooks.wantEvents(t, card["order_id"].(string), []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing,
		rampway.EventOnrampSuccess, rampway.EventSmartContractFailure, rampway.EventRefunded})
}
