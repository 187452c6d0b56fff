package app_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app/apptest"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/provider/sandbox"
)

// The sandbox's card journeys on PostgreSQL, through the real server (the page's start step and
// card form, the sandbox's pages and notifications over HTTP): a decline, a failed 3-D Secure challenge, then a
// card that pays; the order is executed. Then every row of every table, as text, holds no card
// number: only the brand and the last four digits are kept.
func TestFiatCardsLeaveNoCardNumberInPostgres(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	e := apptest.Start(t, func(cfg *config.Config) { cfg.Database = config.Database{Driver: "postgres", DSN: dsn} })
	a, created := e.App, e.CardMint(t)
	id := created.Order.ID
	action := regexp.MustCompile(`<form method="post" action="([^"]+)" id="card-form"`)
	pay := func(number string) string {
		t.Helper()
		at, page := devtest.PaymentPage(t, http.DefaultClient, created.GatewayURL)
		m := action.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no card form:\n%s", page)
		}
		res, err := http.PostForm(devtest.Resolve(t, at, m[1]), url.Values{"card_number": {number}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada Lovelace"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.Request.URL.String()
	}
	wait := func(want rampway.OrderStatus) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			o, err := a.Store.Order(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("order is %s, want %s", o.Status, want)
			}
		}
	}
	pay(sandbox.CardDecline)
	challenge := pay(sandbox.CardThreeDS)
	if res, err := http.PostForm(challenge, url.Values{"result": {"fail"}}); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	wait(rampway.StatusCreated)
	pay(sandbox.CardSuccess)
	wait(rampway.StatusSuccess)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		as, err := a.Store.FiatActions(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) == 1 && as[0].Kind == rampway.ActionCapture && as[0].Status == rampway.ActionDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("capture: %+v", as)
		}
	}

	// Every table, every row, as text.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := db.QueryContext(t.Context(), `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		_ = tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	var dump strings.Builder
	for _, n := range names {
		rows, err := db.QueryContext(t.Context(), fmt.Sprintf(`SELECT row_to_json(t)::text FROM %q t`, n))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r string
			_ = rows.Scan(&r)
			dump.WriteString(r + "\n")
		}
		rows.Close()
	}
	if !strings.Contains(dump.String(), `"card_last4":"4242"`) || len(names) < 10 {
		t.Fatalf("the dump of %d tables does not hold the payment's last four digits: the scan would see nothing", len(names))
	}
	all := dump.String() + e.Logs.String()
	for _, card := range []string{sandbox.CardSuccess, sandbox.CardDecline, sandbox.CardThreeDS} {
		if strings.Contains(all, card) || strings.Contains(all, card[:4]+" "+card[4:8]) {
			t.Errorf("card number %s found in the database or the logs", card)
		}
	}
}
