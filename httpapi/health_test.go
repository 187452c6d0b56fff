package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/devtest"
)

// /readyz asks its further checks (Deps.Ready) after the database: one that fails answers 503
// in the envelope with its message (several: all of them); an error that is not a
// *rampway.Error says no more than that a dependency is not ready, its text only in the log.
func TestReadyChecks(t *testing.T) {
	t.Parallel()
	chainA, chainB := &fakePinger{}, &fakePinger{}
	var logs devtest.LockedBuffer
	s := New(Config{Version: "test", BasePaths: BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"}}, Deps{DB: &fakePinger{}, Ready: []Pinger{chainA, chainB}, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Metrics: prometheus.NewRegistry()})
	get := func() resp {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return resp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	}
	if r := get(); r.status != 200 || !strings.Contains(string(r.body), `"status":"ready"`) {
		t.Fatalf("readyz %d %s", r.status, r.body)
	}

	behind := "Network devnet: the chain's head is block 5, behind block 9 that rampway has recorded"
	chainA.err = rampway.Errorf(rampway.EUNAVAILABLE, "%s", behind)
	wantEnvelope(t, get(), 503, 503, "/readyz", behind)

	chainB.err = errors.New("secret internal detail")
	b := wantEnvelope(t, get(), 503, 503, "/readyz", behind+"; A dependency is not ready")
	if strings.Contains(b.Message, "secret") || !strings.Contains(logs.String(), "secret internal detail") {
		t.Fatalf("message %q; log:\n%s", b.Message, logs.String())
	}

	chainA.err, chainB.err = nil, nil
	if r := get(); r.status != 200 {
		t.Fatalf("readyz after the checks pass again: %d %s", r.status, r.body)
	}
}
