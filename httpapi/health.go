package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/rampway/rampway"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.cfg.Version})
	return nil
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "not ready", "error", err)
		return rampway.Errorf(rampway.EUNAVAILABLE, "Database is not reachable")
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}
