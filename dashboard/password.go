package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's costs: Memory in KiB, Time passes over it, Threads lanes, and the
// lengths of the salt and of the hash in bytes.
type Params struct {
	Memory  uint32
	Time    uint32
	Threads uint8
	SaltLen uint32
	KeyLen  uint32
}

// DefaultParams are OWASP's recommended argon2id costs (Password Storage Cheat Sheet:
// m=19456 KiB, t=2, p=1), with a 16-byte salt and a 32-byte hash.
var DefaultParams = Params{Memory: 19456, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds on the costs a stored hash may name: a hash written by someone else (a copied
// database) must not make a sign-in take gigabytes or minutes.
const (
	maxMemory  = 1 << 20 // KiB: 1 GiB
	maxTime    = 20
	maxThreads = 16
	maxKeyLen  = 128
)

// ErrMalformedHash is returned for a stored hash that is not argon2id in its encoded form.
var ErrMalformedHash = errors.New("malformed argon2id password hash")

// HashPassword returns password's argon2id hash with a new random salt, encoded as
// $argon2id$v=19$m=MEMORY,t=TIME,p=THREADS$SALT$HASH (salt and hash in unpadded base64).
func HashPassword(password string, p Params) string {
	salt := make([]byte, p.SaltLen)
	_, _ = rand.Read(salt) // never fails: crypto/rand crashes the program rather than return an error
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// CheckPassword reports whether password is the one encoded hashes, comparing the hashes in
// constant time. A hash that cannot be read is ErrMalformedHash (and never matches).
func CheckPassword(password, encoded string) (bool, error) {
	p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

func decodeHash(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, fmt.Errorf("%w: version %q", ErrMalformedHash, parts[2])
	}
	var threads uint32
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &threads); err != nil || n != 3 ||
		fmt.Sprintf("m=%d,t=%d,p=%d", p.Memory, p.Time, threads) != parts[3] {
		return p, nil, nil, fmt.Errorf("%w: parameters %q", ErrMalformedHash, parts[3])
	}
	if p.Memory < 8*threads || p.Memory > maxMemory || p.Time < 1 || p.Time > maxTime || threads < 1 || threads > maxThreads {
		return p, nil, nil, fmt.Errorf("%w: parameters %q out of bounds", ErrMalformedHash, parts[3])
	}
	p.Threads = uint8(threads)
	if salt, err = base64.RawStdEncoding.Strict().DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, fmt.Errorf("%w: salt", ErrMalformedHash)
	}
	if key, err = base64.RawStdEncoding.Strict().DecodeString(parts[5]); err != nil || len(key) < 16 || len(key) > maxKeyLen {
		return p, nil, nil, fmt.Errorf("%w: hash", ErrMalformedHash)
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}
