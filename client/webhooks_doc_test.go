package client_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway/client"
)

// The worked example of docs/webhooks.md.
const (
	docSecret = "whsec_k3xq7vz2mfp4hd6wyt5rj2nbce4qga7s"
	docT      = 1795279201 // 2026-11-21T16:40:01Z
	docBody   = `{"eventId":"evt_01kaksy8m3qx9v7c2d4f6h8j0k","timestamp":"2026-11-21T16:40:00.123Z","eventName":"order.deposit.success","context":{"order_id":"ord_01kaks2b5m7n9p1q3r5s7t9v0w","merchant_id":"mch_01k9z3x4c5v6b7n8m9q0r1s2t3","merchant_txn_id":"order-1042","merchant_user_id":"user-77","status":"DEPOSIT_SUCCESS","crypto_symbol":"ETH","crypto_network":"ethereum","crypto_contract_address":null,"crypto_amount":"0.05","crypto_amount_received":"0.05","deposit_address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","deposit_tx_hashes":["0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b"],"execution_tx_hash":null,"failure_reason":null,"created_at":"2026-11-21T16:31:12.408Z","updated_at":"2026-11-21T16:40:00.123Z"}}`
	docHeader = "t=1795279201,v1=695a19e8b148e75d22cf4de188ebb1f5908caadf8c7fa5a7b90e2774b12bba8a"
)

func TestDocWorkedExample(t *testing.T) {
	at := time.Unix(docT, 0)
	if got := client.Sign(docSecret, []byte(docBody), at); got != docHeader {
		t.Fatalf("Sign = %s\nthe doc says %s", got, docHeader)
	}
	ev, err := client.VerifyWebhook(docSecret, []byte(docBody), docHeader, at.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	o, err := ev.Order()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != client.EventOrderDepositSuccess || o.MerchantTxnID != "order-1042" || o.Status != client.StatusDepositSuccess ||
		o.CryptoContractAddress != "" || o.ExecutionTxHash != "" || len(o.DepositTxHashes) != 1 || o.CryptoAmountReceived != "0.05" {
		t.Fatalf("event %+v, order %+v", ev, o)
	}
}

// readDoc returns docs/webhooks.md: the doc must exist and stay true to the package.
func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "webhooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codeBlock returns the n-th (from 0) fenced block of language lang after the heading.
func codeBlock(t *testing.T, doc, heading, lang string, n int) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("doc has no heading %q", heading)
	}
	for i := 0; ; i++ {
		_, after, ok := strings.Cut(rest, "\n```"+lang+"\n")
		if !ok {
			t.Fatalf("doc has no %s block %d after %q", lang, n, heading)
		}
		block, after, ok := strings.Cut(after, "\n```\n")
		if !ok {
			t.Fatalf("unterminated %s block after %q", lang, heading)
		}
		if i == n {
			return block + "\n"
		}
		rest = after
	}
}

func TestDocIsExact(t *testing.T) {
	doc := readDoc(t)
	for _, want := range []string{
		"\n" + docSecret + "\n",
		"`t`: `" + "1795279201" + "` (2026-11-21T16:40:01Z)",
		"Body, 726 bytes on one line",
		"\n" + docBody + "\n",
		"X-Service-Webhook-Signature: " + docHeader + "\n",
		"-hmac '" + docSecret + "'",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/webhooks.md does not contain %q", want)
		}
	}
	if len(docBody) != 726 || time.Unix(docT, 0).UTC().Format(time.RFC3339) != "2026-11-21T16:40:01Z" {
		t.Errorf("the doc's body length or t is wrong")
	}
	for _, name := range []string{
		client.EventOrderCreated, client.EventOrderDepositProcessing, client.EventOrderDepositSuccess,
		client.EventOrderDepositFailure, client.EventOrderOnrampProcessing, client.EventOrderOnrampSuccess,
		client.EventOrderOnrampFailure, client.EventOrderSmartContractProcessing, client.EventOrderSmartContractSuccess,
		client.EventOrderSmartContractFailure, client.EventOrderSuccess, client.EventOrderCancelled, client.EventOrderFailed,
		client.EventOrderRefundPending, client.EventOrderRefundSuccess, client.EventOrderRefundSucceeded, client.EventOrderRefundFailed,
		client.EventUserWidgetOpen, client.EventUserWidgetClose,
	} {
		if !strings.Contains(doc, "\n| `"+name+"` |") {
			t.Errorf("the event table of docs/webhooks.md has no row for %s", name)
		}
	}
}

// The doc's Go receiver compiles.
func TestDocGoReceiver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	doc := readDoc(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(codeBlock(t, doc, "## A complete receiver in Go", "go", 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "vet", file).CombinedOutput(); err != nil {
		t.Fatalf("go vet of the doc's receiver: %v\n%s", err, out)
	}
}

// The doc's Node.js check accepts the worked example and refuses what it must.
func TestDocNodeVerifier(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is needed to check the doc's Node.js receiver (it is on this workplace's machines)")
		}
		t.Skip("no node")
	}
	doc := readDoc(t)
	script := codeBlock(t, doc, "## A receiver in Node.js", "js", 0) + `
const assert = require('node:assert');
const [secret, body, header, t] = process.argv.slice(2);
const raw = Buffer.from(body);
const now = Number(t) + 2;
assert.equal(verifyRampwayWebhook([secret], raw, header, now).eventId, 'evt_01kaksy8m3qx9v7c2d4f6h8j0k');
assert.equal(verifyRampwayWebhook(['whsec_old', secret], raw, ' v1=' + 'ab'.repeat(32) + ', ' + header.replace(',', ' , '), now).eventName, 'order.deposit.success');
const refuses = (what, secrets, b, h, n) => assert.throws(() => verifyRampwayWebhook(secrets, b, h, n), undefined, what);
refuses('wrong secret', ['whsec_other'], raw, header, now);
refuses('empty secret', [''], raw, header, now);
refuses('tampered body', [secret], Buffer.from(body.replace('0.05', '5.00')), header, now);
refuses('no header', [secret], raw, undefined, now);
refuses('old t', [secret], raw, header, Number(t) + 301);
refuses('future t', [secret], raw, header, Number(t) - 301);
console.log('ok');
`
	file := filepath.Join(t.TempDir(), "verify.js")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, file, docSecret, docBody, docHeader, "1795279201").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("node: %v\n%s", err, out)
	}
}
