package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain/bindings"
)

// Demo deployment parameters: what Start deploys. Other packages use them to configure the
// dev network's assets and prices.
const (
	// NFTName and NFTSymbol are the DemoNFT's ERC-721 name and symbol.
	NFTName   = "Rampway Demo NFT"
	NFTSymbol = "RDEMO"
	// NFTPriceWei is the DemoNFT price of one token in wei (0.01 ETH), paid to mint and mintIds.
	NFTPriceWei = 10_000_000_000_000_000
	// NFTTokenPrice is the DemoNFT price of one token in DemoToken base units (10 DUSD), paid
	// to mintWithToken.
	NFTTokenPrice = 10_000_000
	// NFTMaxSupply is the DemoNFT supply cap at deployment.
	NFTMaxSupply = 10_000

	// TokenName, TokenSymbol and TokenDecimals describe the DemoToken ERC-20.
	TokenName     = "Demo USD"
	TokenSymbol   = "DUSD"
	TokenDecimals = 6

	// PriceFeedDescription, PriceFeedDecimals and PriceFeedAnswer describe the PriceFeed:
	// ETH / USD at 3000.00000000 (8 decimals).
	PriceFeedDescription = "ETH / USD"
	PriceFeedDecimals    = 8
	PriceFeedAnswer      = 3000_00000000

	// EURUSDFeedDescription and EURUSDFeedAnswer describe the EUR / USD PriceFeed (1.08,
	// PriceFeedDecimals decimals); GBPUSDFeedDescription and GBPUSDFeedAnswer the GBP / USD
	// one (1.27).
	EURUSDFeedDescription = "EUR / USD"
	EURUSDFeedAnswer      = 1_08000000
	GBPUSDFeedDescription = "GBP / USD"
	GBPUSDFeedAnswer      = 1_27000000

	// NativeSymbol is the symbol of the dev chain's native coin.
	NativeSymbol = "ETH"
)

// deployerWei is the deployer's genesis balance (10,000 ETH): enough for deployments and for
// whatever the owner does afterwards.
func deployerWei() *big.Int {
	return new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))
}

// NFTABI returns the DemoNFT ABI as JSON.
func NFTABI() string { return bindings.DemoNFTMetaData.ABI }

// TokenABI returns the DemoToken ABI as JSON.
func TokenABI() string { return bindings.DemoTokenMetaData.ABI }

// PriceFeedABI returns the PriceFeed ABI as JSON.
func PriceFeedABI() string { return bindings.PriceFeedMetaData.ABI }

// MulticallABI returns the Multicall3 ABI as JSON.
func MulticallABI() string { return bindings.Multicall3MetaData.ABI }

// mintGas is the gas limit of a DemoToken mint. It is fixed because the mints go into the
// same block as the token's deployment, so they cannot be estimated beforehand (~70k used).
const mintGas = 150_000

// layout is the set of contracts a first start deploys: today's, or an older version's (for
// the tests of a data directory that version made).
type layout int

const (
	layoutCurrent layout = iota
	// layoutV1 is the versions before the fiat feeds: DemoToken, PriceFeed (ETH / USD),
	// Multicall3 and DemoNFT at nonces 0..3, then the token mints from nonce 4.
	layoutV1
)

// fiatFeed is a PriceFeed that came after the first four contracts: its parameters and its
// field of Contracts.
type fiatFeed struct {
	description string
	answer      int64
	addr        func(*Contracts) *common.Address
}

// fiatFeeds are deployed in this order, at nonceEURUSDFeed and nonceGBPUSDFeed on a new chain.
var fiatFeeds = []fiatFeed{
	{EURUSDFeedDescription, EURUSDFeedAnswer, func(c *Contracts) *common.Address { return &c.EURUSDFeed }},
	{GBPUSDFeedDescription, GBPUSDFeedAnswer, func(c *Contracts) *common.Address { return &c.GBPUSDFeed }},
}

// feedCreation is the creation code of a PriceFeed of PriceFeedDecimals decimals.
func feedCreation(description string, answer int64) []byte {
	return creation(bindings.PriceFeedMetaData.Bin,
		bindings.NewPriceFeed().PackConstructor(PriceFeedDecimals, description, big.NewInt(answer)))
}

// creation is a contract's creation code (hex bin) followed by its constructor's arguments.
func creation(bin string, args []byte) []byte {
	return append(common.FromHex(bin), args...)
}

// deploy sends the six deployments (four with layoutV1) and the token mints from the deployer
// (nonces 0, 1, ...), mines them (normally in one block, so that block timestamps do not run
// ahead of the wall clock) and checks every receipt. On a chain started again (the deployer's
// nonce is not 0) it checks the contracts instead, and deploys the fiat feeds a chain made by
// an older version lacks (see resume).
func (c *Chain) deploy(ctx context.Context, key *ecdsa.PrivateKey, fund []Funding, lay layout) (Contracts, error) {
	b, err := c.newBatch(ctx, key)
	if err != nil {
		return Contracts{}, err
	}
	want := ContractAddresses(b.from)
	if b.nonce != nonceToken {
		if lay != layoutCurrent {
			return Contracts{}, errors.New("devchain: an older layout is only deployed on a new chain")
		}
		return c.resume(ctx, b, want)
	}

	if err := b.send(ctx, "deploy DemoToken", nil, creation(bindings.DemoTokenMetaData.Bin, nil), 0); err != nil {
		return Contracts{}, err
	}
	if err := b.send(ctx, "deploy PriceFeed", nil, feedCreation(PriceFeedDescription, PriceFeedAnswer), 0); err != nil {
		return Contracts{}, err
	}
	if err := b.send(ctx, "deploy Multicall3", nil, creation(bindings.Multicall3MetaData.Bin, nil), 0); err != nil {
		return Contracts{}, err
	}
	if err := b.send(ctx, "deploy DemoNFT", nil, creation(bindings.DemoNFTMetaData.Bin,
		bindings.NewDemoNFT().PackConstructor(NFTName, NFTSymbol, big.NewInt(NFTPriceWei),
			want.Token, big.NewInt(NFTTokenPrice), big.NewInt(NFTMaxSupply))), 0); err != nil {
		return Contracts{}, err
	}
	check := want.named()
	if lay == layoutCurrent {
		for _, f := range fiatFeeds {
			if at := crypto.CreateAddress(b.from, b.nonce); at != *f.addr(&want) {
				return Contracts{}, fmt.Errorf("devchain: the %s feed would go to %s, not %s", f.description, at, *f.addr(&want))
			}
			if err := b.send(ctx, "deploy "+f.description+" PriceFeed", nil, feedCreation(f.description, f.answer), 0); err != nil {
				return Contracts{}, err
			}
		}
	} else {
		for _, f := range fiatFeeds {
			delete(check, f.description)
			*f.addr(&want) = common.Address{}
		}
	}
	token := bindings.NewDemoToken()
	for _, f := range fund {
		if f.TokenUnits == nil || f.TokenUnits.Sign() == 0 {
			continue
		}
		what := fmt.Sprintf("mint %s DUSD units to %s", f.TokenUnits, f.Address)
		if err := b.send(ctx, what, &want.Token, token.PackMint(f.Address, f.TokenUnits), mintGas); err != nil {
			return Contracts{}, err
		}
	}
	if err := b.mine(ctx); err != nil {
		return Contracts{}, err
	}
	if err := c.checkCode(ctx, check); err != nil {
		return Contracts{}, err
	}
	return want, nil
}

// resume checks the contracts of a chain started again on its data directory and returns
// their addresses. The first four went in with the first block, all of them or none, at the
// addresses of ContractAddresses. So did the fiat feeds on a chain this version made; a chain
// an older version made has them once this version started it (at the deployer's nonces of
// that start, after the token mints and whatever else the deployer had sent): resume finds
// them where they are, and deploys those still missing at the deployer's next nonces.
func (c *Chain) resume(ctx context.Context, b *batch, want Contracts) (Contracts, error) {
	base := want.named()
	for _, f := range fiatFeeds {
		delete(base, f.description)
	}
	if err := c.checkCode(ctx, base); err != nil {
		return Contracts{}, fmt.Errorf("devchain: the deployer's nonce is %d but the demo contracts are not all there: %w", b.nonce, err)
	}
	found, err := c.findFeeds(ctx, b.from, b.nonce)
	if err != nil {
		return Contracts{}, err
	}
	got := want
	for _, f := range fiatFeeds {
		if addr, ok := found[f.description]; ok {
			*f.addr(&got) = addr
			continue
		}
		addr := crypto.CreateAddress(b.from, b.nonce)
		if err := b.send(ctx, "deploy "+f.description+" PriceFeed", nil, feedCreation(f.description, f.answer), 0); err != nil {
			return Contracts{}, err
		}
		*f.addr(&got) = addr
		c.log.Info("dev chain: deployed a price feed that the chain, made by an older version, lacked",
			"feed", f.description, "address", addr)
	}
	if len(b.hashes) > 0 {
		if err := b.mine(ctx); err != nil {
			return Contracts{}, err
		}
	}
	if err := c.checkCode(ctx, got.named()); err != nil {
		return Contracts{}, err
	}
	return got, nil
}

// findFeeds returns the fiat feeds, by description, among the contracts the deployer created
// from nonceEURUSDFeed up to (not including) nonce next: the first feed of each description.
// A chain this version made has them at once (nonces 4 and 5); on one an older version made,
// the scan passes the mints and calls the deployer sent before (no code at their addresses).
func (c *Chain) findFeeds(ctx context.Context, from common.Address, next uint64) (map[string]common.Address, error) {
	feed := bindings.NewPriceFeed()
	out := map[string]common.Address{}
	for n := uint64(nonceEURUSDFeed); n < next && len(out) < len(fiatFeeds); n++ {
		addr := crypto.CreateAddress(from, n)
		code, err := c.client.CodeAt(ctx, addr, nil)
		if err != nil {
			return nil, fmt.Errorf("devchain: read code at %s: %w", addr, err)
		}
		if len(code) == 0 {
			continue // not a creation
		}
		res, err := c.client.CallContract(ctx, ethereum.CallMsg{To: &addr, Data: feed.PackDescription()}, nil)
		if err != nil {
			continue // a contract without description(): not a feed
		}
		desc, err := feed.UnpackDescription(res)
		if err != nil {
			continue
		}
		for _, f := range fiatFeeds {
			if _, seen := out[desc]; !seen && f.description == desc {
				out[desc] = addr
			}
		}
	}
	return out, nil
}

// batch sends the deployer's transactions at consecutive nonces, from its pending nonce, and
// mines them.
type batch struct {
	client  Backend
	chainID *big.Int
	// mineFn mines a block (the embedded chain); nil waits for the node's own blocks.
	mineFn func() error
	key    *ecdsa.PrivateKey
	from   common.Address
	nonce  uint64 // the next transaction's
	tip    *big.Int
	feeCap *big.Int
	signer types.Signer
	hashes []common.Hash
}

func (c *Chain) newBatch(ctx context.Context, key *ecdsa.PrivateKey) (*batch, error) {
	return newBatch(ctx, c.client, c.chainID, func() error { _, err := c.Mine(); return err }, key)
}

// newBatch starts a batch of key's transactions on the chain behind client.
func newBatch(ctx context.Context, client Backend, chainID *big.Int, mine func() error, key *ecdsa.PrivateKey) (*batch, error) {
	b := &batch{client: client, chainID: chainID, mineFn: mine, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
		signer: types.LatestSignerForChainID(chainID)}
	var err error
	if b.nonce, err = client.PendingNonceAt(ctx, b.from); err != nil {
		return nil, fmt.Errorf("devchain: read deployer nonce: %w", err)
	}
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("devchain: read head: %w", err)
	}
	if b.tip, err = client.SuggestGasTipCap(ctx); err != nil {
		return nil, fmt.Errorf("devchain: suggest gas tip: %w", err)
	}
	b.feeCap = new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), b.tip)
	return b, nil
}

// send signs and sends a transaction at the next nonce; gas 0 estimates it.
func (b *batch) send(ctx context.Context, what string, to *common.Address, data []byte, gas uint64) error {
	if gas == 0 {
		var err error
		gas, err = b.client.EstimateGas(ctx, ethereum.CallMsg{From: b.from, To: to, Data: data})
		if err != nil {
			return fmt.Errorf("devchain: estimate gas to %s: %w", what, err)
		}
		// Generous margin: on a new chain estimation runs on the genesis header, whose
		// timestamp is 0, so a constructor storing block.timestamp (PriceFeed) writes a zero
		// slot there (cheap) but a non-zero one when mined (+20k gas per slot).
		gas += gas/2 + 50_000
	}
	tx, err := types.SignNewTx(b.key, b.signer, &types.DynamicFeeTx{
		ChainID:   b.chainID,
		Nonce:     b.nonce,
		GasTipCap: b.tip,
		GasFeeCap: b.feeCap,
		Gas:       gas,
		To:        to,
		Data:      data,
	})
	if err != nil {
		return fmt.Errorf("devchain: sign %s: %w", what, err)
	}
	if err := b.client.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("devchain: send %s: %w", what, err)
	}
	b.nonce++
	b.hashes = append(b.hashes, tx.Hash())
	return nil
}

// mine mines until the batch's last transaction is in, normally one block (more blocks run
// the timestamps ahead of the wall clock, a second per block), and checks every receipt.
func (b *batch) mine(ctx context.Context) error {
	for blocks := 0; b.mineFn != nil; blocks++ {
		if err := b.mineFn(); err != nil {
			return err
		}
		mined, err := b.client.NonceAt(ctx, b.from, nil)
		if err != nil {
			return fmt.Errorf("devchain: read deployer nonce: %w", err)
		}
		if mined == b.nonce {
			break
		}
		if blocks > len(b.hashes) {
			return fmt.Errorf("devchain: %d deployment transactions not mined", b.nonce-mined)
		}
	}
	for i, h := range b.hashes {
		r, err := waitReceipt(ctx, b.client, h)
		if err != nil {
			return fmt.Errorf("devchain: deployment transaction %d (%s): %w", i, h, err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return fmt.Errorf("devchain: deployment transaction %d (%s) reverted", i, h)
		}
	}
	return nil
}

// named is c by contract name (the fiat feeds by description), for checkCode.
func (c Contracts) named() map[string]common.Address {
	return map[string]common.Address{
		"DemoNFT": c.NFT, "DemoToken": c.Token, "PriceFeed": c.PriceFeed, "Multicall3": c.Multicall,
		EURUSDFeedDescription: c.EURUSDFeed, GBPUSDFeedDescription: c.GBPUSDFeed,
	}
}

// checkCode checks that every contract of want has code at its address.
func (c *Chain) checkCode(ctx context.Context, want map[string]common.Address) error {
	for name, addr := range want {
		code, err := c.client.CodeAt(ctx, addr, nil)
		if err != nil {
			return fmt.Errorf("devchain: read %s code: %w", name, err)
		}
		if len(code) == 0 {
			return fmt.Errorf("devchain: %s has no code at %s", name, addr)
		}
	}
	return nil
}

// receiptReader is the part of a client that waitReceipt needs.
type receiptReader interface {
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// waitReceipt polls for the receipt of hash every 10 ms until ctx ends or 3 minutes have
// passed (a remote chain mines every few seconds).
// It retries on any error: right after start, go-ethereum answers "transaction indexing is
// in progress" for a while.
func waitReceipt(ctx context.Context, client receiptReader, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	for {
		r, err := client.TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), err)
		case <-ticker.C:
		}
	}
}
