package httpapi

import (
	"net/http"
	"net/http/pprof"
)

// pprofRoutes mounts Go's profiles under {admin}/debug/pprof/, behind the admin token, so that
// an operator can see where a running instance spends its CPU and memory (docs/OPERATIONS.md):
//
//	curl -H "Authorization: Bearer $TOKEN" http://host/admin/debug/pprof/profile?seconds=30 > cpu.pprof
//
// net/http/pprof reads the profile's name after "/debug/pprof/", so the admin base path is
// stripped first.
func (s *Server) pprofRoutes() {
	admin := s.cfg.BasePaths.Admin
	mount := func(path string, h http.HandlerFunc) {
		s.mux.Handle("GET "+admin+"/debug/pprof/"+path, s.adminAuth(http.StripPrefix(admin, h)))
	}
	mount("", pprof.Index) // the index, and every named profile: heap, goroutine, allocs, block, mutex…
	mount("cmdline", pprof.Cmdline)
	mount("profile", pprof.Profile)
	mount("symbol", pprof.Symbol)
	mount("trace", pprof.Trace)
}
