// Package secretbox seals short secrets (webhook secrets) for storage at rest with AES-256-GCM.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// sealedPrefix marks a sealed value; values without it are stored in clear.
const sealedPrefix = "enc1:"

// Box seals and opens secrets. A nil *Box stores secrets in clear and refuses to open sealed
// ones, so a deployment that loses its key gets a clear error instead of garbage.
type Box struct {
	aead cipher.AEAD
}

// New returns a Box keyed by SHA-256 of key (any non-empty string: a passphrase or a random
// key from the environment).
func New(key string) (*Box, error) {
	if key == "" {
		return nil, errors.New("secretbox: empty key")
	}
	k := sha256.Sum256([]byte(key))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Seal returns the value to store for secret. "" stays "".
func (b *Box) Seal(secret string) string {
	if b == nil || secret == "" {
		return secret
	}
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce) // never fails
	ct := b.aead.Seal(nonce, nonce, []byte(secret), nil)
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(ct)
}

// Open returns the secret from a stored value made by Seal (or stored in clear).
func (b *Box) Open(stored string) (string, error) {
	rest, sealed := strings.CutPrefix(stored, sealedPrefix)
	if !sealed {
		return stored, nil
	}
	if b == nil {
		return "", errors.New("secretbox: value is encrypted but no encryption key is configured")
	}
	ct, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil || len(ct) < b.aead.NonceSize() {
		return "", errors.New("secretbox: malformed sealed value")
	}
	n := b.aead.NonceSize()
	pt, err := b.aead.Open(nil, ct[:n], ct[n:], nil)
	if err != nil {
		return "", errors.New("secretbox: cannot decrypt (wrong encryption key?)")
	}
	return string(pt), nil
}
