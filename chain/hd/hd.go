// Package hd derives per-order deposit addresses with BIP-32/44, so that funds sent to them are
// recoverable with any standard wallet from the master seed. The API side needs only the
// extended public key of the account's external chain, m/44'/60'/0'/0; the sweeper, which
// spends from the addresses, needs the extended private key.
package hd

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/tyler-smith/go-bip39"
)

// ChainPath is the BIP-44 path of Ethereum's first account's external chain; deposit address i
// is ChainPath/i.
const ChainPath = "m/44'/60'/0'/0"

// params only give extended keys their xpub/xprv version bytes.
var params = &chaincfg.MainNetParams

// Deriver derives deposit addresses from the external chain's extended public key.
type Deriver struct {
	chain *hdkeychain.ExtendedKey
	// The parent's point, its compressed form and chain code, read once: BIP-32's public
	// child derivation is then an HMAC, one base-point multiplication and one addition, with
	// no point decompressed per address (hdkeychain decompresses the parent and the child).
	point     secp256k1.JacobianPoint
	pubKey    []byte
	chainCode []byte
}

// FromXPub returns a Deriver for an extended public key of ChainPath.
func FromXPub(xpub string) (*Deriver, error) {
	k, err := hdkeychain.NewKeyFromString(strings.TrimSpace(xpub))
	if err != nil {
		return nil, fmt.Errorf("hd: parse extended key: %w", err)
	}
	if k.IsPrivate() {
		return nil, errors.New("hd: an extended private key was given where the public one belongs")
	}
	pub, err := k.ECPubKey()
	if err != nil {
		return nil, fmt.Errorf("hd: parse extended key: %w", err)
	}
	d := &Deriver{chain: k, pubKey: pub.SerializeCompressed(), chainCode: k.ChainCode()}
	pub.AsJacobian(&d.point)
	return d, nil
}

// Address returns the deposit address at index (non-hardened, < 2^31).
func (d *Deriver) Address(index uint32) (common.Address, error) {
	child, err := d.child(index)
	if err != nil {
		return common.Address{}, err
	}
	child.ToAffine()
	return affineAddress(&child), nil
}

// Addresses returns the deposit addresses at indexes, as Address does one by one, for less:
// the points are brought to affine coordinates with one field inversion for them all
// (Montgomery's trick) instead of one each, a quarter of a derivation.
func (d *Deriver) Addresses(indexes []uint32) ([]common.Address, error) {
	children := make([]secp256k1.JacobianPoint, len(indexes))
	for i, index := range indexes {
		var err error
		if children[i], err = d.child(index); err != nil {
			return nil, err
		}
	}
	// prefix[i] = Z_0 * ... * Z_i; then, from the last point back, inv = 1/(Z_0 * ... * Z_i)
	// gives 1/Z_i = inv * prefix[i-1], and inv * Z_i is the next inv.
	prefix := make([]secp256k1.FieldVal, len(children))
	for i := range children {
		prefix[i].Set(&children[i].Z)
		if i > 0 {
			prefix[i].Mul(&prefix[i-1])
		}
	}
	out := make([]common.Address, len(children))
	var inv secp256k1.FieldVal
	if len(children) > 0 {
		inv.Set(&prefix[len(prefix)-1]).Inverse()
	}
	for i := len(children) - 1; i >= 0; i-- {
		c := &children[i]
		var zInv secp256k1.FieldVal
		if i > 0 {
			zInv.Mul2(&inv, &prefix[i-1])
		} else {
			zInv.Set(&inv)
		}
		inv.Mul(&c.Z)
		var z2, z3 secp256k1.FieldVal
		z2.SquareVal(&zInv)
		z3.Mul2(&z2, &zInv)
		c.X.Mul(&z2).Normalize()
		c.Y.Mul(&z3).Normalize()
		c.Z.SetInt(1)
		out[i] = affineAddress(c)
	}
	return out, nil
}

// child is the public child point at index, in Jacobian coordinates.
func (d *Deriver) child(index uint32) (secp256k1.JacobianPoint, error) {
	var child secp256k1.JacobianPoint
	if index >= hdkeychain.HardenedKeyStart {
		return child, fmt.Errorf("hd: index %d is out of the non-hardened range", index)
	}
	// CKDpub (BIP-32): I = HMAC-SHA512(chain code, serP(parent) || ser32(index)); the child
	// is parse256(I_L)*G + parent, invalid when I_L >= n or the sum is the point at infinity.
	mac := hmac.New(sha512.New, d.chainCode)
	mac.Write(d.pubKey)
	mac.Write(binary.BigEndian.AppendUint32(nil, index))
	sum := mac.Sum(nil)
	var k secp256k1.ModNScalar
	if overflow := k.SetByteSlice(sum[:32]); overflow {
		return child, fmt.Errorf("hd: derive %d: %w", index, hdkeychain.ErrInvalidChild)
	}
	secp256k1.ScalarBaseMultNonConst(&k, &child)
	secp256k1.AddNonConst(&child, &d.point, &child)
	if (child.X.IsZero() && child.Y.IsZero()) || child.Z.IsZero() {
		return child, fmt.Errorf("hd: derive %d: %w", index, hdkeychain.ErrInvalidChild)
	}
	return child, nil
}

// affineAddress is the Ethereum address of a point in affine coordinates (Z = 1, X and Y
// normalized): the last 20 bytes of Keccak-256(X || Y).
func affineAddress(p *secp256k1.JacobianPoint) common.Address {
	var xy [64]byte
	p.X.PutBytesUnchecked(xy[:32])
	p.Y.PutBytesUnchecked(xy[32:])
	return common.BytesToAddress(crypto.Keccak256(xy[:])[12:])
}

// Signer derives deposit keys from the external chain's extended private key (the sweeper's).
type Signer struct {
	chain *hdkeychain.ExtendedKey
}

// FromMnemonic returns the Signer for a BIP-39 mnemonic (and optional passphrase).
func FromMnemonic(mnemonic, passphrase string) (*Signer, error) {
	if !bip39.IsMnemonicValid(mnemonic) {
		return nil, errors.New("hd: invalid BIP-39 mnemonic")
	}
	seed := bip39.NewSeed(mnemonic, passphrase)
	master, err := hdkeychain.NewMaster(seed, params)
	if err != nil {
		return nil, fmt.Errorf("hd: master key: %w", err)
	}
	path, err := accounts.ParseDerivationPath(ChainPath)
	if err != nil {
		return nil, err
	}
	k := master
	for _, n := range path {
		if k, err = k.Derive(n); err != nil {
			return nil, fmt.Errorf("hd: derive %s: %w", ChainPath, err)
		}
	}
	return &Signer{chain: k}, nil
}

// NewMnemonic returns a fresh 24-word mnemonic (256 bits of entropy).
func NewMnemonic() (string, error) {
	entropy, err := bip39.NewEntropy(256)
	if err != nil {
		return "", err
	}
	return bip39.NewMnemonic(entropy)
}

// XPub returns the extended public key the API side derives addresses from.
func (s *Signer) XPub() (string, error) {
	pub, err := s.chain.Neuter()
	if err != nil {
		return "", err
	}
	return pub.String(), nil
}

// Key returns the private key of deposit address index.
func (s *Signer) Key(index uint32) (*ecdsa.PrivateKey, error) {
	if index >= hdkeychain.HardenedKeyStart {
		return nil, fmt.Errorf("hd: index %d is out of the non-hardened range", index)
	}
	child, err := s.chain.Derive(index)
	if err != nil {
		return nil, fmt.Errorf("hd: derive %d: %w", index, err)
	}
	priv, err := child.ECPrivKey()
	if err != nil {
		return nil, fmt.Errorf("hd: derive %d: %w", index, err)
	}
	return priv.ToECDSA(), nil
}

// XPrv returns the extended private key of ChainPath: what the sweeper is configured with.
func (s *Signer) XPrv() string { return s.chain.String() }

// FromXPrv returns the Signer for an extended private key of ChainPath.
func FromXPrv(xprv string) (*Signer, error) {
	k, err := hdkeychain.NewKeyFromString(strings.TrimSpace(xprv))
	if err != nil {
		return nil, errors.New("hd: not an extended private key") // never echo the secret
	}
	if !k.IsPrivate() {
		return nil, errors.New("hd: an extended public key was given where the private one belongs")
	}
	return &Signer{chain: k}, nil
}
