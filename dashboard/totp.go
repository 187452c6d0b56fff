package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// TOTP (RFC 6238) as authenticator apps do it by default: HMAC-SHA-1, 6 digits, 30-second
// steps counted from the Unix epoch; a code of the step before or after the current one is
// accepted too (a clock a little off, a code typed as the step turns).
const (
	totpPeriod = 30
	totpDigits = 6
	totpSkew   = 1
	// totpSecretBytes is the length of a new secret: 160 bits, as RFC 4226 recommends.
	totpSecretBytes = 20
	// totpIssuer names the account in authenticator apps.
	totpIssuer = "rampway"
)

// totpEncoding is the base32 of secrets (RFC 4648, no padding), as authenticator apps read them.
var totpEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewTOTPSecret returns a random TOTP secret, base32.
func NewTOTPSecret() string {
	b := make([]byte, totpSecretBytes)
	_, _ = rand.Read(b) // never fails
	return totpEncoding.EncodeToString(b)
}

// decodeTOTPSecret reads a base32 secret, with or without padding, spaces or lower case.
func decodeTOTPSecret(secret string) ([]byte, error) {
	s := strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(secret))
	key, err := totpEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("totp: the secret is not base32")
	}
	return key, nil
}

// hotp is RFC 4226's HOTP of key at counter with digits digits (HMAC-SHA-1, dynamic
// truncation).
func hotp(key []byte, counter uint64, digits int) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	m := hmac.New(sha1.New, key)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, bin%mod)
}

// totpStep is the time step of t.
func totpStep(t time.Time) int64 { return t.Unix() / totpPeriod }

// TOTPCode returns the code of secret (base32) at t.
func TOTPCode(secret string, t time.Time) (string, error) {
	key, err := decodeTOTPSecret(secret)
	if err != nil {
		return "", err
	}
	return hotp(key, uint64(totpStep(t)), totpDigits), nil
}

// checkTOTP reports whether code is secret's code at t, or one step before or after, and the
// step it matched. The comparison takes as long whatever matches.
func checkTOTP(secret, code string, t time.Time) (int64, bool) {
	code = strings.ReplaceAll(strings.TrimSpace(code), " ", "")
	key, err := decodeTOTPSecret(secret)
	if err != nil || len(code) != totpDigits {
		return 0, false
	}
	now := totpStep(t)
	var matched int64
	ok := 0
	for d := int64(-totpSkew); d <= totpSkew; d++ {
		if subtle.ConstantTimeCompare([]byte(hotp(key, uint64(now+d), totpDigits)), []byte(code)) == 1 {
			matched, ok = now+d, 1
		}
	}
	return matched, ok == 1
}

// TOTPURI is the otpauth:// URI of a secret for an authenticator app (what a QR code would
// hold), naming the account email at rampway.
func TOTPURI(secret, email string) string {
	label := url.PathEscape(totpIssuer + ":" + email)
	q := url.Values{"secret": {secret}, "issuer": {totpIssuer}, "algorithm": {"SHA1"}, "digits": {fmt.Sprint(totpDigits)},
		"period": {fmt.Sprint(totpPeriod)}}
	return "otpauth://totp/" + label + "?" + q.Encode()
}
