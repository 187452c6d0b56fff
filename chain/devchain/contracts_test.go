package devchain_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
)

// demo is a manually mined chain with a payer funded in ETH and DUSD.
type demo struct {
	chain    *devchain.Chain
	deployer *ecdsa.PrivateKey
	payer    *ecdsa.PrivateKey
	addrs    devchain.Contracts
	nft      *bindings.DemoNFT
	token    *bindings.DemoToken
	feed     *bindings.PriceFeed
	mc       *bindings.Multicall3
}

const payerTokens = 1_000 * 1_000_000 // 1,000 DUSD

func newDemo(t *testing.T) *demo {
	t.Helper()
	d := &demo{deployer: mustKey(t, deployerHex), payer: mustKey(t, "")}
	d.chain = mustStart(t, t.Context(), devchain.Config{
		BlockTime: -1,
		Deployer:  d.deployer,
		Fund: []devchain.Funding{{
			Address:    crypto.PubkeyToAddress(d.payer.PublicKey),
			Wei:        ether(100),
			TokenUnits: big.NewInt(payerTokens),
		}},
	})
	d.addrs = d.chain.Contracts()
	d.nft, d.token, d.feed, d.mc = bindings.NewDemoNFT(), bindings.NewDemoToken(), bindings.NewPriceFeed(), bindings.NewMulticall3()
	return d
}

func addrOf(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// transact sends a transaction (gas estimated, so a reverting call fails the test), mines it
// and returns its successful receipt.
func (d *demo) transact(t *testing.T, from *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	tx := mustSendTx(t, d.chain.Client(), from, &to, value, data, 0)
	if _, err := d.chain.Mine(); err != nil {
		t.Fatal(err)
	}
	r := waitReceiptWithin(t, d.chain.Client(), tx.Hash(), time.Minute)
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction to %s reverted", to)
	}
	return r
}

// call does an eth_call from `from` and returns the raw result or the error.
func (d *demo) call(from common.Address, to common.Address, value *big.Int, data []byte) ([]byte, error) {
	return d.chain.Client().CallContract(context.Background(), ethereum.CallMsg{From: from, To: &to, Value: value, Data: data}, nil)
}

// mustCall is call for calls that must succeed, unpacked by unpack.
func mustCall[T any](t *testing.T, d *demo, to common.Address, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	out, err := d.call(common.Address{}, to, nil, data)
	if err != nil {
		t.Fatalf("call %s: %v", to, err)
	}
	v, err := unpack(out)
	if err != nil {
		t.Fatalf("unpack call to %s: %v", to, err)
	}
	return v
}

// wantRevert checks that a call reverts with a message containing reason.
func (d *demo) wantRevert(t *testing.T, from *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte, reason string) {
	t.Helper()
	_, err := d.call(addrOf(from), to, value, data)
	if err == nil {
		t.Fatalf("call succeeded, want revert %q", reason)
	}
	if !strings.Contains(err.Error(), "execution reverted") || !strings.Contains(err.Error(), reason) {
		t.Fatalf("call error = %v, want revert %q", err, reason)
	}
}

func (d *demo) ownerOf(t *testing.T, id int64) common.Address {
	t.Helper()
	return mustCall(t, d, d.addrs.NFT, d.nft.PackOwnerOf(big.NewInt(id)), d.nft.UnpackOwnerOf)
}

func (d *demo) totalMinted(t *testing.T) *big.Int {
	t.Helper()
	return mustCall(t, d, d.addrs.NFT, d.nft.PackTotalMinted(), d.nft.UnpackTotalMinted)
}

func (d *demo) tokenBalance(t *testing.T, who common.Address) *big.Int {
	t.Helper()
	return mustCall(t, d, d.addrs.Token, d.token.PackBalanceOf(who), d.token.UnpackBalanceOf)
}

func price(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(devchain.NFTPriceWei), big.NewInt(n))
}

func TestDemoContracts(t *testing.T) {
	d := newDemo(t)
	payer := addrOf(d.payer)
	alice := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob := common.HexToAddress("0x0000000000000000000000000000000000000b0b")

	t.Run("deployment parameters", func(t *testing.T) {
		checks := []struct {
			name      string
			got, want any
		}{
			{"nft price", mustCall(t, d, d.addrs.NFT, d.nft.PackPrice(), d.nft.UnpackPrice).String(), price(1).String()},
			{"nft token price", mustCall(t, d, d.addrs.NFT, d.nft.PackTokenPrice(), d.nft.UnpackTokenPrice).Int64(), int64(devchain.NFTTokenPrice)},
			{"nft max supply", mustCall(t, d, d.addrs.NFT, d.nft.PackMaxSupply(), d.nft.UnpackMaxSupply).Int64(), int64(devchain.NFTMaxSupply)},
			{"nft payment token", mustCall(t, d, d.addrs.NFT, d.nft.PackPaymentToken(), d.nft.UnpackPaymentToken), d.addrs.Token},
			{"nft symbol", mustCall(t, d, d.addrs.NFT, d.nft.PackSymbol(), d.nft.UnpackSymbol), devchain.NFTSymbol},
			{"nft owner", mustCall(t, d, d.addrs.NFT, d.nft.PackOwner(), d.nft.UnpackOwner), addrOf(d.deployer)},
			{"token symbol", mustCall(t, d, d.addrs.Token, d.token.PackSymbol(), d.token.UnpackSymbol), devchain.TokenSymbol},
			{"token name", mustCall(t, d, d.addrs.Token, d.token.PackName(), d.token.UnpackName), devchain.TokenName},
			{"token decimals", mustCall(t, d, d.addrs.Token, d.token.PackDecimals(), d.token.UnpackDecimals), uint8(devchain.TokenDecimals)},
			{"payer tokens", d.tokenBalance(t, payer).Int64(), int64(payerTokens)},
			{"feed decimals", mustCall(t, d, d.addrs.PriceFeed, d.feed.PackDecimals(), d.feed.UnpackDecimals), uint8(devchain.PriceFeedDecimals)},
			{"feed description", mustCall(t, d, d.addrs.PriceFeed, d.feed.PackDescription(), d.feed.UnpackDescription), devchain.PriceFeedDescription},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
			}
		}
	})

	t.Run("native mint", func(t *testing.T) {
		d.transact(t, d.payer, d.addrs.NFT, price(2), d.nft.PackMint(alice, big.NewInt(2)))
		for _, id := range []int64{1, 2} {
			if got := d.ownerOf(t, id); got != alice {
				t.Errorf("ownerOf(%d) = %s, want %s", id, got, alice)
			}
		}
		if got := d.totalMinted(t); got.Int64() != 2 {
			t.Errorf("totalMinted = %s, want 2", got)
		}
		bal, err := d.chain.Client().BalanceAt(t.Context(), d.addrs.NFT, nil)
		if err != nil || bal.Cmp(price(2)) != 0 {
			t.Errorf("NFT contract balance = %s (%v), want %s", bal, err, price(2))
		}
	})

	t.Run("wrong payment", func(t *testing.T) {
		tests := []struct {
			name  string
			value *big.Int
			data  []byte
		}{
			{"mint without value", nil, d.nft.PackMint(alice, big.NewInt(1))},
			{"mint underpaid", new(big.Int).Sub(price(1), big.NewInt(1)), d.nft.PackMint(alice, big.NewInt(1))},
			{"mint overpaid", price(2), d.nft.PackMint(alice, big.NewInt(1))},
			{"mintIds underpaid", price(1), d.nft.PackMintIds(alice, []*big.Int{big.NewInt(50), big.NewInt(51)})},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				d.wantRevert(t, d.payer, d.addrs.NFT, tt.value, tt.data, "DemoNFT: wrong payment")
			})
		}

		// The same revert mined (gas given, not estimated): the receipt says failed.
		tx := mustSendTx(t, d.chain.Client(), d.payer, &d.addrs.NFT, nil, d.nft.PackMint(alice, big.NewInt(1)), 300_000)
		if _, err := d.chain.Mine(); err != nil {
			t.Fatal(err)
		}
		if r := waitReceiptWithin(t, d.chain.Client(), tx.Hash(), time.Minute); r.Status != types.ReceiptStatusFailed {
			t.Errorf("mined wrong-payment mint: status %d, want failed", r.Status)
		}
	})

	t.Run("mintIds", func(t *testing.T) {
		d.transact(t, d.payer, d.addrs.NFT, price(2), d.nft.PackMintIds(bob, []*big.Int{big.NewInt(100), big.NewInt(3)}))
		for _, id := range []int64{100, 3} {
			if got := d.ownerOf(t, id); got != bob {
				t.Errorf("ownerOf(%d) = %s, want %s", id, got, bob)
			}
		}
		d.wantRevert(t, d.payer, d.addrs.NFT, price(1), d.nft.PackMintIds(bob, []*big.Int{big.NewInt(100)}),
			"DemoNFT: token already minted")
		// Sequential mints skip the ids taken by mintIds (3 here).
		d.transact(t, d.payer, d.addrs.NFT, price(1), d.nft.PackMint(alice, big.NewInt(1)))
		if got := d.ownerOf(t, 4); got != alice {
			t.Errorf("ownerOf(4) = %s, want %s (id 3 skipped)", got, alice)
		}
	})

	t.Run("mintWithToken after approve", func(t *testing.T) {
		cost := big.NewInt(2 * devchain.NFTTokenPrice)
		d.wantRevert(t, d.payer, d.addrs.NFT, nil, d.nft.PackMintWithToken(bob, big.NewInt(2)), "")
		before := d.tokenBalance(t, payer)
		d.transact(t, d.payer, d.addrs.Token, nil, d.token.PackApprove(d.addrs.NFT, cost))
		minted := d.totalMinted(t)
		d.transact(t, d.payer, d.addrs.NFT, nil, d.nft.PackMintWithToken(bob, big.NewInt(2)))
		if got := new(big.Int).Sub(before, d.tokenBalance(t, payer)); got.Cmp(cost) != 0 {
			t.Errorf("payer paid %s DUSD units, want %s", got, cost)
		}
		if got := d.tokenBalance(t, d.addrs.NFT); got.Cmp(cost) != 0 {
			t.Errorf("NFT contract holds %s DUSD units, want %s", got, cost)
		}
		if got := new(big.Int).Sub(d.totalMinted(t), minted); got.Int64() != 2 {
			t.Errorf("minted %s, want 2", got)
		}
	})

	t.Run("freeMint", func(t *testing.T) {
		minted := d.totalMinted(t)
		r := d.transact(t, d.payer, d.addrs.NFT, nil, d.nft.PackFreeMint(alice, big.NewInt(1)))
		if got := new(big.Int).Sub(d.totalMinted(t), minted); got.Int64() != 1 {
			t.Errorf("minted %s, want 1", got)
		}
		if len(r.Logs) == 0 {
			t.Error("freeMint emitted no logs")
		}
		d.wantRevert(t, d.payer, d.addrs.NFT, big.NewInt(1), d.nft.PackFreeMint(alice, big.NewInt(1)), "") // non-payable
	})

	t.Run("price feed", func(t *testing.T) {
		round := mustCall(t, d, d.addrs.PriceFeed, d.feed.PackLatestRoundData(), d.feed.UnpackLatestRoundData)
		if round.Answer.Int64() != devchain.PriceFeedAnswer || round.RoundId.Int64() != 1 || round.UpdatedAt.Sign() == 0 {
			t.Errorf("latestRoundData = %+v, want round 1 answer %d", round, devchain.PriceFeedAnswer)
		}
		d.wantRevert(t, d.payer, d.addrs.PriceFeed, nil, d.feed.PackSetAnswer(big.NewInt(1)), "")
		d.transact(t, d.deployer, d.addrs.PriceFeed, nil, d.feed.PackSetAnswer(big.NewInt(2500_00000000)))
		round = mustCall(t, d, d.addrs.PriceFeed, d.feed.PackLatestRoundData(), d.feed.UnpackLatestRoundData)
		if round.Answer.Int64() != 2500_00000000 || round.RoundId.Int64() != 2 {
			t.Errorf("latestRoundData after setAnswer = %+v", round)
		}
		first := mustCall(t, d, d.addrs.PriceFeed, d.feed.PackGetRoundData(big.NewInt(1)), d.feed.UnpackGetRoundData)
		if first.Answer.Int64() != devchain.PriceFeedAnswer {
			t.Errorf("getRoundData(1) = %+v", first)
		}
		d.wantRevert(t, d.payer, d.addrs.PriceFeed, nil, d.feed.PackGetRoundData(big.NewInt(9)), "No data present")
	})

	t.Run("multicall", func(t *testing.T) {
		want, err := d.chain.Client().BalanceAt(t.Context(), payer, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := mustCall(t, d, d.addrs.Multicall, d.mc.PackGetEthBalance(payer), d.mc.UnpackGetEthBalance)
		if got.Cmp(want) != 0 {
			t.Errorf("getEthBalance = %s, want %s", got, want)
		}
		results := mustCall(t, d, d.addrs.Multicall, d.mc.PackAggregate3([]bindings.Multicall3Call3{
			{Target: d.addrs.Multicall, CallData: d.mc.PackGetEthBalance(d.addrs.NFT)},
			{Target: d.addrs.Token, CallData: d.token.PackBalanceOf(payer)},
			{Target: d.addrs.NFT, AllowFailure: true, CallData: d.nft.PackOwnerOf(big.NewInt(9999))},
		}), d.mc.UnpackAggregate3)
		if len(results) != 3 || !results[0].Success || !results[1].Success || results[2].Success {
			t.Fatalf("aggregate3 = %+v", results)
		}
		if nftBal, _ := d.mc.UnpackGetEthBalance(results[0].ReturnData); nftBal.Sign() == 0 {
			t.Errorf("aggregate3 getEthBalance(NFT) = %v, want > 0", nftBal)
		}
		bn := mustCall(t, d, d.addrs.Multicall, d.mc.PackGetBlockNumber(), d.mc.UnpackGetBlockNumber)
		if head, _ := d.chain.Client().BlockNumber(t.Context()); bn.Uint64() < head {
			t.Errorf("getBlockNumber = %s, head %d", bn, head)
		}
	})

	t.Run("withdraw", func(t *testing.T) {
		to := common.HexToAddress("0x000000000000000000000000000000000000d00d")
		eth, err := d.chain.Client().BalanceAt(t.Context(), d.addrs.NFT, nil)
		if err != nil {
			t.Fatal(err)
		}
		tokens := d.tokenBalance(t, d.addrs.NFT)
		d.wantRevert(t, d.payer, d.addrs.NFT, nil, d.nft.PackWithdraw(to), "")
		d.transact(t, d.deployer, d.addrs.NFT, nil, d.nft.PackWithdraw(to))
		if got, _ := d.chain.Client().BalanceAt(t.Context(), to, nil); got.Cmp(eth) != 0 || eth.Sign() == 0 {
			t.Errorf("withdrawn ETH = %s, want %s", got, eth)
		}
		if got := d.tokenBalance(t, to); got.Cmp(tokens) != 0 || tokens.Sign() == 0 {
			t.Errorf("withdrawn DUSD = %s, want %s", got, tokens)
		}
	})

	t.Run("sold out", func(t *testing.T) {
		minted := d.totalMinted(t)
		d.wantRevert(t, d.payer, d.addrs.NFT, nil, d.nft.PackSetMaxSupply(minted), "") // not the owner
		d.transact(t, d.deployer, d.addrs.NFT, nil, d.nft.PackSetMaxSupply(minted))
		tests := []struct {
			name  string
			value *big.Int
			data  []byte
		}{
			{"mint", price(1), d.nft.PackMint(alice, big.NewInt(1))},
			{"mintIds", price(1), d.nft.PackMintIds(alice, []*big.Int{big.NewInt(777)})},
			{"freeMint", nil, d.nft.PackFreeMint(alice, big.NewInt(1))},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				d.wantRevert(t, d.payer, d.addrs.NFT, tt.value, tt.data, "DemoNFT: sold out")
			})
		}
		d.wantRevert(t, d.deployer, d.addrs.NFT, nil, d.nft.PackSetMaxSupply(new(big.Int).Sub(minted, big.NewInt(1))),
			"DemoNFT: below minted")
	})
}
