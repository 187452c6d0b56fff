package devchain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
)

// feedState is what a PriceFeed answers.
type feedState struct {
	Description string
	Decimals    uint8
	Answer      int64
	Round       int64
	Owner       common.Address
}

func readFeed(t *testing.T, c *devchain.Chain, addr common.Address) feedState {
	t.Helper()
	f := bindings.NewPriceFeed()
	call := func(data []byte) []byte {
		t.Helper()
		out, err := c.Client().CallContract(context.Background(), ethereum.CallMsg{To: &addr, Data: data}, nil)
		if err != nil {
			t.Fatalf("call feed %s: %v", addr, err)
		}
		return out
	}
	var s feedState
	var err error
	if s.Description, err = f.UnpackDescription(call(f.PackDescription())); err != nil {
		t.Fatal(err)
	}
	if s.Decimals, err = f.UnpackDecimals(call(f.PackDecimals())); err != nil {
		t.Fatal(err)
	}
	round, err := f.UnpackLatestRoundData(call(f.PackLatestRoundData()))
	if err != nil {
		t.Fatal(err)
	}
	s.Answer, s.Round = round.Answer.Int64(), round.RoundId.Int64()
	if s.Owner, err = f.UnpackOwner(call(f.PackOwner())); err != nil {
		t.Fatal(err)
	}
	return s
}

// wantFeeds checks that the chain's three USD feeds answer their deployment parameters (the
// answers of answers instead, by symbol), owned by the deployer.
func wantFeeds(t *testing.T, c *devchain.Chain, deployer common.Address, answers map[string]int64) {
	t.Helper()
	feeds := c.Contracts().USDFeeds()
	if len(feeds) != 3 || feeds[0].Symbol != "ETH" || feeds[1].Symbol != "EUR" || feeds[2].Symbol != "GBP" ||
		feeds[0].Address != c.Contracts().PriceFeed {
		t.Fatalf("USDFeeds() = %+v", feeds)
	}
	seen := map[common.Address]bool{}
	for _, f := range feeds {
		if seen[f.Address] || f.Address == (common.Address{}) {
			t.Fatalf("%s feed at %s: zero or shared", f.Symbol, f.Address)
		}
		seen[f.Address] = true
		want := feedState{Description: f.Description, Decimals: devchain.PriceFeedDecimals, Answer: f.Answer, Round: 1, Owner: deployer}
		if a, ok := answers[f.Symbol]; ok {
			want.Answer, want.Round = a, 2
		}
		if got := readFeed(t, c, f.Address); got != want {
			t.Errorf("%s feed at %s: %+v, want %+v", f.Symbol, f.Address, got, want)
		}
	}
}

// A new chain has the ETH / USD, EUR / USD and GBP / USD feeds (8 decimals: 3000, 1.08, 1.27),
// owned by the deployer, at the addresses ContractAddresses says, before the token mints; the
// owner sets a new answer, nobody else does.
func TestFiatPriceFeeds(t *testing.T) {
	d := newDemo(t)
	deployer := addrOf(d.deployer)
	if d.addrs != devchain.ContractAddresses(deployer) {
		t.Fatalf("Contracts() = %+v, want ContractAddresses %+v", d.addrs, devchain.ContractAddresses(deployer))
	}
	if d.addrs.EURUSDFeed != crypto.CreateAddress(deployer, 4) || d.addrs.GBPUSDFeed != crypto.CreateAddress(deployer, 5) {
		t.Fatalf("fiat feeds at %s, %s: want the deployer's nonces 4 and 5", d.addrs.EURUSDFeed, d.addrs.GBPUSDFeed)
	}
	if devchain.EURUSDFeedAnswer != 108_000_000 || devchain.GBPUSDFeedAnswer != 127_000_000 || devchain.PriceFeedDecimals != 8 {
		t.Fatalf("fiat feed answers %d, %d", devchain.EURUSDFeedAnswer, devchain.GBPUSDFeedAnswer)
	}
	wantFeeds(t, d.chain, deployer, nil)
	if got := d.tokenBalance(t, addrOf(d.payer)); got.Int64() != payerTokens {
		t.Fatalf("payer DUSD %s, want %d", got, payerTokens)
	}
	d.wantRevert(t, d.payer, d.addrs.EURUSDFeed, nil, d.feed.PackSetAnswer(big.NewInt(1)), "")
	d.transact(t, d.deployer, d.addrs.EURUSDFeed, nil, d.feed.PackSetAnswer(big.NewInt(1_10000000)))
	wantFeeds(t, d.chain, deployer, map[string]int64{"EUR": 1_10000000})
}

// A data directory that a version before the fiat feeds made (its token mints at the
// deployer's nonces 4 and 5, where a new chain has the feeds, and the deployer's own
// transactions after) starts: the feeds it lacks are deployed at the deployer's next nonces,
// once; everything else stays as it was (block 1, the ETH feed's answer, the balances: nothing
// deployed or minted twice). The next start finds them there and sends nothing.
func TestOldDataDirGetsFiatFeeds(t *testing.T) {
	dir := t.TempDir()
	deployerKey, payer, hot := mustKey(t, deployerHex), mustKey(t, ""), mustKey(t, "")
	deployer := addrOf(deployerKey)
	cfg := devchain.Config{Deployer: deployerKey, BlockTime: -1, DataDir: dir, Fund: []devchain.Funding{
		{Address: addrOf(payer), Wei: ether(10), TokenUnits: big.NewInt(5_000_000)},
		{Address: addrOf(hot), Wei: ether(10), TokenUnits: big.NewInt(7_000_000)},
	}}
	old, err := devchain.StartV1(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := devchain.ContractAddresses(deployer)
	oldAddrs := old.Contracts()
	if oldAddrs.EURUSDFeed != (common.Address{}) || oldAddrs.GBPUSDFeed != (common.Address{}) ||
		oldAddrs.Token != base.Token || oldAddrs.PriceFeed != base.PriceFeed || oldAddrs.Multicall != base.Multicall || oldAddrs.NFT != base.NFT {
		t.Fatalf("old layout: %+v", oldAddrs)
	}
	// The old layout minted at nonces 4 and 5: no code where a new chain has its feeds.
	for _, a := range []common.Address{base.EURUSDFeed, base.GBPUSDFeed} {
		if code, err := old.Client().CodeAt(t.Context(), a, nil); err != nil || len(code) != 0 {
			t.Fatalf("old layout: code at %s (%d bytes, %v)", a, len(code), err)
		}
	}
	// The owner set the ETH price since (nonce 6).
	feed := bindings.NewPriceFeed()
	signSend(t, old, deployerKey, oldAddrs.PriceFeed, nil, feed.PackSetAnswer(big.NewInt(2500_00000000)))
	if _, err := old.Mine(); err != nil {
		t.Fatal(err)
	}
	block1, err := old.Client().HeaderByNumber(t.Context(), big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := old.Client().NonceAt(t.Context(), deployer, nil); err != nil || n != 7 {
		t.Fatalf("old layout: deployer nonce %d (%v), want 7", n, err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	// This version on the old directory: the feeds at the deployer's nonces 7 and 8.
	up, err := devchain.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := up.Contracts()
	want := oldAddrs
	want.EURUSDFeed, want.GBPUSDFeed = crypto.CreateAddress(deployer, 7), crypto.CreateAddress(deployer, 8)
	if got != want {
		t.Fatalf("upgraded Contracts() = %+v, want %+v", got, want)
	}
	wantFeeds(t, up, deployer, map[string]int64{"ETH": 2500_00000000})
	if b1, err := up.Client().HeaderByNumber(t.Context(), big.NewInt(1)); err != nil || b1.Hash() != block1.Hash() {
		t.Fatalf("block 1 after the upgrade: %v (%v), want %s", b1.Hash(), err, block1.Hash())
	}
	tokens := bindings.NewDemoToken()
	for who, units := range map[common.Address]int64{addrOf(payer): 5_000_000, addrOf(hot): 7_000_000} {
		out, err := up.Client().CallContract(t.Context(), ethereum.CallMsg{To: &got.Token, Data: tokens.PackBalanceOf(who)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bal, err := tokens.UnpackBalanceOf(out); err != nil || bal.Int64() != units {
			t.Fatalf("DUSD of %s after the upgrade: %v (%v), want %d (minted once)", who, bal, err, units)
		}
	}
	// The owner moves the EUR feed; then the directory is started again.
	signSend(t, up, deployerKey, got.EURUSDFeed, nil, feed.PackSetAnswer(big.NewInt(1_15000000)))
	if _, err := up.Mine(); err != nil {
		t.Fatal(err)
	}
	head, err := up.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Close(); err != nil {
		t.Fatal(err)
	}

	again := mustStart(t, t.Context(), cfg)
	if again.Contracts() != want {
		t.Fatalf("Contracts() on the next start = %+v, want %+v", again.Contracts(), want)
	}
	if h, err := again.Client().HeaderByNumber(t.Context(), nil); err != nil || h.Hash() != head.Hash() {
		t.Fatalf("the next start mined: head %v (%v), want %d %s", h.Number, err, head.Number, head.Hash())
	}
	if n, err := again.Client().NonceAt(t.Context(), deployer, nil); err != nil || n != 10 {
		t.Fatalf("deployer nonce %d (%v) on the next start, want 10: nothing sent", n, err)
	}
	wantFeeds(t, again, deployer, map[string]int64{"ETH": 2500_00000000, "EUR": 1_15000000})
}

// A data directory this version made starts again with its feeds where they were, sending
// nothing.
func TestNewDataDirKeepsFeeds(t *testing.T) {
	dir := t.TempDir()
	key := mustKey(t, deployerHex)
	cfg := devchain.Config{Deployer: key, BlockTime: -1, DataDir: dir,
		Fund: []devchain.Funding{{Address: addrOf(mustKey(t, "")), Wei: ether(1), TokenUnits: big.NewInt(1)}}}
	first, err := devchain.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	head, err := first.Client().HeaderByNumber(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := mustStart(t, t.Context(), cfg)
	if second.Contracts() != devchain.ContractAddresses(addrOf(key)) {
		t.Fatalf("Contracts() = %+v, want ContractAddresses", second.Contracts())
	}
	if h, err := second.Client().HeaderByNumber(t.Context(), nil); err != nil || h.Hash() != head.Hash() {
		t.Fatalf("the second start mined: head %v (%v), want %s", h.Number, err, head.Hash())
	}
	wantFeeds(t, second, addrOf(key), nil)
}
