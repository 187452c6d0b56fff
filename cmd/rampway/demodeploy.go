package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/contract"
)

// EnvDeployerKey is the hex private key `rampway demo deploy` deploys from (it pays the gas).
const EnvDeployerKey = "RAMPWAY_DEPLOYER_KEY"

// runDemo runs `rampway demo deploy`.
func runDemo(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "deploy" {
		fmt.Fprint(stdout, demoUsage)
		return errors.New("demo: the command is deploy")
	}
	fs := flag.NewFlagSet("demo deploy", flag.ContinueOnError)
	fs.SetOutput(stdout)
	rpcURL := fs.String("rpc-url", "", "the chain's JSON-RPC URL (required)")
	network := fs.String("network", "demo", "the network's name in the printed configuration")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *rpcURL == "" {
		return errors.New("demo deploy: --rpc-url is required")
	}
	hexKey := strings.TrimPrefix(getenv(EnvDeployerKey), "0x")
	if hexKey == "" {
		return fmt.Errorf("demo deploy: set %s to the hex private key of a funded account (it pays the deployments' gas)", EnvDeployerKey)
	}
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		return fmt.Errorf("demo deploy: %s: %w", EnvDeployerKey, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, *rpcURL)
	if err != nil {
		return fmt.Errorf("demo deploy: dial %s: %w", chain.Redact(*rpcURL), err)
	}
	defer cl.Close()
	chainID, err := cl.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("demo deploy: chain id: %w", err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	fmt.Fprintf(stdout, "# deploying the demo contracts to chain %s from %s ...\n", chainID, from.Hex())
	c, err := devchain.DeployTo(ctx, cl, chainID, key, []devchain.Funding{{Address: from, TokenUnits: big.NewInt(1_000_000 * 1_000_000)}})
	if err != nil {
		return fmt.Errorf("demo deploy: %w", err)
	}
	mint, err := contract.FunctionFragment(devchain.NFTABI(), "mint")
	if err != nil {
		return err
	}
	mintToken, err := contract.FunctionFragment(devchain.NFTABI(), "mintWithToken")
	if err != nil {
		return err
	}
	// The gas limits are this chain's, not a constant: the same mint costs ~100k gas on the
	// embedded dev chain and ~376k on geth --dev v1.17, whose forks price new storage higher.
	mintGas, tokenGas, err := demoGasLimits(ctx, cl, from, c)
	if err != nil {
		return fmt.Errorf("demo deploy: %w", err)
	}
	reg := func(frag json.RawMessage, payable string, gas uint64) string {
		b, _ := json.Marshal(map[string]any{"network": *network, "contract_address": c.NFT.Hex(), "abi": frag, "default_gas_limit": gas,
			"payable_symbol": payable})
		return string(b)
	}
	fmt.Fprintf(stdout, `# Contracts: DemoToken (DUSD) %s, DemoNFT %s, Multicall3 %s;
# price feeds ETH/USD %s, EUR/USD %s, GBP/USD %s. %s holds 1,000,000 DUSD.
# Add to rampway.yaml (replace the RPC URL with yours if it holds a key):
networks:
  - name: %s
    mode: test                        # a test network: only test keys (rw_test_) pay and execute on it
    chain_id: %s
    rpc_urls: [%q]
    confirmations: 2
    multicall3: %q
    native: {symbol: ETH, min_amount: "0.000001", max_amount: "10"}
    tokens:
      - {symbol: DUSD, address: %q, decimals: %d, min_amount: "0.01", max_amount: "100000"}
checkout:
  price_feeds:
    - {symbol: ETH, network: %s, address: %q}
    - {symbol: EUR, network: %s, address: %q}
    - {symbol: GBP, network: %s, address: %q}
# Register the demo NFT's mint functions for a merchant (admin API, POST {admin}/merchants/{id}/contract-functions):
#   paid in ETH:  %s
#   paid in DUSD: %s
`, c.Token.Hex(), c.NFT.Hex(), c.Multicall.Hex(), c.PriceFeed.Hex(), c.EURUSDFeed.Hex(), c.GBPUSDFeed.Hex(), from.Hex(),
		*network, chainID, chain.Redact(*rpcURL), c.Multicall.Hex(), c.Token.Hex(), devchain.TokenDecimals,
		*network, c.PriceFeed.Hex(), *network, c.EURUSDFeed.Hex(), *network, c.GBPUSDFeed.Hex(), reg(mint, "ETH", mintGas), reg(mintToken, "DUSD", tokenGas))
	return nil
}

const demoUsage = `Usage: rampway demo deploy --rpc-url URL [--network NAME]
  Deploys the demo contracts (an ERC-20 DUSD, an ERC-721 with a payable mint, Multicall3, USD
  price feeds for ETH, EUR and GBP) to any chain from the account of env RAMPWAY_DEPLOYER_KEY,
  and prints the networks and price feeds configuration and the function registrations a
  rampway deployment needs: try rampway on a public testnet or a geth --dev.
`

// demoGasLimits are the registrations' default_gas_limit for mint (paid in ETH) and
// mintWithToken (paid in DUSD) on the chain: the node's estimate of a mint of one to a new
// holder, plus a DUSD transfer to a new holder for the token-paid one (its transferFrom; an
// estimate of mintWithToken itself would need an approval first), with a quarter more as
// margin, rounded up to 10,000.
func demoGasLimits(ctx context.Context, cl *ethclient.Client, from common.Address, c devchain.Contracts) (mint, withToken uint64, err error) {
	fresh := common.HexToAddress("0x00000000000000000000000000000000000dE111")
	mint, err = cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &c.NFT, Value: big.NewInt(devchain.NFTPriceWei),
		Data: bindings.NewDemoNFT().PackMint(fresh, big.NewInt(1))})
	if err != nil {
		return 0, 0, fmt.Errorf("estimate the gas of mint: %w", err)
	}
	transfer, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &c.Token,
		Data: bindings.NewDemoToken().PackTransfer(fresh, big.NewInt(1))})
	if err != nil {
		return 0, 0, fmt.Errorf("estimate the gas of a DUSD transfer: %w", err)
	}
	limit := func(g uint64) uint64 { return (g*5/4 + 9_999) / 10_000 * 10_000 }
	return limit(mint), limit(mint + transfer), nil
}
