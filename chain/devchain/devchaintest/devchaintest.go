// Package devchaintest starts embedded chains for tests.
package devchaintest

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain"
)

// Start runs an embedded chain with the demo contracts and JSON-RPC on a free loopback port,
// funding the given accounts. It mines only when the test calls Mine, and closes when the test
// ends.
func Start(tb testing.TB, fund ...devchain.Funding) *devchain.Chain {
	tb.Helper()
	c, _ := StartOwned(tb, fund...)
	return c
}

// StartOwned is Start that also returns the key of the demo contracts' owner (it may set the
// NFT's supply cap, for one).
func StartOwned(tb testing.TB, fund ...devchain.Funding) (*devchain.Chain, *ecdsa.PrivateKey) {
	tb.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := devchain.Start(tb.Context(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: key, BlockTime: -1, Fund: fund})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c, key
}

// HeadReader is what SignTx reads fees from (an ethclient.Client, for one).
type HeadReader interface {
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// SignTx signs an EIP-1559 transaction for chain chainID from key, with a 1 gwei tip and a
// fee cap of twice the current base fee plus the tip.
func SignTx(tb testing.TB, c HeadReader, chainID *big.Int, key *ecdsa.PrivateKey, nonce uint64, to common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	tb.Helper()
	return signTx(tb, c, chainID, key, nonce, &to, value, data, gas)
}

// SignCreation is SignTx for a contract creation: data is the creation code with its
// constructor's arguments.
func SignCreation(tb testing.TB, c HeadReader, chainID *big.Int, key *ecdsa.PrivateKey, nonce uint64, data []byte, gas uint64) *types.Transaction {
	tb.Helper()
	return signTx(tb, c, chainID, key, nonce, nil, nil, data, gas)
}

func signTx(tb testing.TB, c HeadReader, chainID *big.Int, key *ecdsa.PrivateKey, nonce uint64, to *common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	tb.Helper()
	head, err := c.HeaderByNumber(context.Background(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tip := big.NewInt(1e9)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: to, Value: value, Data: data})
	if err != nil {
		tb.Fatal(err)
	}
	return tx
}
