package checkoutpage

import (
	"html"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// render serves order o's page (with the fiat checkout f, nil for none) and returns it.
func render(t *testing.T, o *rampway.Order, f *fakeFiat, fn *rampway.ContractFunction, net *rampway.Network) string {
	t.Helper()
	deps := Deps{Store: &viewStore{order: o, function: fn}, Checkout: anyHash{}, Chains: viewChains{net}, Log: slog.New(slog.DiscardHandler)}
	if f != nil {
		deps.Checkout, deps.Fiat = *f, *f
	}
	rec := httptest.NewRecorder()
	New(Config{}, deps).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/checkout?order_id="+o.ID+"&hash=h", nil))
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "ZgotmplZ") {
		t.Fatalf("%d\n%s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

var tags = regexp.MustCompile(`<[^>]+>`)

// textOf is the text of the element with id in page, its tags dropped and spaces folded ("" when
// it is not there).
func textOf(page, id string) string {
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	start := strings.Index(page[i:], ">") + i + 1
	tag := page[strings.LastIndex(page[:i], "<")+1:]
	name := tag[:strings.IndexAny(tag, " >")]
	end := strings.Index(page[start:], "</"+name+">") + start
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(page[start:end], " "))), " ")
}

// hidden reports whether the element with id is marked hidden.
func hidden(page, id string) bool {
	tag := regexp.MustCompile(`<[a-z]+ [^>]*id="` + id + `"[^>]*>`).FindString(page)
	return regexp.MustCompile(`\shidden[\s>]`).MatchString(tag)
}

// What each page says at its end: at SUCCESS, where what was bought went (the call's recipient,
// or for a top-up the merchant's deposit address) beside the transaction, linked when the
// network has an explorer; once EXPIRED, what happens to a payment that comes late, as the
// service really handles it (area A: sent back on chain less the network fee; a card's late
// authorisation: cancelled; a push payment: refunded through the provider).
func TestPageOutcome(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, ExplorerURL: "https://explorer.example", Native: rampway.Asset{Symbol: "ETH"}}
	mint := &rampway.ContractFunction{Signature: "mint(address,uint256)", DisplayName: "Demo NFT",
		ABI: `{"type":"function","name":"mint","inputs":[{"name":"to","type":"address"},{"name":"quantity","type":"uint256"}]}`}
	to := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	tx := "0x" + strings.Repeat("ab", 32)
	withCall := func(o *rampway.Order) *rampway.Order {
		o.FunctionArgs = []byte(`{"to":"` + strings.ToLower(to.Hex()) + `","quantity":"1"}`)
		if o.Status == rampway.StatusSuccess {
			o.ExecutionTxHash = tx
		}
		return o
	}
	payout := common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")
	topUp := fiatOrder(rampway.AreaDeposit, rampway.StatusSuccess, rampway.MethodCard)
	topUp.PayoutAddress, topUp.ExecutionTxHash = payout, tx
	for _, tc := range []struct {
		name   string
		o      *rampway.Order
		fiat   *fakeFiat
		sentTo string // #sent-to's text, "" for none shown
		late   string // #late's text, "" for hidden
	}{
		{"area A success", withCall(viewOrder(rampway.StatusSuccess, false, 1000, 1000)), nil, "Sent to: " + to.Hex(), ""},
		{"area A waiting", withCall(viewOrder(rampway.StatusCreated, false, 1000, 0)), nil, "", ""},
		{"area A expired", withCall(viewOrder(rampway.StatusExpired, false, 1000, 0)), nil, "", Messages["late_crypto"]},
		{"area B success", withCall(fiatOrder(rampway.AreaNFTRamp, rampway.StatusSuccess, rampway.MethodCard)), &fakeFiat{}, "Sent to: " + to.Hex(), ""},
		{"area B by card expired", withCall(fiatOrder(rampway.AreaNFTRamp, rampway.StatusExpired, rampway.MethodCard)), &fakeFiat{}, "", Messages["late_authorise"]},
		{"area B by transfer expired", withCall(fiatOrder(rampway.AreaNFTRamp, rampway.StatusExpired, rampway.MethodSEPABankTransfer)), &fakeFiat{}, "",
			Messages["late_push"]},
		{"area C success", topUp, &fakeFiat{}, "Sent to Demo Store: " + payout.Hex(), ""},
		{"area C expired before a choice", fiatOrder(rampway.AreaDeposit, rampway.StatusExpired, ""), &fakeFiat{}, "", Messages["late_none"]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, tc.o, tc.fiat, mint, net)
			sent := ""
			if !hidden(page, "sent-to") {
				sent = textOf(page, "sent-to")
			}
			late := ""
			if !hidden(page, "late") {
				late = textOf(page, "late")
			}
			if sent != tc.sentTo || late != tc.late {
				t.Fatalf("sent to %q, late %q; want %q, %q", sent, late, tc.sentTo, tc.late)
			}
			if tc.o.Status == rampway.StatusSuccess && (hidden(page, "tx") || !strings.Contains(page, `href="https://explorer.example/tx/`+tx+`"`)) {
				t.Fatalf("no transaction link at SUCCESS:\n%s", page)
			}
			// The way back, the same on every page: the return link, its note, the stay button.
			for _, want := range []string{`<a id="return-link" class="button primary" href="https://shop.example/back?order_id=`,
				`<p id="return-note" class="note"></p>`, `<button type="button" id="stay" class="secondary" hidden>Stay on this page</button>`,
				`<button type="submit" class="secondary" id="cancel">Cancel and return to the shop</button>`} {
				if !strings.Contains(page, want) {
					t.Errorf("no %s", want)
				}
			}
			if hidden(page, "return") != !tc.o.Status.Decided() || hidden(page, "cancel-form") != (tc.o.Status != rampway.StatusCreated) {
				t.Errorf("return hidden %v, cancel hidden %v at %s", hidden(page, "return"), hidden(page, "cancel-form"), tc.o.Status)
			}
		})
	}
}

// The fiat steps: what the status says before a payment (the step's question, not "Waiting for
// your payment"), the identity step's country list with the order's country chosen, the bank
// details' IBAN in groups of four (copied without spaces) and their time left in days.
func TestFiatSteps(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, Native: rampway.Asset{Symbol: "ETH"}}
	bank := &rampway.NextAction{Kind: "bank_transfer", Bank: &rampway.BankAccount{Beneficiary: "rampway sandbox (test data only)",
		IBAN: "DE89370400440532013000", BIC: "COBADEFFXXX", Reference: "RW-TEST"}}
	transfer := fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodSEPABankTransfer)
	transfer.ExpiresAt = time.Now().Add(72 * time.Hour)
	withCountry := fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodCard)
	withCountry.User = map[string]string{"user_countryCode": "FR", "user_first_name": "Ada"}

	page := render(t, fiatOrder(rampway.AreaDeposit, rampway.StatusCreated, ""), &fakeFiat{}, nil, net)
	if s := textOf(page, "status"); s != "Choose how to pay" {
		t.Errorf("the quote screen's status %q", s)
	}

	page = render(t, withCountry, &fakeFiat{}, nil, net)
	if s := textOf(page, "status"); s != "Enter your details to pay" {
		t.Errorf("the identity step's status %q", s)
	}
	sel := regexp.MustCompile(`(?s)<select id="user_countryCode" name="user_countryCode" autocomplete="country" required>(.*?)</select>`).FindStringSubmatch(page)
	if sel == nil {
		t.Fatalf("no country list:\n%s", page)
	}
	options := regexp.MustCompile(`<option value="([A-Z]*)"( selected)?>([^<]*)</option>`).FindAllStringSubmatch(sel[1], -1)
	var chosen []string
	for _, o := range options {
		if o[2] != "" {
			chosen = append(chosen, o[1]+" "+html.UnescapeString(o[3]))
		}
	}
	if len(options) != len(countries)+1 || options[0][1] != "" || len(chosen) != 1 || chosen[0] != "FR France" {
		t.Fatalf("%d options, chosen %v", len(options), chosen)
	}
	withCountry.User = map[string]string{"user_first_name": "Ada"}
	page = render(t, withCountry, &fakeFiat{}, nil, net)
	if !strings.Contains(page, `<option value="" selected>Choose your country</option>`) {
		t.Errorf("without a country the list does not ask for one")
	}

	page = render(t, transfer, &fakeFiat{complete: true, next: bank}, nil, net)
	if s := textOf(page, "status"); s != "Waiting for your bank transfer" {
		t.Errorf("the bank step's status %q", s)
	}
	if iban := textOf(page, "bank-iban"); iban != "DE89 3704 0044 0532 0130 00" {
		t.Errorf("IBAN %q", iban)
	}
	if !strings.Contains(page, `data-copy="DE89370400440532013000" aria-label="Copy IBAN"`) {
		t.Errorf("the IBAN's copy button does not copy it without spaces")
	}
	if left := textOf(page, "countdown"); left != "3 days" {
		t.Errorf("time left %q, want 3 days", left)
	}
}

// A token payment's page names the token's contract, with a copy button and, when the network
// has an explorer, a link to the token there; a native one names none.
func TestPageNamesTheToken(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, ExplorerURL: "https://explorer.example/", Native: rampway.Asset{Symbol: "ETH"}}
	page := render(t, viewOrder(rampway.StatusCreated, true, 10_050_000, 0), nil, nil, net)
	if got := textOf(page, "token"); got != "Token contract (DUSD) View the token : "+viewToken.Hex()+" Copy" {
		t.Errorf("token: %q", got)
	}
	if !strings.Contains(page, `<a id="token-link" href="https://explorer.example/token/`+viewToken.Hex()+`"`) ||
		!strings.Contains(page, `data-copy="`+viewToken.Hex()+`" aria-label="Copy the token contract"`) {
		t.Errorf("no token link or copy button:\n%s", page)
	}
	if page := render(t, viewOrder(rampway.StatusCreated, false, 1000, 0), nil, nil, net); strings.Contains(page, `id="token"`) {
		t.Errorf("a native payment names a token")
	}
	net.ExplorerURL = ""
	if page := render(t, viewOrder(rampway.StatusCreated, true, 10_050_000, 0), nil, nil, net); strings.Contains(page, "token-link") || !strings.Contains(page, viewToken.Hex()) {
		t.Errorf("without an explorer: a link, or no contract")
	}
}
