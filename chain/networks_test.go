package chain_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
)

func TestDialChecksTheChain(t *testing.T) {
	t.Parallel()
	c := devchaintest.Start(t)
	good := c.Network("devnet")
	nets, err := chain.Dial(t.Context(), []rampway.Network{good})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer nets.Close()
	if n, ok := nets.Network("devnet"); !ok || n.ChainID.Int64() != devchain.ChainID {
		t.Fatalf("Network(devnet) = %+v, %v", n, ok)
	}
	if has, err := nets.HasCode(t.Context(), "devnet", c.Contracts().NFT); err != nil || !has {
		t.Fatalf("HasCode(NFT) = %v, %v", has, err)
	}
	if has, err := nets.HasCode(t.Context(), "devnet", common.HexToAddress("0x1234")); err != nil || has {
		t.Fatalf("HasCode(empty account) = %v, %v", has, err)
	}
	if _, err := nets.HasCode(t.Context(), "mainnet", c.Contracts().NFT); err == nil {
		t.Fatal("HasCode on an unknown network succeeded")
	}

	for _, tc := range []struct {
		name string
		edit func(n *rampway.Network)
		want string
	}{
		{"wrong chain id", func(n *rampway.Network) { n.ChainID = big.NewInt(1) }, "serves chain id 1337, the configuration says 1"},
		{"wrong decimals", func(n *rampway.Network) { n.Tokens[0].Decimals = 18 }, "has 6 decimals on chain, the configuration says 18"},
		{"token without code", func(n *rampway.Network) { n.Tokens[0].Contract = common.HexToAddress("0x1234") }, "no contract at"},
		{"token not an ERC-20", func(n *rampway.Network) { n.Tokens[0].Contract = c.Contracts().PriceFeed }, "decimals on chain"},
		{"unreachable", func(n *rampway.Network) { n.RPCURLs = []string{"http://127.0.0.1:1/secret-key"} }, "http://127.0.0.1:1)"},
		{"no url", func(n *rampway.Network) { n.RPCURLs = nil }, "has no RPC URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := c.Network("devnet")
			tc.edit(&n)
			_, err := chain.Dial(t.Context(), []rampway.Network{n})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "network devnet") {
				t.Fatalf("Dial error %v, want one naming the network and containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret-key") {
				t.Fatalf("error leaks the RPC URL's path: %v", err)
			}
		})
	}
	if _, err := chain.Dial(t.Context(), []rampway.Network{good, good}); err == nil {
		t.Fatal("a network configured twice was accepted")
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://eth.example.com/v3/KEY?x=1": "https://eth.example.com",
		"wss://user:pw@host:8546/ws":         "wss://host:8546",
		"::bad":                              "(invalid URL)",
	} {
		if got := chain.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// A network given InProcess is reached through that client, not its URL, and Close leaves
// the client open for the chain that lent it.
func TestDialInProcess(t *testing.T) {
	t.Parallel()
	c := devchaintest.Start(t)
	n := c.Network("devnet")
	n.RPCURLs = []string{"http://nothing-listens.invalid:1"} // dialled over HTTP, Dial would fail
	nets, err := chain.Dial(t.Context(), []rampway.Network{n}, chain.InProcess(n.RPCURLs[0], c.RPC()))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	b, ok := nets.Batching("devnet")
	if !ok {
		t.Fatal("no batching client")
	}
	maxSupply, err := b.CallContract(t.Context(), ethereum.CallMsg{To: ptr(c.Contracts().NFT), Data: bindings.NewDemoNFT().PackMaxSupply()}, nil)
	if err != nil || len(maxSupply) != 32 {
		t.Fatalf("eth_call in process: %x, %v", maxSupply, err)
	}
	nets.Close()
	var id hexutil.Big
	if err := c.RPC().CallContext(t.Context(), &id, "eth_chainId"); err != nil || id.ToInt().Int64() != devchain.ChainID {
		t.Fatalf("the chain's client after Networks.Close: %v, %v", id.ToInt(), err)
	}
}

func ptr[T any](v T) *T { return &v }
