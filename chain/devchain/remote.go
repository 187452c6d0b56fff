package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain/bindings"
)

// Backend is a node the demo contracts are deployed through: *ethclient.Client is one, and so
// is the embedded chain's client.
type Backend interface {
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	CodeAt(ctx context.Context, account common.Address, block *big.Int) ([]byte, error)
}

// DeployTo deploys the demo contracts to the chain behind client from key (which pays their
// gas): DemoToken, the ETH/USD PriceFeed, Multicall3, DemoNFT (priced in ETH and in DUSD),
// the EUR/USD and GBP/USD feeds, then DUSD minted to fund's TokenUnits. The addresses follow
// from the deployer's nonce at the start (any chain, any history). Each transaction is sent
// at the next nonce and every receipt waited for; a revert is an error.
func DeployTo(ctx context.Context, client Backend, chainID *big.Int, key *ecdsa.PrivateKey, fund []Funding) (Contracts, error) {
	b, err := newBatch(ctx, client, chainID, nil, key)
	if err != nil {
		return Contracts{}, err
	}
	at := func(n uint64) common.Address { return crypto.CreateAddress(b.from, b.nonce+n) }
	c := Contracts{Token: at(0), PriceFeed: at(1), Multicall: at(2), NFT: at(3), EURUSDFeed: at(4), GBPUSDFeed: at(5)}
	for _, d := range []struct {
		what string
		code []byte
	}{
		{"deploy DemoToken", creation(bindings.DemoTokenMetaData.Bin, nil)},
		{"deploy PriceFeed", feedCreation(PriceFeedDescription, PriceFeedAnswer)},
		{"deploy Multicall3", creation(bindings.Multicall3MetaData.Bin, nil)},
		{"deploy DemoNFT", creation(bindings.DemoNFTMetaData.Bin, bindings.NewDemoNFT().PackConstructor(NFTName, NFTSymbol,
			big.NewInt(NFTPriceWei), c.Token, big.NewInt(NFTTokenPrice), big.NewInt(NFTMaxSupply)))},
		{"deploy " + EURUSDFeedDescription + " PriceFeed", feedCreation(EURUSDFeedDescription, EURUSDFeedAnswer)},
		{"deploy " + GBPUSDFeedDescription + " PriceFeed", feedCreation(GBPUSDFeedDescription, GBPUSDFeedAnswer)},
	} {
		if err := b.send(ctx, d.what, nil, d.code, 0); err != nil {
			return Contracts{}, err
		}
	}
	if err := b.mine(ctx); err != nil {
		return Contracts{}, err
	}
	// The mints once the token is mined: estimated on it (a node's gas schedule is its own).
	token := bindings.NewDemoToken()
	for _, f := range fund {
		if f.TokenUnits == nil || f.TokenUnits.Sign() == 0 {
			continue
		}
		if err := b.send(ctx, fmt.Sprintf("mint %s DUSD units to %s", f.TokenUnits, f.Address), &c.Token, token.PackMint(f.Address, f.TokenUnits), 0); err != nil {
			return Contracts{}, err
		}
	}
	if err := b.mine(ctx); err != nil {
		return Contracts{}, err
	}
	for name, addr := range c.named() {
		code, err := client.CodeAt(ctx, addr, nil)
		if err != nil {
			return Contracts{}, fmt.Errorf("devchain: read %s code: %w", name, err)
		}
		if len(code) == 0 {
			return Contracts{}, errors.New("devchain: " + name + " has no code at " + addr.Hex())
		}
	}
	return c, nil
}
