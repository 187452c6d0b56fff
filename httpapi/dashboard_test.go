package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// The dashboard is mounted on /dashboard/ (all of it, every method: its handler answers for
// itself) and GET /dashboard (which it redirects), and without one /dashboard is the API's 404.
func TestDashboardMount(t *testing.T) {
	t.Parallel()
	dash := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/dashboard" {
			http.Redirect(w, r, "/dashboard/", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "dashboard "+r.Method+" "+r.URL.Path)
	})
	bp := BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"}
	newServer := func(d http.Handler) *Server {
		return New(Config{Version: "test", BasePaths: bp}, Deps{DB: &fakePinger{}, Log: slog.New(slog.DiscardHandler),
			Metrics: prometheus.NewRegistry(), Dashboard: d})
	}
	s := newServer(dash)
	serve := func(s *Server, method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/dashboard/"}, {"GET", "/dashboard/login"}, {"POST", "/dashboard/login"}, {"POST", "/dashboard/logout"}, {"GET", "/dashboard/nope"},
	} {
		rec := serve(s, tt.method, tt.path)
		if want := "dashboard " + tt.method + " " + tt.path; rec.Code != 200 || rec.Body.String() != want {
			t.Errorf("%s %s: %d %q, want the dashboard's %q", tt.method, tt.path, rec.Code, rec.Body.String(), want)
		}
	}
	if rec := serve(s, "GET", "/dashboard"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/dashboard/" {
		t.Errorf("GET /dashboard: %d to %q, want 301 to /dashboard/", rec.Code, rec.Header().Get("Location"))
	}
	if rec := serve(s, "GET", "/healthz"); rec.Code != 200 {
		t.Errorf("/healthz beside the dashboard: %d", rec.Code)
	}
	off := newServer(nil)
	for _, p := range []string{"/dashboard", "/dashboard/", "/dashboard/login"} {
		if rec := serve(off, "GET", p); rec.Code != http.StatusNotFound {
			t.Errorf("without a dashboard, GET %s: %d, want 404", p, rec.Code)
		}
	}
}
