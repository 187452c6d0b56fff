package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
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
	var why []string
	for _, c := range s.ready {
		if err := c.Ping(ctx); err != nil {
			s.log.WarnContext(ctx, "not ready", "error", err)
			msg := "A dependency is not ready"
			if e := (*rampway.Error)(nil); errors.As(err, &e) {
				msg = e.Message
			}
			why = append(why, msg)
		}
	}
	if len(why) > 0 {
		return rampway.Errorf(rampway.EUNAVAILABLE, "%s", strings.Join(why, "; "))
	}
	var warnings []string
	for _, wr := range s.warnings {
		warnings = append(warnings, wr.Warnings(ctx)...)
	}
	if len(warnings) > 0 {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "warnings": warnings})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return nil
}
