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

// deploy sends the four deployments and the token mints from the deployer (nonces 0, 1, ...),
// mines them (normally in one block, so that block timestamps do not run ahead of the wall
// clock) and checks every receipt.
func (c *Chain) deploy(ctx context.Context, key *ecdsa.PrivateKey, fund []Funding) (Contracts, error) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	want := ContractAddresses(from)
	nonce, err := c.client.PendingNonceAt(ctx, from)
	if err != nil {
		return Contracts{}, fmt.Errorf("devchain: read deployer nonce: %w", err)
	}
	if nonce != nonceToken {
		// A chain started again on its data directory: the contracts went in with the first
		// block, all of them or none.
		if err := c.checkCode(ctx, want); err != nil {
			return Contracts{}, fmt.Errorf("devchain: the deployer's nonce is %d but the demo contracts are not all there: %w", nonce, err)
		}
		return want, nil
	}
	head, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return Contracts{}, fmt.Errorf("devchain: read head: %w", err)
	}
	tip, err := c.client.SuggestGasTipCap(ctx)
	if err != nil {
		return Contracts{}, fmt.Errorf("devchain: suggest gas tip: %w", err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	signer := types.LatestSignerForChainID(c.chainID)

	var hashes []common.Hash
	send := func(what string, to *common.Address, data []byte, gas uint64) error {
		if gas == 0 {
			gas, err = c.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Data: data})
			if err != nil {
				return fmt.Errorf("devchain: estimate gas to %s: %w", what, err)
			}
			// Generous margin: estimation runs on the genesis header, whose timestamp is 0, so
			// a constructor storing block.timestamp (PriceFeed) writes a zero slot there
			// (cheap) but a non-zero one when mined (+20k gas per slot).
			gas += gas/2 + 50_000
		}
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID:   c.chainID,
			Nonce:     nonce,
			GasTipCap: tip,
			GasFeeCap: feeCap,
			Gas:       gas,
			To:        to,
			Data:      data,
		})
		if err != nil {
			return fmt.Errorf("devchain: sign %s: %w", what, err)
		}
		if err := c.client.SendTransaction(ctx, tx); err != nil {
			return fmt.Errorf("devchain: send %s: %w", what, err)
		}
		nonce++
		hashes = append(hashes, tx.Hash())
		return nil
	}
	creation := func(bin string, args []byte) []byte {
		return append(common.FromHex(bin), args...)
	}

	if err := send("deploy DemoToken", nil,
		creation(bindings.DemoTokenMetaData.Bin, nil), 0); err != nil {
		return Contracts{}, err
	}
	if err := send("deploy PriceFeed", nil, creation(bindings.PriceFeedMetaData.Bin,
		bindings.NewPriceFeed().PackConstructor(PriceFeedDecimals, PriceFeedDescription, big.NewInt(PriceFeedAnswer))), 0); err != nil {
		return Contracts{}, err
	}
	if err := send("deploy Multicall3", nil, creation(bindings.Multicall3MetaData.Bin, nil), 0); err != nil {
		return Contracts{}, err
	}
	if err := send("deploy DemoNFT", nil, creation(bindings.DemoNFTMetaData.Bin,
		bindings.NewDemoNFT().PackConstructor(NFTName, NFTSymbol, big.NewInt(NFTPriceWei),
			want.Token, big.NewInt(NFTTokenPrice), big.NewInt(NFTMaxSupply))), 0); err != nil {
		return Contracts{}, err
	}
	token := bindings.NewDemoToken()
	for _, f := range fund {
		if f.TokenUnits == nil || f.TokenUnits.Sign() == 0 {
			continue
		}
		what := fmt.Sprintf("mint %s DUSD units to %s", f.TokenUnits, f.Address)
		if err := send(what, &want.Token, token.PackMint(f.Address, f.TokenUnits), mintGas); err != nil {
			return Contracts{}, err
		}
	}

	// Mine until the deployer's last transaction is in: one block unless Fund is very long
	// (more blocks run the timestamps ahead of the wall clock, a second per block).
	for blocks := 0; ; blocks++ {
		if _, err := c.Mine(); err != nil {
			return Contracts{}, err
		}
		mined, err := c.client.NonceAt(ctx, from, nil)
		if err != nil {
			return Contracts{}, fmt.Errorf("devchain: read deployer nonce: %w", err)
		}
		if mined == nonce {
			break
		}
		if blocks > len(hashes) {
			return Contracts{}, fmt.Errorf("devchain: %d deployment transactions not mined", nonce-mined)
		}
	}
	for i, h := range hashes {
		r, err := waitReceipt(ctx, c.client, h)
		if err != nil {
			return Contracts{}, fmt.Errorf("devchain: deployment transaction %d (%s): %w", i, h, err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return Contracts{}, fmt.Errorf("devchain: deployment transaction %d (%s) reverted", i, h)
		}
	}
	if err := c.checkCode(ctx, want); err != nil {
		return Contracts{}, err
	}
	return want, nil
}

// checkCode checks that every demo contract has code at its address.
func (c *Chain) checkCode(ctx context.Context, want Contracts) error {
	for name, addr := range map[string]common.Address{
		"DemoNFT": want.NFT, "DemoToken": want.Token, "PriceFeed": want.PriceFeed, "Multicall3": want.Multicall,
	} {
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

// waitReceipt polls for the receipt of hash every 10 ms until ctx ends or 30 s have passed.
// It retries on any error: right after start, go-ethereum answers "transaction indexing is
// in progress" for a while.
func waitReceipt(ctx context.Context, client receiptReader, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
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
