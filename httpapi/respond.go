package httpapi

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/rampway/rampway"
)

// statusOf maps error codes to HTTP statuses: the one table.
var statusOf = map[string]int{
	rampway.EINVALID:        http.StatusBadRequest,
	rampway.EFUNCARGS:       http.StatusBadRequest,
	rampway.EUNAUTHORIZED:   http.StatusUnauthorized,
	rampway.ENOTFOUND:       http.StatusNotFound,
	rampway.EMETHOD:         http.StatusMethodNotAllowed,
	rampway.ECONFLICT:       http.StatusConflict,
	rampway.ETOOLARGE:       http.StatusRequestEntityTooLarge,
	rampway.EUNSUPPORTED:    http.StatusUnsupportedMediaType,
	rampway.EUNPROCESSABLE:  http.StatusUnprocessableEntity,
	rampway.ERATELIMIT:      http.StatusTooManyRequests,
	rampway.EINTERNAL:       http.StatusInternalServerError,
	rampway.ENOTIMPLEMENTED: http.StatusNotImplemented,
	rampway.EUNAVAILABLE:    http.StatusServiceUnavailable,
}

// bodyStatusOf overrides the envelope's statusCode where the spec shows another number than
// the HTTP status: invalid function arguments answer HTTP 400 with statusCode 403.
var bodyStatusOf = map[string]int{
	rampway.EFUNCARGS: http.StatusForbidden,
}

// ErrorBody is the spec's error envelope, the body of every error response.
type ErrorBody = rampway.ErrorEnvelope

// TimeFormat is ISO 8601 in UTC with milliseconds, as in the spec's examples.
const TimeFormat = rampway.TimeFormat

// handlerFunc is a handler that returns its error for handle to answer.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc: a returned error is answered in the envelope.
func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		routed(r)
		echoPathValues(r)
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// wildcard matches a route pattern's wildcards ({order_id}) and captures their names.
var wildcard = regexp.MustCompile(`\{([^}.]+)(?:\.\.\.)?\}`)

// echoPathValues cuts the request's path values (order, event, merchant, key and function
// ids) to what an error message repeats (rampway.Echo): a value longer than that is no id,
// so the handler answers it as the unknown id it is, without repeating kilobytes of it.
func echoPathValues(r *http.Request) {
	for _, m := range wildcard.FindAllStringSubmatch(r.Pattern, -1) {
		if v := r.PathValue(m[1]); v != rampway.Echo(v) {
			r.SetPathValue(m[1], rampway.Echo(v))
		}
	}
}

// writeError answers err in the envelope. Internal errors are logged with an id that the
// caller also sees; their details never leave the server.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := rampway.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		code, status = rampway.EINTERNAL, http.StatusInternalServerError
	}
	msg := rampway.ErrorMessage(err)
	if code == rampway.EINTERNAL {
		id := newErrorID()
		s.log.ErrorContext(r.Context(), "internal error", "error_id", id, "error", err, "method", r.Method, "path", r.URL.Path,
			"request_id", requestInfoFrom(r.Context()).requestID)
		msg = "Internal server error (error id: " + id + ")"
		w.Header().Set("X-Error-Id", id)
	}
	bodyStatus := status
	if bs, ok := bodyStatusOf[code]; ok {
		bodyStatus = bs
	}
	if d := rampway.ErrorRetryAfter(err); d > 0 && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
	}
	if code == rampway.ERATELIMIT && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	if code == rampway.EUNAVAILABLE && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "5") // a node, a price feed or the hot wallet: a passing fault
	}
	writeJSON(w, status, ErrorBody{StatusCode: bodyStatus, Timestamp: time.Now().UTC().Format(TimeFormat), Message: msg, Path: r.URL.Path})
}

// writeJSON writes v as the JSON response body with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	jsonHeaders(w)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // an error here means the client went away; nothing is left to tell it
}

// encodeJSON returns v as writeJSON writes it.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSONBytes writes a body encodeJSON made (or a stored one) as writeJSON would.
func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	jsonHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func jsonHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}

func newErrorID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "err_" + hex.EncodeToString(b[:])
}
