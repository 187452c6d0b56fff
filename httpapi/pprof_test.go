package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Go's profiles are served under the admin base path, to the admin token only.
func TestPprofBehindTheAdminToken(t *testing.T) {
	t.Parallel()
	s := New(Config{Version: "test", AdminToken: adminToken, BasePaths: BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/ops"}},
		Deps{DB: &fakePinger{}, Log: slog.New(slog.DiscardHandler), Metrics: prometheus.NewRegistry()})
	get := func(path, token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	for _, path := range []string{"/ops/debug/pprof/", "/ops/debug/pprof/heap", "/ops/debug/pprof/profile?seconds=1", "/ops/debug/pprof/cmdline"} {
		for _, token := range []string{"", "wrong-token"} {
			if rec := get(path, token); rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"statusCode":401`) {
				t.Errorf("%s with token %q: %d %s, want the envelope's 401", path, token, rec.Code, rec.Body)
			}
		}
	}
	if rec := get("/ops/debug/pprof/", adminToken); rec.Code != 200 || !strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("index: %d %.300s", rec.Code, rec.Body)
	}
	if rec := get("/ops/debug/pprof/goroutine?debug=1", adminToken); rec.Code != 200 || !strings.Contains(rec.Body.String(), "goroutine profile: total") {
		t.Errorf("goroutine profile: %d %.300s", rec.Code, rec.Body)
	}
	if rec := get("/ops/debug/pprof/heap", adminToken); rec.Code != 200 || rec.Body.Len() == 0 {
		t.Errorf("heap profile: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	// Not under the default path: an instance's profiles are not where scanners look for them.
	if rec := get("/debug/pprof/", adminToken); rec.Code != http.StatusNotFound {
		t.Errorf("/debug/pprof/: %d, want 404", rec.Code)
	}
}
