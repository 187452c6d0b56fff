package chain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rampway/rampway"
)

var _ rampway.Signer = (*KeySigner)(nil)

// KeySigner signs with a private key held in memory.
type KeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewKeySigner returns a signer of key.
func NewKeySigner(key *ecdsa.PrivateKey) *KeySigner {
	return &KeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// ParseKey reads a hex private key (with or without 0x); the error never holds the key.
func ParseKey(hexKey string) (*KeySigner, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(hexKey), "0x"))
	if err != nil {
		return nil, fmt.Errorf("hot wallet key: not a 32-byte hex private key")
	}
	return NewKeySigner(key), nil
}

// LoadKeystore decrypts a go-ethereum keystore file (the JSON `geth account new` writes).
func LoadKeystore(path, passphrase string) (*KeySigner, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hot wallet keystore: %w", err)
	}
	k, err := keystore.DecryptKey(data, passphrase)
	if err != nil {
		return nil, fmt.Errorf("hot wallet keystore %s: %w", path, err)
	}
	return NewKeySigner(k.PrivateKey), nil
}

// Address implements rampway.Signer.
func (s *KeySigner) Address() common.Address { return s.addr }

// SignTx implements rampway.Signer.
func (s *KeySigner) SignTx(_ context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), s.key)
}
