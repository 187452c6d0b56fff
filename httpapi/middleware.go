package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

type ctxKey int

const (
	keyRequestInfo ctxKey = iota
	keyMerchant
	keyIdempotencyClaim
)

// requestInfo is filled in as a request goes down the chain, for the access log and metrics.
type requestInfo struct {
	requestID  string
	route      string
	merchantID string
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(keyRequestInfo).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

// statusWriter records the status and size of a response, and its body when capture is set.
type statusWriter struct {
	http.ResponseWriter
	status  int
	bytes   int64
	capture *bytes.Buffer
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	if w.capture != nil {
		w.capture.Write(b[:n])
	}
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flushes for server-sent events).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// observe gives each request an id (the caller's X-Request-Id when it is sane), then logs and
// counts it.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = "req_" + hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		ri := &requestInfo{requestID: id}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), keyRequestInfo, ri)))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		d := time.Since(start)
		route := ri.route
		if route == "" {
			route = "unmatched"
		}
		s.metrics.requests.WithLabelValues(route, r.Method, strconv.Itoa(sw.status)).Inc()
		s.metrics.latency.WithLabelValues(route, r.Method).Observe(d.Seconds())
		// Typed attributes (LogAttrs), one line per request: no value boxed into an interface.
		attrs := [...]slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("route", route), slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.Int64("bytes", sw.bytes),
			slog.String("request_id", id), slog.String("remote", r.RemoteAddr), slog.String("merchant_id", ri.merchantID)}
		n := len(attrs)
		if ri.merchantID == "" {
			n-- // merchant_id is last: left out when no merchant was authenticated
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "http request", attrs[:n]...)
	})
}

// recoverPanics answers a panic with a 500 in the envelope and logs it with its stack.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.writeError(w, r, &rampway.Error{Code: rampway.EINTERNAL, Err: fmt.Errorf("panic: %v\n%s", v, debug.Stack())})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody refuses bodies over the limit: at once when Content-Length says so, else when
// the handler reads past it.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.writeError(w, r, errTooLarge(s.cfg.MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// routed records the matched route pattern for logs and metrics.
func routed(r *http.Request) {
	if r.Pattern != "" && r.Pattern != "/" {
		requestInfoFrom(r.Context()).route = r.Pattern
	}
}

// labelled gives a handler that answers for itself (the checkout page, the demo store) its
// route in the access log and the metrics, as handle gives the API's handlers theirs.
func labelled(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		routed(r)
		h.ServeHTTP(w, r)
	})
}

// handleUnmatched answers requests no route matched: 405 with Allow when the path exists
// under another method, else 404.
func (s *Server) handleUnmatched(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		return rampway.Errorf(rampway.EMETHOD, "Method %s is not allowed on %s; allowed: %s", rampway.Echo(r.Method), rampway.Echo(r.URL.Path), strings.Join(allow, ", "))
	}
	return rampway.Errorf(rampway.ENOTFOUND, "Cannot %s %s", rampway.Echo(r.Method), rampway.Echo(r.URL.Path))
}
