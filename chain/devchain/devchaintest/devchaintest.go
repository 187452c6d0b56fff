// Package devchaintest starts embedded chains for tests.
package devchaintest

import (
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain"
)

// Start runs an embedded chain with the demo contracts and JSON-RPC on a free loopback port,
// funding the given accounts. It mines only when the test calls Mine, and closes when the test
// ends.
func Start(tb testing.TB, fund ...devchain.Funding) *devchain.Chain {
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
	return c
}
