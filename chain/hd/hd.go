// Package hd derives per-order deposit addresses with BIP-32/44, so that funds sent to them are
// recoverable with any standard wallet from the master seed. The API side needs only the
// extended public key of the account's external chain, m/44'/60'/0'/0; the sweeper, which
// spends from the addresses, needs the extended private key.
package hd

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"strings"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"
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

// Deriver derives deposit addresses from the external chain's extended public key, with
// hdkeychain's BIP-32 public child derivation: no cryptography of our own. A derivation costs
// ~40 us (hdkeychain decompresses the parent's key at every call, and the child's once more to
// hash it): checkout derives addresses ahead of need, in the background, a block at a time
// (checkout/addresses.go), so that no order waits for one.
type Deriver struct {
	chain *hdkeychain.ExtendedKey
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
	if _, err := k.ECPubKey(); err != nil {
		return nil, fmt.Errorf("hd: parse extended key: %w", err)
	}
	if k.Depth() == 255 { // hdkeychain would refuse every child: the depth does not fit a byte
		return nil, fmt.Errorf("hd: parse extended key: %w", hdkeychain.ErrDeriveBeyondMaxDepth)
	}
	return &Deriver{chain: k}, nil
}

// Address returns the deposit address at index (non-hardened, < 2^31). An index BIP-32 finds
// no key for (odds below 1 in 2^127) gives an error wrapping hdkeychain.ErrInvalidChild: the
// caller skips that index.
func (d *Deriver) Address(index uint32) (common.Address, error) {
	if index >= hdkeychain.HardenedKeyStart {
		return common.Address{}, fmt.Errorf("hd: index %d is out of the non-hardened range", index)
	}
	child, err := d.chain.Derive(index)
	if err != nil {
		return common.Address{}, fmt.Errorf("hd: derive %d: %w", index, err)
	}
	pub, err := child.ECPubKey()
	if err != nil {
		return common.Address{}, fmt.Errorf("hd: derive %d: %w", index, err)
	}
	// The address is the last 20 bytes of Keccak-256(X || Y), as crypto.PubkeyToAddress has it,
	// hashed from the key's own serialisation rather than through ecdsa.PublicKey's big.Ints.
	return common.BytesToAddress(crypto.Keccak256(pub.SerializeUncompressed()[1:])[12:]), nil
}

// Addresses returns the deposit addresses at indexes, as Address does one by one.
func (d *Deriver) Addresses(indexes []uint32) ([]common.Address, error) {
	out := make([]common.Address, len(indexes))
	for i, index := range indexes {
		var err error
		if out[i], err = d.Address(index); err != nil {
			return nil, err
		}
	}
	return out, nil
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
