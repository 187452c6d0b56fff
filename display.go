package rampway

import (
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What the hosted checkout page shows of a merchant and of what it sells, as a shop would:
// names and images that merchants register through the admin API.
const (
	// MaxDisplayNameLen bounds a registered function's display name, in characters.
	MaxDisplayNameLen = 100
	// MaxImageURLLen bounds an image URL (a merchant's logo, a function's image), in bytes.
	MaxImageURLLen = 2048
)

// CheckText trims s and checks it as a display text given in field: at most max characters
// of valid UTF-8, without control characters, bidirectional ones included (an override would
// make a name read otherwise than it is). "" is valid (none); required texts check for it
// themselves.
func CheckText(field, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case !utf8.ValidString(s) || utf8.RuneCountInString(s) > max:
		return "", FieldErrorf(field, "%s must be at most %d characters of text", field, max)
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) >= 0:
		return "", FieldErrorf(field, "%s must not contain control characters", field)
	}
	return s, nil
}

// CheckImageURL validates the address of an image given in field (a merchant's logo_url, a
// function's image_url), which the buyer's browser loads on the hosted checkout page: "" (none),
// or an absolute https URL (http too in dev mode) of at most MaxImageURLLen bytes, without
// credentials, whose host is a DNS name (ASCII: letters, digits, '-' and '.'; an
// internationalised name in its xn-- form) or an IP address. rampway itself never fetches it;
// the page's Content-Security-Policy allows images from exactly its origin.
func CheckImageURL(field, raw string, devMode bool) error {
	if raw == "" {
		return nil
	}
	schemes := "https"
	if devMode {
		schemes = "http(s)"
	}
	bad := FieldErrorf(field, "%s must be an absolute %s URL of at most %d characters", field, schemes, MaxImageURLLen)
	if len(raw) > MaxImageURLLen || strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0 {
		return bad
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || !(u.Scheme == "https" || devMode && u.Scheme == "http") {
		return bad
	}
	if u.User != nil {
		return FieldErrorf(field, "%s must not carry credentials", field)
	}
	if !imageHost(u.Hostname()) {
		return FieldErrorf(field, "%s must name its host by a DNS name (letters, digits, '-' and '.') or an IP address", field)
	}
	return nil
}

// imageHost reports whether host (without port) is an IP address or an ASCII DNS name.
func imageHost(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if host == "" || len(host) > 253 || strings.HasPrefix(host, ".") || strings.Contains(host, "..") {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(host, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
