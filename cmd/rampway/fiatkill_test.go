package main

import (
	"bytes"
	"database/sql"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/sqlite"
)

// A card order's process is killed (SIGKILL) after the card is authorised and before the
// capture: after the restart the order is executed once and captured once. Then the whole
// journey's traces (the process's logs, and every file of the data directory: the database, its
// WAL, the chain) hold no card number: only the brand and last four digits are kept.
func TestFiatSIGKILLBetweenAuthorisationAndCapture(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	p, dj := startDevBinary(t, bin, dir)
	j := &fiatJourney{journey: newJourney(t, dj), browser: &http.Client{Timeout: 20 * time.Second}}
	before := j.nfts(t)
	// Every test card goes through the page once: declined, challenged and failed, then paid.
	o := j.order(t, "EUR", rampway.MethodCard, nil)
	id := o["order_id"].(string)
	j.card(t, o, dj.Fiat.TestCards.Decline)
	at, _ := j.cardAt(t, o, dj.Fiat.TestCards.ThreeDS)
	j.submit(t, at, map[string][]string{"result": {"fail"}})
	j.waitStatus(t, id, "CREATED", time.Minute)
	j.card(t, o, dj.Fiat.TestCards.Success)
	// Killed as soon as the authorisation is applied (the call may be on its way, or mined).
	deadline := time.Now().Add(time.Minute)
	for {
		v := j.lookup(t, id)
		if v["status"] == "ONRAMP_SUCCESS" || v["status"] == "SMARTCONTRACT_PROCESSING" || v["status"] == "SUCCESS" {
			t.Logf("killed in %v", v["status"])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s is %v\n%s", id, v["status"], p.out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	logs := &bytes.Buffer{}
	p.kill(t, dir)
	logs.WriteString(p.out.String())
	p2, dj2 := startDevBinary(t, bin, dir)
	j2 := &fiatJourney{journey: newJourney(t, dj2), browser: j.browser}
	j2.waitStatus(t, id, "SUCCESS", 60*time.Second)
	j2.movement(t, id, "capture", o["order_fiat_amount"].(string))
	if got := j2.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("NFTs %s, want %s + 1 (executed once)", got, before)
	}
	if err := p2.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-p2.exited
	logs.WriteString(p2.out.String())

	db, err := sql.Open("sqlite", filepath.Join(dir, "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var captures, actions int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sandbox_calls WHERE kind = 'capture'`).Scan(&captures); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM fiat_actions WHERE order_id = ?`, id).Scan(&actions); err != nil {
		t.Fatal(err)
	}
	if captures != 1 || actions != 1 {
		t.Fatalf("%d captures at the provider, %d fiat actions; want 1 and 1", captures, actions)
	}
	scanForCards(t, dir, logs.Bytes(), dj.Fiat.TestCards.Success, dj.Fiat.TestCards.Decline, dj.Fiat.TestCards.ThreeDS)
}

// scanForCards fails when a card number appears in the logs or any file under dir, in full or
// grouped by fours as people type it.
func scanForCards(t *testing.T, dir string, logs []byte, cards ...string) {
	t.Helper()
	var needles [][]byte
	for _, c := range cards {
		grouped := c[0:4] + " " + c[4:8] + " " + c[8:12] + " " + c[12:]
		needles = append(needles, []byte(c), []byte(grouped))
	}
	look := func(where string, data []byte) {
		for _, n := range needles {
			if bytes.Contains(data, n) {
				t.Errorf("card number %s found in %s", n, where)
			}
		}
	}
	look("the logs", logs)
	files := 0
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		look(strings.TrimPrefix(path, dir), data)
		return nil
	})
	if err != nil || files < 2 {
		t.Fatalf("scanned %d files: %v", files, err)
	}
}

var _ = sqlite.Dialect // imported for its driver ("sqlite"), which sql.Open uses

// An area C order's process is killed (SIGKILL) after the fiat payment and before the transfer
// to the merchant is mined: after the restart exactly one transfer is sent, and the deposit
// address holds exactly crypto_amount more. Until the kill the chain mines at most one block
// an hour (--block-time): the transfer cannot be mined before it, however slowly the test
// looks.
func TestDepositSIGKILLBeforeTheTransferIsMined(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	p, dj := startDevBinary(t, bin, dir, "--block-time", "1h")
	j := &fiatJourney{journey: newJourney(t, dj), browser: &http.Client{Timeout: 20 * time.Second}, dir: dir}
	to := devDepositAddress(t, dir, "ETH")
	before := j.balanceOf(t, "ETH", to)
	o := j.depositOrder(t, "EUR", "100.00", "ETH", rampway.MethodCard, j.hook)
	id := o["order_id"].(string)
	j.card(t, o, dj.Fiat.TestCards.Success)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		v := j.lookup(t, id)
		if v["status"] == "ONRAMP_SUCCESS" || v["status"] == "DEPOSIT_PROCESSING" {
			t.Logf("killed in %v", v["status"])
			break
		}
		if v["status"] == "SUCCESS" || time.Now().After(deadline) {
			t.Fatalf("order %s is %v: the kill came too late\n%s", id, v["status"], p.out)
		}
	}
	p.kill(t, dir)
	_, dj2 := startDevBinary(t, bin, dir)
	j2 := &fiatJourney{journey: newJourney(t, dj2), browser: j.browser, dir: dir}
	j2.waitStatus(t, id, "SUCCESS", 60*time.Second)
	if got, want := j2.balanceOf(t, "ETH", to), new(big.Int).Add(before, baseUnits(t, o["crypto_amount"].(string), "ETH")); got.Cmp(want) != 0 {
		t.Fatalf("deposit address holds %s, want %s: one transfer", got, want)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var nonces int
	if err := db.QueryRow(`SELECT COUNT(DISTINCT nonce) FROM chain_txs WHERE ref = ? AND kind = 'call'`, id).Scan(&nonces); err != nil {
		t.Fatal(err)
	}
	if nonces != 1 {
		t.Fatalf("%d nonces used for the order's transfer, want 1", nonces)
	}
}
