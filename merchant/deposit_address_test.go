package merchant_test

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/sqlite"
)

var _ merchant.DepositChains = (*chain.Networks)(nil)

// Addresses of the tests: the hot wallet, a token contract, an account, and a contract.
var (
	hotWallet = common.HexToAddress("0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc")
	tokenAddr = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	account   = common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	contractW = common.HexToAddress("0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9")
)

// fakeChains is one network, devnet (ETH, DUSD), whose contracts are those of code; simulate
// answers each simulated call (nil: every call succeeds).
type fakeChains struct {
	net      rampway.Network
	code     map[common.Address]bool
	codeErr  error
	simulate func(from common.Address, c rampway.Call) (string, error)
	calls    []rampway.Call
}

func newFakeChains() *fakeChains {
	return &fakeChains{net: rampway.Network{Name: "devnet", ChainID: big.NewInt(1337),
		Native: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18},
		Tokens: []rampway.Asset{{Symbol: "DUSD", Network: "devnet", Contract: tokenAddr, Decimals: 6}}},
		code: map[common.Address]bool{tokenAddr: true, contractW: true}}
}

func (c *fakeChains) Network(name string) (*rampway.Network, bool) {
	if name != c.net.Name {
		return nil, false
	}
	return &c.net, true
}

func (c *fakeChains) List() []*rampway.Network { return []*rampway.Network{&c.net} }

func (c *fakeChains) HasCode(_ context.Context, _ string, a common.Address) (bool, error) {
	return c.code[a], c.codeErr
}

func (c *fakeChains) Simulate(_ context.Context, _ string, from common.Address, calls []rampway.Call) (string, error) {
	c.calls = append(c.calls, calls...)
	if c.simulate == nil {
		return "", nil
	}
	return c.simulate(from, calls[0])
}

func openStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustCreate(t *testing.T, s *sqlstore.Store) *rampway.Merchant {
	t.Helper()
	m, err := merchant.NewService(s, merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef"}).Create(t.Context(), merchant.CreateParams{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantField(t *testing.T, err error, field, msg string) {
	t.Helper()
	var e *rampway.Error
	if !errors.As(err, &e) || e.Code != rampway.EINVALID || e.Field != field || !strings.Contains(e.Message, msg) {
		t.Fatalf("error %v, want EINVALID on %s saying %q", err, field, msg)
	}
}

func TestDepositAddressValidation(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	m := mustCreate(t, s)
	chains := newFakeChains()
	svc := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: hotWallet}, s, chains, nil)
	ctx := t.Context()
	for _, c := range []struct {
		name                     string
		network, symbol, address string
		field, msg               string
	}{
		{"no network", "", "ETH", account.Hex(), "network", "network is required"},
		{"unknown network", "sepolia", "ETH", account.Hex(), "network", `network "sepolia" is not configured (configured: devnet)`},
		{"network case", "DEVNET", "ETH", account.Hex(), "network", "is not configured"},
		{"no symbol", "devnet", "", account.Hex(), "symbol", "symbol is required"},
		{"unknown symbol", "devnet", "USDC", account.Hex(), "symbol", `symbol "USDC" is not an asset of network devnet (ETH, DUSD)`},
		{"symbol case", "devnet", "eth", account.Hex(), "symbol", "is not an asset"},
		{"no address", "devnet", "ETH", "", "address", "address is required"},
		{"not hex", "devnet", "ETH", "0x70997970C51812dc3A010C7d01b50e0d17dc79CZ", "address", "0x-prefixed 20-byte hex address"},
		{"short", "devnet", "ETH", "0x70997970c51812dc3a010c7d01b50e0d17dc79", "address", "0x-prefixed 20-byte hex address"},
		{"no 0x", "devnet", "ETH", "70997970c51812dc3a010c7d01b50e0d17dc79c8", "address", "0x-prefixed 20-byte hex address"},
		{"spaces", "devnet", "ETH", " " + account.Hex(), "address", "0x-prefixed 20-byte hex address"},
		{"bad checksum", "devnet", "ETH", "0x70997970C51812dc3A010C7d01b50e0d17dc79c8", "address", "wrong EIP-55 checksum"},
		{"zero", "devnet", "ETH", "0x0000000000000000000000000000000000000000", "address", "must not be the zero address"},
		{"hot wallet", "devnet", "DUSD", strings.ToLower(hotWallet.Hex()), "address", "is the service's hot wallet"},
		{"token's own contract", "devnet", "DUSD", tokenAddr.Hex(), "address", "is the DUSD token's own contract"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: c.network, Symbol: c.symbol, Address: c.address})
			wantField(t, err, c.field, c.msg)
		})
	}
	if list, err := svc.List(ctx, m.ID); err != nil || len(list) != 0 {
		t.Fatalf("refused addresses were stored: %v %v", list, err)
	}

	// Unknown merchants, for every use case.
	for _, id := range []string{"mch_00000000000000000000000000", "nope"} {
		_, err := svc.Set(ctx, id, merchant.DepositAddressParams{Network: "devnet", Symbol: "ETH", Address: account.Hex()})
		wantCode(t, err, rampway.ENOTFOUND)
		_, err = svc.List(ctx, id)
		wantCode(t, err, rampway.ENOTFOUND)
		_, err = svc.Get(ctx, id, "devnet", "ETH")
		wantCode(t, err, rampway.ENOTFOUND)
		wantCode(t, svc.Delete(ctx, id, "devnet", "ETH"), rampway.ENOTFOUND)
	}
	// A network that cannot be asked whether the address is a contract: 503, nothing stored.
	chains.codeErr = errors.New("connection refused")
	_, err := svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: "ETH", Address: account.Hex()})
	wantCode(t, err, rampway.EUNAVAILABLE)
	chains.codeErr = nil
	if len(chains.calls) != 0 {
		t.Fatalf("an account was tested with a simulation: %+v", chains.calls)
	}
}

func TestDepositAddressSetReplaceDelete(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	m := mustCreate(t, s)
	clock := time.Date(2026, 11, 25, 9, 0, 0, 123456789, time.UTC)
	svc := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: hotWallet}, s, newFakeChains(), func() time.Time { return clock })
	ctx := t.Context()
	// Lowercase and EIP-55 are both taken, and kept EIP-55.
	eth, err := svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: "ETH", Address: strings.ToLower(account.Hex())})
	if err != nil {
		t.Fatal(err)
	}
	if eth.Address != account || eth.MerchantID != m.ID || eth.Network != "devnet" || eth.Symbol != "ETH" ||
		!eth.CreatedAt.Equal(clock.Truncate(time.Microsecond)) || !eth.UpdatedAt.Equal(eth.CreatedAt) {
		t.Fatalf("set %+v", eth)
	}
	if _, err := svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: "DUSD", Address: account.Hex()}); err != nil {
		t.Fatal(err)
	}
	// Set again: replaced in place, created_at stays.
	first := eth.CreatedAt
	clock = clock.Add(time.Hour)
	other := common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")
	eth, err = svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: "ETH", Address: "0x" + strings.ToUpper(other.Hex()[2:])})
	if err != nil {
		t.Fatal(err)
	}
	if eth.Address != other || !eth.CreatedAt.Equal(first) || !eth.UpdatedAt.Equal(clock.Truncate(time.Microsecond)) {
		t.Fatalf("replaced %+v, want created %v", eth, first)
	}
	list, err := svc.List(ctx, m.ID)
	if err != nil || len(list) != 2 || list[0].Symbol != "DUSD" || list[1].Symbol != "ETH" || list[1].Address != other {
		t.Fatalf("list %+v %v", list, err)
	}
	if got, err := svc.Get(ctx, m.ID, "devnet", "ETH"); err != nil || got.Address != other || !got.CreatedAt.Equal(first) {
		t.Fatalf("get %+v %v", got, err)
	}
	if err := svc.Delete(ctx, m.ID, "devnet", "DUSD"); err != nil {
		t.Fatal(err)
	}
	err = svc.Delete(ctx, m.ID, "devnet", "DUSD")
	wantCode(t, err, rampway.ENOTFOUND)
	if rampway.ErrorMessage(err) != `Deposit address for "DUSD" on network "devnet" not found` {
		t.Fatalf("message %q", rampway.ErrorMessage(err))
	}
	_, err = svc.Get(ctx, m.ID, "devnet", "DUSD")
	wantCode(t, err, rampway.ENOTFOUND)
	// Deleting one that was never configured (a network since removed from the configuration):
	// not found, as any other.
	wantCode(t, svc.Delete(ctx, m.ID, "sepolia", "ETH"), rampway.ENOTFOUND)
}

// Payout, cached: a change through the same service applies at once; one made by another
// process (a second service on the same store: the admin CLI, another instance) within the
// TTL; an address not found is never kept.
func TestDepositAddressPayoutCache(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	m := mustCreate(t, s)
	ctx := t.Context()
	const ttl = time.Minute
	clk := devtest.NewClock(time.Now()) // the cache's: it moves only when the test moves it
	svc := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: hotWallet, PayoutCacheTTL: ttl}, s, newFakeChains(), clk.Now)
	other := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: hotWallet}, s, newFakeChains(), nil) // another process's
	payout := func() common.Address {
		t.Helper()
		a, err := svc.Payout(ctx, m.ID, "devnet", "ETH")
		if rampway.ErrorCode(err) == rampway.ENOTFOUND {
			return common.Address{}
		} else if err != nil {
			t.Fatal(err)
		}
		return a.Address
	}
	set := func(d *merchant.DepositAddresses, a common.Address) {
		t.Helper()
		if _, err := d.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: "ETH", Address: a.Hex()}); err != nil {
			t.Fatal(err)
		}
	}
	second := common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")
	third := common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")

	// None yet, and that is not kept: onboarded elsewhere, found at the next read.
	if got := payout(); got != (common.Address{}) {
		t.Fatalf("payout before onboarding %s", got.Hex())
	}
	set(other, account)
	if got := payout(); got != account {
		t.Fatalf("payout %s, want %s", got.Hex(), account.Hex())
	}
	// Replaced elsewhere: the cached one until the TTL is up, then the new one.
	set(other, second)
	clk.Advance(ttl - time.Microsecond)
	if got := payout(); got != account {
		t.Fatalf("payout within the TTL %s, want the cached %s", got.Hex(), account.Hex())
	}
	clk.Advance(time.Microsecond)
	if got := payout(); got != second {
		t.Fatalf("payout once the TTL is up %s, want %s", got.Hex(), second.Hex())
	}
	// Through this service: at once, replaced and deleted.
	set(svc, third)
	if got := payout(); got != third {
		t.Fatalf("payout after a replacement through the service %s, want %s", got.Hex(), third.Hex())
	}
	if err := svc.Delete(ctx, m.ID, "devnet", "ETH"); err != nil {
		t.Fatal(err)
	}
	if got := payout(); got != (common.Address{}) {
		t.Fatalf("payout after a delete through the service %s, want none", got.Hex())
	}
}

// A contract address is tested with a transfer from the hot wallet: 1 wei with no data, or the
// token's transfer of 1 base unit. A refusal names the address; a hot wallet that cannot make
// the transfer itself is the service's problem (503), not the merchant's.
func TestDepositAddressContractSimulated(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	m := mustCreate(t, s)
	chains := newFakeChains()
	svc := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: hotWallet}, s, chains, nil)
	ctx := t.Context()
	set := func(symbol string) error {
		_, err := svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: symbol, Address: contractW.Hex()})
		return err
	}

	// Accepted: one simulated call each, as area C would send it.
	if err := set("ETH"); err != nil {
		t.Fatal(err)
	}
	if err := set("DUSD"); err != nil {
		t.Fatal(err)
	}
	if len(chains.calls) != 2 {
		t.Fatalf("calls %+v", chains.calls)
	}
	native, token := chains.calls[0], chains.calls[1]
	if native.To != contractW || native.Value.Cmp(big.NewInt(1)) != 0 || len(native.Data) != 0 || native.Gas != merchant.DepositTransferGas {
		t.Fatalf("native test call %+v", native)
	}
	if token.To != tokenAddr || token.Value.Sign() != 0 || token.Gas != merchant.DepositTransferGas ||
		string(token.Data) != string(rampway.ERC20Call(rampway.SelTransfer, contractW, big.NewInt(1))) {
		t.Fatalf("token test call %+v", token)
	}

	// The contract refuses (the same transfer to the hot wallet goes through): 400 on address.
	chains.simulate = func(_ common.Address, c rampway.Call) (string, error) {
		if c.To == contractW || (c.To == tokenAddr && common.BytesToAddress(c.Data[4:36]) == contractW) {
			return "execution reverted: no deposits", nil
		}
		return "", nil
	}
	wantField(t, set("ETH"), "address", "is a contract that refuses a plain transfer of ETH on devnet (1 wei of ETH sent with no data, simulated: execution reverted: no deposits)")
	wantField(t, set("DUSD"), "address", "refuses a plain transfer of DUSD on devnet (a transfer of 1 base unit of DUSD")

	// The hot wallet cannot send the asset at all: 503 saying so.
	chains.simulate = func(common.Address, rampway.Call) (string, error) { return "", rampway.ErrInsufficientFunds }
	err := set("ETH")
	wantCode(t, err, rampway.EUNAVAILABLE)
	if msg := rampway.ErrorMessage(err); !strings.Contains(msg, "the hot wallet cannot send ETH on devnet (it holds none): fund it") {
		t.Fatalf("message %q", msg)
	}
	chains.simulate = func(common.Address, rampway.Call) (string, error) {
		return "execution reverted: custom error 0xe450d38c", nil // ERC20InsufficientBalance, to anyone
	}
	err = set("DUSD")
	wantCode(t, err, rampway.EUNAVAILABLE)
	if msg := rampway.ErrorMessage(err); !strings.Contains(msg, "the hot wallet cannot send DUSD on devnet (execution reverted: custom error 0xe450d38c)") {
		t.Fatalf("message %q", msg)
	}
	// A node that fails: 503.
	chains.simulate = func(common.Address, rampway.Call) (string, error) { return "", errors.New("timeout") }
	wantCode(t, set("ETH"), rampway.EUNAVAILABLE)

	// Nothing refused replaced what was accepted.
	list, err := svc.List(ctx, m.ID)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
}

// On the dev chain, simulated through chain.Networks as the server does: the demo NFT has no
// receive function, so it refuses ETH, but takes DUSD (an ERC-20 transfer does not call its
// recipient); Multicall3 refuses ETH too; a contract that accepts any call takes ETH; an
// account is taken without a simulation. Nothing is sent from the hot wallet.
func TestDepositAddressOnDevChain(t *testing.T) {
	t.Parallel()
	hotKey, _ := crypto.GenerateKey()
	deployerKey, _ := crypto.GenerateKey()
	hot, deployer := crypto.PubkeyToAddress(hotKey.PublicKey), crypto.PubkeyToAddress(deployerKey.PublicKey)
	eth := new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))
	c := devchaintest.Start(t, devchain.Funding{Address: hot, Wei: eth, TokenUnits: big.NewInt(1e9)}, devchain.Funding{Address: deployer, Wei: eth})
	nets, err := chain.Dial(t.Context(), []rampway.Network{c.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	ctx := t.Context()
	cl := c.Client()

	// A contract whose code is STOP: it takes any call, value and all.
	stop := crypto.CreateAddress(deployer, 0)
	tx := devchaintest.SignCreation(t, cl, c.ChainID(), deployerKey, 0, common.FromHex("0x6001600c60003960016000f300"), 100_000)
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Mine(); err != nil {
		t.Fatal(err)
	}
	if code, err := cl.CodeAt(ctx, stop, nil); err != nil || len(code) != 1 {
		t.Fatalf("code at %s: %x %v", stop.Hex(), code, err)
	}

	s := openStore(t)
	m := mustCreate(t, s)
	svc := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: hot}, s, nets, nil)
	set := func(symbol string, addr common.Address) error {
		_, err := svc.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: symbol, Address: addr.Hex()})
		return err
	}
	ct := c.Contracts()
	wantField(t, set("ETH", ct.NFT), "address", "address "+ct.NFT.Hex()+" is a contract that refuses a plain transfer of ETH on devnet (1 wei of ETH sent with no data, simulated: execution reverted)")
	wantField(t, set("ETH", ct.Multicall), "address", "is a contract that refuses a plain transfer of ETH")
	if err := set("DUSD", ct.NFT); err != nil {
		t.Fatalf("DUSD to the NFT contract: %v", err)
	}
	if err := set("ETH", stop); err != nil {
		t.Fatalf("ETH to a contract that takes it: %v", err)
	}
	fresh, _ := crypto.GenerateKey()
	if err := set("DUSD", crypto.PubkeyToAddress(fresh.PublicKey)); err != nil {
		t.Fatalf("an account: %v", err)
	}
	list, err := svc.List(ctx, m.ID)
	if err != nil || len(list) != 2 || list[0].Address != crypto.PubkeyToAddress(fresh.PublicKey) || list[1].Address != stop {
		t.Fatalf("list %+v %v", list, err)
	}
	if n, err := cl.PendingNonceAt(ctx, hot); err != nil || n != 0 {
		t.Fatalf("the hot wallet's nonce is %d (%v): a check sent a transaction", n, err)
	}

	// A hot wallet without DUSD or ETH cannot test a contract: 503, the address is not taken.
	empty, _ := crypto.GenerateKey()
	poor := merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: crypto.PubkeyToAddress(empty.PublicKey)}, s, nets, nil)
	for _, symbol := range []string{"DUSD", "ETH"} {
		_, err := poor.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: symbol, Address: stop.Hex()})
		wantCode(t, err, rampway.EUNAVAILABLE)
		if msg := rampway.ErrorMessage(err); !strings.Contains(msg, "the hot wallet cannot send "+symbol+" on devnet") {
			t.Fatalf("%s: %q", symbol, msg)
		}
	}
	// An account is taken whatever the hot wallet holds.
	if _, err := poor.Set(ctx, m.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: "ETH", Address: crypto.PubkeyToAddress(fresh.PublicKey).Hex()}); err != nil {
		t.Fatal(err)
	}
}
