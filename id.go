package rampway

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"time"
)

// idEncoding is lowercase Crockford-like base32 without padding: ids stay URL- and
// copy-paste-friendly, and sort by creation time.
var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// ID prefixes name what an id refers to.
const (
	PrefixMerchant = "mch"
	PrefixAPIKey   = "key"
)

// NewID returns prefix_ followed by 26 characters: 48 bits of milliseconds since the epoch
// (so ids sort by creation time) and 80 random bits.
func NewID(prefix string, now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	// b[0:6] hold the time; b[6:16] are random.
	_, _ = rand.Read(b[6:]) // never fails: crypto/rand crashes the program rather than return an error
	return prefix + "_" + idEncoding.EncodeToString(b[:])
}

// ValidID reports whether s looks like an id made by NewID with that prefix. It is a cheap
// shape check for input, not proof that the id exists.
func ValidID(prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(rest) != 26 {
		return false
	}
	for _, c := range rest {
		if !strings.ContainsRune("0123456789abcdefghjkmnpqrstvwxyz", c) {
			return false
		}
	}
	return true
}
