// Package devworld is the dev world: the embedded chain's network with its demo contracts,
// the demo merchant, the functions it registers on the demo NFT, and its deposit addresses.
// `rampway dev` (which writes it to dev.json), its admin CLI (--data-dir) and the benchmark
// (cmd/rampway-bench) all build it here, so that they run the same world.
//
// Everything is made through the use cases (merchant.Service, contract.Registry,
// merchant.DepositAddresses), as through the admin API, and Ensure is idempotent: a dev
// directory started again keeps its merchant, keys, functions and addresses, repairing only
// what is missing.
package devworld

import (
	"context"
	"fmt"
	"math/big"
	"net/url"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/merchant"
)

// Network is the name of the embedded chain's network.
const Network = "devnet"

// Wallet funding of the dev chain: plenty for any demo.
var (
	Wei        = new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18)) // 1000 ETH
	TokenUnits = big.NewInt(1_000_000 * 1e6)                          // 1,000,000 DUSD
)

// Funding funds each of addrs (the payer, the hot wallet) with Wei and TokenUnits at genesis.
func Funding(addrs ...common.Address) []devchain.Funding {
	out := make([]devchain.Funding, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, devchain.Funding{Address: a, Wei: Wei, TokenUnits: TokenUnits})
	}
	return out
}

// MinETH is the dev network's smallest ETH payment. It stays below the smallest network fee
// the dev chain can quote, so that the free mint (whose user pays the network fee only) is
// allowed at any time: an idle chain's base fee decays to 7 wei (EIP-1559's floor, where the
// 1/8 step rounds to zero) and the tip go-ethereum suggests never falls below its miner's
// 0.001 gwei, so 300,000 gas costs at least 0.0000003 ETH.
const MinETH = "0.0000001"

// NetworkConfig is the dev network as configuration, reached at rpcURL, with the demo token at
// token (hex), so that it goes through the same validation and start-up checks as a
// production network.
func NetworkConfig(rpcURL, token string) config.Network {
	dec := int(devchain.TokenDecimals)
	return config.Network{
		Name: Network, Mode: rampway.ModeTest, ChainID: devchain.ChainID, RPCURLs: []string{rpcURL}, Confirmations: 1,
		// The dev chain traces blocks (in process: its HTTP endpoint has no debug namespace).
		InternalTransfers: config.InternalTransfersTrace,
		Native:            config.Asset{Symbol: devchain.NativeSymbol, MinAmount: MinETH, MaxAmount: "100"},
		Tokens:            []config.Asset{{Symbol: devchain.TokenSymbol, Address: token, Decimals: &dec, MinAmount: "0.01", MaxAmount: "100000"}},
	}
}

// Prices is the dev price table: the demo token at 1 USD. ETH, EUR and GBP are read from the
// dev chain's feeds (PriceFeeds).
var Prices = map[string]string{devchain.TokenSymbol: "1"}

// FeedMaxAge is how old a dev feed's answer may be: any age. The dev feeds change only when
// their owner (the deployer) sets them, and a dev directory's chain may start again months
// after its feeds were deployed.
const FeedMaxAge = 100 * 365 * 24 * time.Hour

// PriceFeeds are the dev chain's USD feeds as checkout.price_feeds: ETH (3000), EUR (1.08)
// and GBP (1.27) until their owner sets another answer.
func PriceFeeds(c devchain.Contracts) []config.PriceFeed {
	var out []config.PriceFeed
	for _, f := range c.USDFeeds() {
		out = append(out, config.PriceFeed{Symbol: f.Symbol, Network: Network, Address: f.Address.Hex(), MaxAge: FeedMaxAge})
	}
	return out
}

// Services are the use cases the world is made through.
type Services struct {
	Merchants *merchant.Service
	// Functions must take http image URLs (dev mode) when Spec.NFTImageURL is one.
	Functions *contract.Registry
	Deposits  *merchant.DepositAddresses
}

// Merchant is the demo merchant's id and credentials.
type Merchant struct {
	ID            string
	APIKey        string
	WebhookSecret string
}

// Spec says what world to make.
type Spec struct {
	// Merchant is the demo merchant as an earlier run left it; zero on a first run.
	Merchant Merchant
	// Contracts are the dev chain's demo contracts.
	Contracts devchain.Contracts
	// DepositAddress is where area C sends the demo merchant each dev asset.
	DepositAddress common.Address
	// WebhookURL, LogoURL and NFTImageURL are the demo merchant's webhook receiver and logo
	// and its NFT's picture ("" for none). Each is set where there is none or an earlier
	// run's (the same http path, on another port); one the developer set is kept.
	WebhookURL, LogoURL, NFTImageURL string
}

// World is the dev world as made.
type World struct {
	// Merchant is the demo merchant, with a working API key and webhook secret.
	Merchant Merchant
	// Functions are its registered NFT functions, in Demos' order.
	Functions []Function
	// DepositAddresses are its deposit addresses, one per DepositSymbols.
	DepositAddresses []*rampway.MerchantDepositAddress
}

// Function is a demo function as registered.
type Function struct {
	Demo
	Registered *rampway.ContractFunction
}

// Demo is a DemoNFT function the demo merchant registers.
type Demo struct {
	// Name is the function's ABI name.
	Name string
	// Payable is the asset it is paid with ("" for none: the free mint).
	Payable string
	// TotalValue is the price of one token, in whole units of Payable.
	TotalValue string
	// Display is what the checkout page says is bought (with the demo NFT's picture).
	Display string
}

// Demos are the demo merchant's functions: a mint paid in ETH, one paid in the demo token,
// and a free mint.
var Demos = []Demo{
	{Name: "mint", Payable: devchain.NativeSymbol, TotalValue: rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18), Display: "Demo NFT"},
	{Name: "mintWithToken", Payable: devchain.TokenSymbol, TotalValue: rampway.FormatUnits(big.NewInt(devchain.NFTTokenPrice), devchain.TokenDecimals),
		Display: "Demo NFT"},
	{Name: "freeMint", Display: "Demo NFT (free mint)"},
}

// DepositSymbols are the dev assets the demo merchant has a deposit address for, in order.
var DepositSymbols = []string{devchain.NativeSymbol, devchain.TokenSymbol}

// Ensure makes sure the demo merchant, its functions and its deposit addresses exist, and
// returns them.
func Ensure(ctx context.Context, svc Services, spec Spec) (*World, error) {
	m, err := ensureMerchant(ctx, svc.Merchants, spec.Merchant, spec.WebhookURL, spec.LogoURL)
	if err != nil {
		return nil, err
	}
	w := &World{Merchant: m}
	if w.Functions, err = ensureFunctions(ctx, svc.Functions, m.ID, spec.Contracts, spec.NFTImageURL); err != nil {
		return nil, err
	}
	if w.DepositAddresses, err = ensureDepositAddresses(ctx, svc.Deposits, m.ID, spec.DepositAddress); err != nil {
		return nil, err
	}
	return w, nil
}

// Function returns the world's function paid with symbol ("" for the free mint).
func (w *World) Function(payable string) (Function, bool) {
	for _, f := range w.Functions {
		if f.Payable == payable {
			return f, true
		}
	}
	return Function{}, false
}

// ensureMerchant makes sure the demo merchant exists with a working API key and webhook
// secret, repairing what is missing (a first run, a revoked key, a cleared secret), and that
// its webhook URL is hookURL and its logo logoURL: each set when it has none or when it is an
// earlier run's (another port); a URL of the developer's own is kept.
func ensureMerchant(ctx context.Context, svc *merchant.Service, had Merchant, hookURL, logoURL string) (Merchant, error) {
	st := had
	m, err := svc.Get(ctx, st.ID)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		m, err = svc.Create(ctx, merchant.CreateParams{Name: "Demo Store", WebhookURL: hookURL, LogoURL: logoURL})
		st.APIKey, st.WebhookSecret = "", ""
	}
	if err != nil {
		return had, fmt.Errorf("demo merchant: %w", err)
	}
	st.ID = m.ID
	var fix merchant.UpdateParams
	if m.Status != rampway.MerchantActive {
		active := string(rampway.MerchantActive)
		fix.Status = &active
	}
	if m.WebhookURL != hookURL && (m.WebhookURL == "" || earlierRun(m.WebhookURL, hookURL)) {
		fix.WebhookURL = &hookURL
	}
	if m.LogoURL != logoURL && (m.LogoURL == "" || earlierRun(m.LogoURL, logoURL)) {
		fix.LogoURL = &logoURL
	}
	if fix.Status != nil || fix.WebhookURL != nil || fix.LogoURL != nil {
		if _, err := svc.Update(ctx, m.ID, fix); err != nil {
			return had, fmt.Errorf("demo merchant: %w", err)
		}
	}
	if _, _, err := svc.Authenticate(ctx, st.APIKey); err != nil {
		if rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
			return had, fmt.Errorf("demo merchant key: %w", err)
		}
		if _, st.APIKey, err = svc.IssueAPIKey(ctx, m.ID, false); err != nil { // dev is test mode throughout
			return had, fmt.Errorf("demo merchant key: %w", err)
		}
	}
	if m.WebhookSecret == "" || m.WebhookSecret != st.WebhookSecret {
		if st.WebhookSecret, err = svc.SetWebhookSecret(ctx, m.ID, false, "", 0); err != nil {
			return had, fmt.Errorf("demo merchant webhook secret: %w", err)
		}
	}
	return st, nil
}

// ensureFunctions registers the demo merchant's NFT functions, with their display name and
// the picture at image, unless an active registration of the same function exists, and
// returns them. An existing one keeps its id; its display is made the demo's when it has none
// or an earlier run's (its picture on another port), and kept when the developer gave it a
// picture of their own.
func ensureFunctions(ctx context.Context, reg *contract.Registry, merchantID string, c devchain.Contracts, image string) ([]Function, error) {
	existing, err := reg.List(ctx, merchantID)
	if err != nil {
		return nil, fmt.Errorf("demo functions: %w", err)
	}
	var out []Function
	for _, d := range Demos {
		fragment, err := contract.FunctionFragment(devchain.NFTABI(), d.Name)
		if err != nil {
			return nil, fmt.Errorf("demo function %s: %w", d.Name, err)
		}
		fn, err := contract.ParseFunction(fragment)
		if err != nil {
			return nil, fmt.Errorf("demo function %s: %w", d.Name, err)
		}
		var f *rampway.ContractFunction
		for _, e := range existing {
			if e.Status == rampway.ContractFunctionActive && e.Network == Network && e.Contract == c.NFT &&
				e.Signature == fn.Signature() && e.PayableSymbol == d.Payable {
				f = e
				break
			}
		}
		switch {
		case f == nil:
			f, err = reg.Register(ctx, merchantID, contract.RegisterParams{Network: Network, ContractAddress: c.NFT.Hex(),
				ABI: fragment, DefaultGasLimit: 300_000, PayableSymbol: d.Payable, DisplayName: d.Display, ImageURL: image})
		case f.ImageURL != image && (f.ImageURL == "" || earlierRun(f.ImageURL, image)):
			f, err = reg.SetDisplay(ctx, merchantID, f.ID, d.Display, image)
		}
		if err != nil {
			return nil, fmt.Errorf("demo function %s: %w", d.Name, err)
		}
		out = append(out, Function{Demo: d, Registered: f})
	}
	return out, nil
}

// ensureDepositAddresses gives the demo merchant a deposit address, addr, for each of
// DepositSymbols it has none for, and returns its addresses in that order. One the developer
// set (through the admin API or CLI) is kept.
func ensureDepositAddresses(ctx context.Context, svc *merchant.DepositAddresses, merchantID string, addr common.Address) ([]*rampway.MerchantDepositAddress, error) {
	var out []*rampway.MerchantDepositAddress
	for _, symbol := range DepositSymbols {
		a, err := svc.Get(ctx, merchantID, Network, symbol)
		if rampway.ErrorCode(err) == rampway.ENOTFOUND {
			a, err = svc.Set(ctx, merchantID, merchant.DepositAddressParams{Network: Network, Symbol: symbol, Address: addr.Hex()})
		}
		if err != nil {
			return nil, fmt.Errorf("demo deposit address for %s: %w", symbol, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// earlierRun reports whether raw is what a dev server of an earlier run made of now: an http
// URL of the same path without a query (the port changes with --addr).
func earlierRun(raw, now string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.RawQuery != "" {
		return false
	}
	n, err := url.Parse(now)
	return err == nil && n.Path != "" && u.Path == n.Path
}
