package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader is the HTTP header that carries a webhook's signature:
//
//	X-Service-Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]
//
// Each <hex> is the lowercase hex HMAC-SHA256, keyed with a webhook secret, of the bytes
// "<t>.<raw body>". t is the time of the delivery attempt. While a secret is being rotated
// there is one v1 per valid secret.
const SignatureHeader = "X-Service-Webhook-Signature"

// DefaultTolerance is how far a signature's t may be from the receiver's clock, either way,
// when a [Verifier] does not set its own.
const DefaultTolerance = 5 * time.Minute

// Errors of verification. Every error [VerifyWebhook] and [Verifier.Verify] return for a
// delivery wraps one of them; test with [errors.Is].
var (
	// ErrNoSignature: the signature header is missing or empty, or has no v1 signature.
	ErrNoSignature = errors.New("rampway webhook: no signature")
	// ErrBadSignature: the header is malformed, or no v1 signature matches any secret (a
	// wrong secret, or a body that is not the raw bytes that were sent).
	ErrBadSignature = errors.New("rampway webhook: bad signature")
	// ErrTimestamp: the signature is genuine, but its t is further than the tolerance from
	// now, in the past (a replay, or a slow clock) or in the future.
	ErrTimestamp = errors.New("rampway webhook: signature timestamp outside tolerance")
	// ErrDuplicate: a genuine event whose eventId the Verifier's Deduper has seen before.
	// A retry of an event already processed must be acknowledged with a 2xx.
	ErrDuplicate = errors.New("rampway webhook: duplicate event")
	// ErrBadBody: the body (or an event's context) is not the JSON expected; eventId and
	// eventName are required.
	ErrBadBody = errors.New("rampway webhook: bad event body")
)

// errNoSecret is a configuration error: verifying without a secret would accept anything
// signed with the empty key.
var errNoSecret = errors.New("rampway webhook: no webhook secret configured")

// Sign returns the signature header value for body sent at t with secret:
// "t=<unix seconds>,v1=<hex>". Merchants use it to test their receivers.
func Sign(secret string, body []byte, t time.Time) string {
	ts := t.Unix()
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

// mac is HMAC-SHA256 keyed with secret of "<t>.<body>".
func mac(secret string, t int64, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write(strconv.AppendInt(nil, t, 10))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// VerifyWebhook checks a delivery signed with secret and returns its event. body must be the
// raw request body, byte for byte; header is the value of [SignatureHeader]; now is the
// receiver's clock. It accepts the delivery when any v1 signature matches and t is within
// [DefaultTolerance] of now, either way.
//
// VerifyWebhook keeps no state, so it cannot tell a duplicate; a [Verifier] with a [Deduper]
// can.
func VerifyWebhook(secret string, body []byte, header string, now time.Time) (*Event, error) {
	v := Verifier{Secrets: []string{secret}}
	return v.Verify(body, header, now)
}

// Verifier checks webhook deliveries. The zero value with Secrets set is ready to use and
// does not detect duplicates; it is safe for concurrent use when Seen is.
type Verifier struct {
	// Secrets are the webhook secrets to accept, as rampway gave them ("whsec_..."): a
	// delivery is genuine when any v1 signature matches any of them. More than one lets a
	// merchant roll a new secret out while the old one is still in use. Empty strings are
	// ignored; verifying with none is an error.
	Secrets []string
	// Tolerance is how far t may be from now, either way; DefaultTolerance when zero or less.
	Tolerance time.Duration
	// Seen, when set, records the eventId of every genuine delivery and turns a second one
	// into ErrDuplicate. Its memory should outlast 2 x Tolerance, or a captured delivery
	// could be replayed while its t is still accepted.
	Seen Deduper
}

// Verify checks a delivery and returns its event. body must be the raw request body, byte for
// byte; header is the value of [SignatureHeader]; now is the receiver's clock.
//
// The checks, in order: a v1 signature matches one of the Secrets ([ErrNoSignature],
// [ErrBadSignature]); t is within the Tolerance of now ([ErrTimestamp]); the body is an event
// with an eventId and an eventName ([ErrBadBody]); and, when Seen is set, its eventId has not
// been seen before ([ErrDuplicate]). A duplicate is returned together with its event, so the
// caller can log it before answering 2xx.
func (v *Verifier) Verify(body []byte, header string, now time.Time) (*Event, error) {
	ev, err := v.verify(body, header, now)
	if err != nil {
		return nil, err
	}
	if v.Seen != nil && v.Seen.Seen(ev.ID, now) {
		return ev, fmt.Errorf("%w: %s", ErrDuplicate, ev.ID)
	}
	return ev, nil
}

// verify is Verify without the duplicate check.
func (v *Verifier) verify(body []byte, header string, now time.Time) (*Event, error) {
	var secrets []string
	for _, s := range v.Secrets {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	if len(secrets) == 0 {
		return nil, errNoSecret
	}
	sig, err := parseSignature(header)
	if err != nil {
		return nil, err
	}
	if !sig.matches(secrets, body) {
		return nil, fmt.Errorf("%w: no v1 signature matches the secret (check the secret, and "+
			"that the body is verified as received, before any JSON decoding)", ErrBadSignature)
	}
	tol := v.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	switch age := now.Sub(time.Unix(sig.t, 0)); {
	case age > tol:
		return nil, fmt.Errorf("%w: signed %s ago, tolerance %s", ErrTimestamp, age.Round(time.Second), tol)
	case -age > tol:
		return nil, fmt.Errorf("%w: signed %s in the future, tolerance %s (check the clock)",
			ErrTimestamp, (-age).Round(time.Second), tol)
	}
	return parseEvent(body)
}

// parseEvent decodes a delivery's body.
func parseEvent(body []byte) (*Event, error) {
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadBody, err)
	}
	if ev.ID == "" {
		return nil, fmt.Errorf("%w: no eventId", ErrBadBody)
	}
	if ev.Name == "" {
		return nil, fmt.Errorf("%w: no eventName", ErrBadBody)
	}
	return &ev, nil
}

// signature is a parsed signature header.
type signature struct {
	t  int64
	v1 [][]byte
}

// parseSignature parses "t=<unix seconds>,v1=<hex>[,v1=<hex>...]": parts in any order, spaces
// around parts, keys and values ignored, unknown schemes (v0, ...) ignored.
func parseSignature(header string) (signature, error) {
	var sig signature
	if strings.TrimSpace(header) == "" {
		return sig, fmt.Errorf("%w: no %s header", ErrNoSignature, SignatureHeader)
	}
	haveT, badV1 := false, 0
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return sig, fmt.Errorf("%w: malformed header part %q", ErrBadSignature, part)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "t":
			if haveT {
				return sig, fmt.Errorf("%w: more than one t in the header", ErrBadSignature)
			}
			t, err := parseUnix(val)
			if err != nil {
				return sig, fmt.Errorf("%w: malformed t %q", ErrBadSignature, val)
			}
			sig.t, haveT = t, true
		case "v1":
			m, err := hex.DecodeString(val)
			if err != nil || len(m) != sha256.Size {
				badV1++
				continue
			}
			sig.v1 = append(sig.v1, m)
		}
	}
	switch {
	case !haveT:
		return sig, fmt.Errorf("%w: no t in the header", ErrBadSignature)
	case len(sig.v1) == 0 && badV1 > 0:
		return sig, fmt.Errorf("%w: malformed v1 signature", ErrBadSignature)
	case len(sig.v1) == 0:
		return sig, fmt.Errorf("%w: no v1 signature in the header", ErrNoSignature)
	}
	return sig, nil
}

// parseUnix parses unsigned decimal seconds.
func parseUnix(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errors.New("not a number of seconds")
	}
	return strconv.ParseInt(s, 10, 64)
}

// matches reports whether any v1 signature is the MAC of body under any secret, comparing in
// constant time.
func (sig signature) matches(secrets []string, body []byte) bool {
	ok := false
	for _, s := range secrets {
		want := mac(s, sig.t, body)
		for _, got := range sig.v1 {
			if hmac.Equal(want, got) {
				ok = true
			}
		}
	}
	return ok
}
