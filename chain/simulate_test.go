package chain

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
)

// Revert reasons of the demo contracts, as Simulate reports them.
const (
	simReasonWrongPayment = "execution reverted: DemoNFT: wrong payment"
	simReasonSoldOut      = "execution reverted: DemoNFT: sold out"
	// OpenZeppelin ERC20InsufficientAllowance(address,uint256,uint256) and
	// ERC20InsufficientBalance(address,uint256,uint256), bubbled up by SafeERC20.
	simReasonNoAllowance  = "execution reverted: custom error 0xfb8f41b2"
	simReasonTokenBalance = "execution reverted: custom error 0xe450d38c"
)

const (
	simPayerWei    = 1e18  // 1 ETH: 100 native mints
	simPayerTokens = 100e6 // 100 DUSD: 10 token mints
)

// simChain is a dev chain with a payer funded in ETH and DUSD, and a JSON-RPC client of it.
type simChain struct {
	chain *devchain.Chain
	ec    *ethclient.Client
	payer *ecdsa.PrivateKey
	addr  common.Address // the payer's
	c     devchain.Contracts
	nft   *bindings.DemoNFT
	token *bindings.DemoToken
}

func mustSimChain(t *testing.T) *simChain {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s := &simChain{payer: key, addr: crypto.PubkeyToAddress(key.PublicKey), nft: bindings.NewDemoNFT(), token: bindings.NewDemoToken()}
	s.chain = devchaintest.Start(t, devchain.Funding{Address: s.addr, Wei: big.NewInt(simPayerWei), TokenUnits: big.NewInt(simPayerTokens)})
	s.c = s.chain.Contracts()
	if s.ec, err = ethclient.Dial(s.chain.RPCURL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.ec.Close)
	return s
}

// Calls of the demo contracts.

func (s *simChain) mint(n int64, value *big.Int) rampway.Call {
	return rampway.Call{To: s.c.NFT, Value: value, Data: s.nft.PackMint(s.addr, big.NewInt(n))}
}

func (s *simChain) paidMint(n int64) rampway.Call { return s.mint(n, simWei(n)) }

func (s *simChain) freeMint(to common.Address, n int64) rampway.Call {
	return rampway.Call{To: s.c.NFT, Data: s.nft.PackFreeMint(to, big.NewInt(n))}
}

func (s *simChain) tokenMint(n int64) rampway.Call {
	return rampway.Call{To: s.c.NFT, Data: s.nft.PackMintWithToken(s.addr, big.NewInt(n))}
}

func (s *simChain) approve(units int64) rampway.Call {
	return rampway.Call{To: s.c.Token, Data: s.token.PackApprove(s.c.NFT, big.NewInt(units))}
}

// simWei is the native price of n DemoNFTs.
func simWei(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(devchain.NFTPriceWei), big.NewInt(n))
}

// simTokens is the DUSD price of n DemoNFTs.
func simTokens(n int64) int64 { return n * devchain.NFTTokenPrice }

func (s *simChain) owner(t *testing.T) common.Address {
	t.Helper()
	out, err := s.ec.CallContract(t.Context(), ethereum.CallMsg{To: &s.c.NFT, Data: s.nft.PackOwner()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := s.nft.UnpackOwner(out)
	if err != nil {
		t.Fatal(err)
	}
	return owner
}

func (s *simChain) totalMinted(t *testing.T) int64 {
	t.Helper()
	out, err := s.ec.CallContract(t.Context(), ethereum.CallMsg{To: &s.c.NFT, Data: s.nft.PackTotalMinted()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.nft.UnpackTotalMinted(out)
	if err != nil {
		t.Fatal(err)
	}
	return n.Int64()
}

// simInsufficientFunds is go-ethereum's answer to a call sending more than from has.
func simInsufficientFunds(from common.Address, have, want *big.Int) string {
	return fmt.Sprintf("insufficient funds for gas * price + value: address %s have %s want %s", from.Hex(), have, want)
}

func TestSimulate(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	owner := s.owner(t)
	bob := common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	tests := []struct {
		name   string
		from   common.Address // the payer when zero
		calls  []rampway.Call
		reason string
		failed int
	}{
		{name: "no calls", failed: -1},
		{name: "native mint paid exactly", calls: []rampway.Call{s.paidMint(2)}, failed: -1},
		{name: "native mint underpaid", calls: []rampway.Call{s.mint(2, simWei(1))}, reason: simReasonWrongPayment, failed: 0},
		{name: "native mint overpaid", calls: []rampway.Call{s.mint(1, simWei(2))}, reason: simReasonWrongPayment, failed: 0},
		{name: "token mint without approve", calls: []rampway.Call{s.tokenMint(1)}, reason: simReasonNoAllowance, failed: 0},
		{name: "approve then token mint", calls: []rampway.Call{s.approve(simTokens(1)), s.tokenMint(1)}, failed: -1},
		{name: "token mint then approve", calls: []rampway.Call{s.tokenMint(1), s.approve(simTokens(1))}, reason: simReasonNoAllowance, failed: 0},
		{name: "approve too little then token mint", calls: []rampway.Call{s.approve(simTokens(1)), s.tokenMint(2)}, reason: simReasonNoAllowance, failed: 1},
		{name: "token mint beyond the token balance", calls: []rampway.Call{s.approve(simTokens(20)), s.tokenMint(20)}, reason: simReasonTokenBalance, failed: 1},
		{name: "sold out", calls: []rampway.Call{s.freeMint(s.addr, devchain.NFTMaxSupply+1)}, reason: simReasonSoldOut, failed: 0},
		{
			name: "sold out after the owner lowers the cap",
			from: owner,
			calls: []rampway.Call{
				{To: s.c.NFT, Data: s.nft.PackSetMaxSupply(big.NewInt(2))},
				s.freeMint(owner, 2),
				s.freeMint(owner, 1),
			},
			reason: simReasonSoldOut, failed: 2,
		},
		{
			name:   "value above the balance",
			calls:  []rampway.Call{s.paidMint(200)},
			reason: simInsufficientFunds(s.addr, big.NewInt(simPayerWei), simWei(200)), failed: 0,
		},
		{
			name:   "balance spent by the calls before",
			calls:  []rampway.Call{s.paidMint(60), s.paidMint(60)},
			reason: simInsufficientFunds(s.addr, simWei(40), simWei(60)), failed: 1,
		},
		{
			name:   "value above the balance after three good calls",
			calls:  []rampway.Call{s.approve(simTokens(1)), s.tokenMint(1), s.paidMint(1), s.paidMint(100)},
			reason: simInsufficientFunds(s.addr, simWei(99), simWei(100)), failed: 3,
		},
		{
			name:   "revert before a call above the balance",
			calls:  []rampway.Call{s.paidMint(1), s.mint(1, simWei(2)), s.paidMint(200)},
			reason: simReasonWrongPayment, failed: 1,
		},
		{name: "gas limit enough", calls: []rampway.Call{simWithGas(s.paidMint(1), 200_000)}, failed: -1},
		{name: "gas limit too low", calls: []rampway.Call{s.paidMint(1), simWithGas(s.paidMint(1), 30_000)}, reason: "out of gas", failed: 1},
		{
			name: "gas limit below the intrinsic gas",
			// The intrinsic gas depends on the calldata's zero bytes: mint to a fixed address.
			calls:  []rampway.Call{s.paidMint(1), {To: s.c.NFT, Value: simWei(1), Data: s.nft.PackMint(bob, big.NewInt(1)), Gas: 1_000}},
			reason: "intrinsic gas too low: have 1000, want 21356", failed: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := tt.from
			if from == (common.Address{}) {
				from = s.addr
			}
			reason, failed, err := Simulate(t.Context(), s.ec, from, tt.calls)
			if err != nil {
				t.Fatalf("Simulate: %v", err)
			}
			if reason != tt.reason || failed != tt.failed {
				t.Errorf("Simulate = %q, %d; want %q, %d", reason, failed, tt.reason, tt.failed)
			}
		})
	}

	t.Run("gas limit above the block's", func(t *testing.T) {
		calls := []rampway.Call{s.paidMint(1), simWithGas(s.paidMint(1), 1<<40)}
		reason, failed, err := Simulate(t.Context(), s.ec, s.addr, calls)
		if err != nil {
			t.Fatal(err)
		}
		// The rest of the block's gas limit, in the reason, depends on the block.
		if want := "block gas limit reached: remaining: "; !strings.HasPrefix(reason, want) || failed != 1 {
			t.Errorf("Simulate = %q, %d; want %q..., 1", reason, failed, want)
		}
	})

	t.Run("leaves no trace", func(t *testing.T) {
		if n := s.totalMinted(t); n != 0 {
			t.Errorf("totalMinted = %d after simulations, want 0", n)
		}
		nonce, err := s.ec.PendingNonceAt(t.Context(), s.addr)
		if err != nil {
			t.Fatal(err)
		}
		if nonce != 0 {
			t.Errorf("payer's pending nonce = %d after simulations, want 0", nonce)
		}
	})
}

// simWithGas returns c with the gas limit gas.
func simWithGas(c rampway.Call, gas uint64) rampway.Call {
	c.Gas = gas
	return c
}

// TestSimulateOnLatestBlock checks that simulations see what is mined: an approve sent for
// real lets a token mint alone succeed.
func TestSimulateOnLatestBlock(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	mint := []rampway.Call{s.tokenMint(1)}
	if reason, failed, err := Simulate(t.Context(), s.ec, s.addr, mint); err != nil || reason != simReasonNoAllowance || failed != 0 {
		t.Fatalf("before approve: Simulate = %q, %d, %v; want %q, 0, nil", reason, failed, err, simReasonNoAllowance)
	}
	approve := s.approve(simTokens(1))
	tx := devchaintest.SignTx(t, s.ec, s.chain.ChainID(), s.payer, 0, approve.To, nil, approve.Data, 100_000)
	s.mineSent(t, []*types.Transaction{tx})
	simWaitReceipt(t, s.ec, tx.Hash())
	if reason, failed, err := Simulate(t.Context(), s.ec, s.addr, mint); err != nil || reason != "" || failed != -1 {
		t.Fatalf("after approve: Simulate = %q, %d, %v; want \"\", -1, nil", reason, failed, err)
	}
}

func simWaitReceipt(t *testing.T, ec *ethclient.Client, hash common.Hash) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r, err := ec.TransactionReceipt(t.Context(), hash)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("transaction %s failed", hash)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no receipt for %s: %v", hash, err)
		}
		time.Sleep(10 * time.Millisecond) // "transaction indexing is in progress" right after start
	}
}

// simErrorServer is a JSON-RPC server answering every request with the given error.
func simErrorServer(t *testing.T, code int, message string) *ethclient.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": code, "message": message},
		})
	}))
	t.Cleanup(srv.Close)
	ec, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	return ec
}

func TestSimulateNodeErrors(t *testing.T) {
	t.Parallel()
	calls := []rampway.Call{{To: common.HexToAddress("0x01"), Data: []byte{1, 2, 3, 4}}}
	tests := []struct {
		name        string
		code        int
		message     string
		unsupported bool
	}{
		{"go-ethereum without the method", -32601, "the method eth_simulateV1 does not exist/is not available", true},
		{"method not found", -32601, "Method not found", true},
		{"provider wording", -32000, "eth_simulateV1 is not supported on this network", true},
		{"provider unsupported method", -32602, "Unsupported method: eth_simulateV1", true},
		{"missing state", -32000, "missing trie node 0123 (path ) state 0x0123 is not available", false},
		{"internal error", -32603, "internal error", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec := simErrorServer(t, tt.code, tt.message)
			reason, failed, err := Simulate(t.Context(), ec, common.HexToAddress("0xaa"), calls)
			if err == nil {
				t.Fatalf("Simulate = %q, %d, nil; want an error", reason, failed)
			}
			if got := errors.Is(err, ErrSimulateUnsupported); got != tt.unsupported {
				t.Errorf("errors.Is(%v, ErrSimulateUnsupported) = %v, want %v", err, got, tt.unsupported)
			}
			if !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q does not quote the node's %q", err, tt.message)
			}
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		ec, err := ethclient.Dial(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer ec.Close()
		srv.Close()
		if _, _, err := Simulate(t.Context(), ec, common.HexToAddress("0xaa"), calls); err == nil || errors.Is(err, ErrSimulateUnsupported) {
			t.Errorf("Simulate on a closed server: err = %v, want a transport error", err)
		}
	})
}

func TestRevertReason(t *testing.T) {
	t.Parallel()
	errorString := func(s string) []byte {
		data := crypto.Keccak256([]byte("Error(string)"))[:4]
		data = append(data, common.LeftPadBytes([]byte{0x20}, 32)...)
		data = append(data, common.LeftPadBytes(big.NewInt(int64(len(s))).Bytes(), 32)...)
		return append(data, common.RightPadBytes([]byte(s), (len(s)+31)/32*32)...)
	}
	panicCode := func(code int64) []byte {
		return append(crypto.Keccak256([]byte("Panic(uint256)"))[:4], common.LeftPadBytes(big.NewInt(code).Bytes(), 32)...)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"no data", nil, "execution reverted"},
		{"Error(string)", errorString("DemoNFT: sold out"), simReasonSoldOut},
		{"Panic(0x11)", panicCode(0x11), "execution reverted: arithmetic underflow or overflow"},
		{"Panic unknown code", panicCode(0x99), "execution reverted: unknown panic code: 0x99"},
		{"custom error with arguments", append([]byte{0xfb, 0x8f, 0x41, 0xb2}, make([]byte, 96)...), simReasonNoAllowance},
		{"custom error without arguments", []byte{0x82, 0xb4, 0x29, 0x00}, "execution reverted: custom error 0x82b42900"},
		{"shorter than a selector", []byte{0xde, 0xad}, "execution reverted: 0xdead"},
		{"Error selector with bad data", errorString("x")[:10], "execution reverted: custom error 0x08c379a0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := revertReason(tt.data); got != tt.want {
				t.Errorf("revertReason(%x) = %q, want %q", tt.data, got, tt.want)
			}
		})
	}
}
