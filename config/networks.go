package config

import (
	"fmt"
	"math/big"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/pricing"
)

// Network configures one EVM chain. Its name is the networkName / crypto_network value of the
// merchant API.
type Network struct {
	Name string `yaml:"name"`
	// Mode is "live" for a network that moves real money (a mainnet) or "test" (a testnet, a
	// dev chain). Required in production (dev mode: test, and only test). Well-known chain ids
	// are checked against it.
	Mode    string `yaml:"mode"`
	ChainID uint64 `yaml:"chain_id"`
	// RPCURLs are JSON-RPC endpoints (http, https, ws, wss); ${VAR} is replaced by the
	// environment variable VAR, so provider keys stay out of the file.
	RPCURLs []string `yaml:"rpc_urls"`
	// RPCTimeout bounds one JSON-RPC request to one node (http(s) URLs): a node that takes
	// longer is left for the next as one that does not answer; default 10s.
	RPCTimeout    time.Duration `yaml:"rpc_timeout"`
	Confirmations int           `yaml:"confirmations"`
	ExplorerURL   string        `yaml:"explorer_url"`
	// PublicRPCURL is a public JSON-RPC endpoint (no provider key) the checkout page offers a
	// browser wallet that does not know the network (wallet_addEthereumChain); optional.
	PublicRPCURL string  `yaml:"public_rpc_url"`
	Native       Asset   `yaml:"native"`
	Tokens       []Asset `yaml:"tokens"`
	// InternalTransfers says how the deposit watcher sees native payments made inside
	// transactions (a contract wallet, an exchange's batch payout), which a block's
	// transaction list does not show: "trace" (one debug_traceBlockByHash with callTracer per
	// block; the node must serve the debug namespace), "balance" (the open deposit addresses'
	// balances at each block through Multicall3, which Multicall3 must name) or "off" (the
	// default: such payments are not seen).
	InternalTransfers string `yaml:"internal_transfers"`
	// Multicall3 is the address of the Multicall3 contract (0xcA11bde05977b3631167028862bE2a173976CA11
	// on most chains); required by internal_transfers: balance.
	Multicall3 string `yaml:"multicall3"`
}

// Livemode reports whether the network is configured live.
func (n Network) Livemode() bool { return n.Mode == rampway.ModeLive }

// LiveChainIDs are well-known chain ids of networks that move real money; TestChainIDs those of
// test networks. A network configured in the other mode is a configuration error.
var (
	LiveChainIDs = map[uint64]string{1: "Ethereum", 10: "OP Mainnet", 56: "BNB Smart Chain", 100: "Gnosis", 137: "Polygon PoS",
		250: "Fantom", 324: "zkSync Era", 1101: "Polygon zkEVM", 5000: "Mantle", 8453: "Base", 42161: "Arbitrum One",
		42170: "Arbitrum Nova", 42220: "Celo", 43114: "Avalanche C-Chain", 59144: "Linea", 81457: "Blast", 534352: "Scroll"}
	TestChainIDs = map[uint64]string{5: "Goerli", 97: "BNB Smart Chain testnet", 300: "zkSync Sepolia", 1337: "a geth dev chain",
		10200: "Gnosis Chiado", 17000: "Holesky", 31337: "a Hardhat or Anvil dev chain", 43113: "Avalanche Fuji", 44787: "Celo Alfajores",
		59141: "Linea Sepolia", 80001: "Polygon Mumbai", 80002: "Polygon Amoy", 84532: "Base Sepolia", 421614: "Arbitrum Sepolia",
		534351: "Scroll Sepolia", 560048: "Hoodi", 11155111: "Sepolia", 11155420: "OP Sepolia"}
)

// Internal-transfer modes of a network (Network.InternalTransfers).
const (
	InternalTransfersOff     = "off"
	InternalTransfersTrace   = "trace"
	InternalTransfersBalance = "balance"
)

// InternalMode is the network's internal_transfers, "off" when unset.
func (n Network) InternalMode() string {
	if n.InternalTransfers == "" {
		return InternalTransfersOff
	}
	return n.InternalTransfers
}

// Asset configures a coin or token. Amounts are decimal strings in whole units ("0.01").
type Asset struct {
	Symbol string `yaml:"symbol"`
	// Address is the token contract (tokens only).
	Address string `yaml:"address"`
	// Decimals defaults to 18 for the native coin and is required for tokens.
	Decimals  *int   `yaml:"decimals"`
	MinAmount string `yaml:"min_amount"`
	MaxAmount string `yaml:"max_amount"`
	// ApproveReset (tokens only) says the token's approve refuses to change a non-zero
	// allowance into another non-zero one, as USDT's on Ethereum does: rampway then approves 0
	// before each approve of a token-paid call.
	ApproveReset bool `yaml:"approve_reset"`
}

var (
	networkName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	assetSymbol = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,15}$`)
)

// expandRPCURLs replaces ${VAR} in RPC URLs with the environment.
func (c *Config) expandRPCURLs(getenv func(string) string) {
	for i := range c.Networks {
		for j, u := range c.Networks[i].RPCURLs {
			c.Networks[i].RPCURLs[j] = os.Expand(u, getenv)
		}
	}
}

// validateNetworks checks the networks section; bad reports each problem.
func (c *Config) validateNetworks(bad func(field, format string, args ...any)) {
	seen := map[string]bool{}
	for i, n := range c.Networks {
		p := fmt.Sprintf("networks[%d]", i)
		if !networkName.MatchString(n.Name) {
			bad(p+".name", "must be 1-64 letters, digits, '-', '_' or '.', not %q", n.Name)
		} else if seen[n.Name] {
			bad(p+".name", "%q is defined twice", n.Name)
		}
		seen[n.Name] = true
		if n.ChainID == 0 {
			bad(p+".chain_id", "is required")
		}
		switch n.Mode {
		case rampway.ModeLive:
			if c.Mode == ModeDev {
				bad(p+".mode", "must be test in dev mode (dev mode is test mode throughout), not live")
			} else if name, ok := TestChainIDs[n.ChainID]; ok {
				bad(p+".mode", "is live but chain_id %d is %s, a test network: set mode: test", n.ChainID, name)
			}
		case rampway.ModeTest:
			if name, ok := LiveChainIDs[n.ChainID]; ok {
				bad(p+".mode", "is test but chain_id %d is %s, a live network moving real money: set mode: live", n.ChainID, name)
			}
		case "":
			if c.Mode != ModeDev {
				bad(p+".mode", "is required: test (a testnet or dev chain) or live (a mainnet, real money)")
			}
		default:
			bad(p+".mode", "must be test or live, not %q", n.Mode)
		}
		if len(n.RPCURLs) == 0 {
			bad(p+".rpc_urls", "needs at least one JSON-RPC URL")
		}
		for j, raw := range n.RPCURLs {
			u, err := url.Parse(raw)
			if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
				bad(fmt.Sprintf("%s.rpc_urls[%d]", p, j), "must be an http(s) or ws(s) URL")
			}
		}
		if n.RPCTimeout != 0 && (n.RPCTimeout < 100*time.Millisecond || n.RPCTimeout > 5*time.Minute) {
			bad(p+".rpc_timeout", "must be between 100ms and 5m (unset: 10s), not %v", n.RPCTimeout)
		}
		if n.Confirmations < 0 || n.Confirmations > 1000 {
			bad(p+".confirmations", "must be between 0 and 1000, not %d", n.Confirmations)
		}
		if n.ExplorerURL != "" {
			if u, err := url.Parse(n.ExplorerURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				bad(p+".explorer_url", "must be an http(s) URL")
			}
		}
		if n.PublicRPCURL != "" {
			// It is handed to browsers: a URL with credentials or a ${VAR} (a provider key) is not public.
			if u, err := url.Parse(n.PublicRPCURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") ||
				u.User != nil || strings.Contains(n.PublicRPCURL, "${") {
				bad(p+".public_rpc_url", "must be an http(s) URL without credentials or ${VAR}: it is shown to browsers")
			}
		}
		switch n.InternalMode() {
		case InternalTransfersOff, InternalTransfersTrace:
		case InternalTransfersBalance:
			if n.Multicall3 == "" {
				bad(p+".multicall3", "is required with internal_transfers: balance (the Multicall3 contract's address)")
			}
		default:
			bad(p+".internal_transfers", "must be off, trace or balance, not %q", n.InternalTransfers)
		}
		if n.Multicall3 != "" {
			if _, err := rampway.ParseAddress("multicall3", n.Multicall3); err != nil {
				bad(p+".multicall3", "must be a 0x address (EIP-55 when mixed case)")
			}
		}
		symbols := map[string]bool{}
		checkAsset := func(field string, a Asset, native bool) {
			if !assetSymbol.MatchString(a.Symbol) {
				bad(field+".symbol", "must be 1-16 letters, digits, '-', '_' or '.', not %q", a.Symbol)
			} else if symbols[a.Symbol] {
				bad(field+".symbol", "%q is used twice on network %s", a.Symbol, n.Name)
			}
			symbols[a.Symbol] = true
			if native && a.Address != "" {
				bad(field+".address", "must be empty for the native coin")
			}
			if native && a.ApproveReset {
				bad(field+".approve_reset", "is for tokens only")
			}
			if !native {
				if _, err := rampway.ParseAddress("address", a.Address); err != nil {
					bad(field+".address", "%s", strings.TrimPrefix(rampway.ErrorMessage(err), "address "))
				}
				if a.Decimals == nil {
					bad(field+".decimals", "is required for tokens")
				}
			}
			dec := assetDecimals(a)
			if dec < 0 || dec > 36 {
				bad(field+".decimals", "must be between 0 and 36, not %d", dec)
				return
			}
			var lo, hi *big.Int
			var err error
			if a.MinAmount != "" {
				if lo, err = rampway.ParseUnits(a.MinAmount, uint8(dec)); err != nil {
					bad(field+".min_amount", "%v", err)
				}
			}
			if a.MaxAmount != "" {
				if hi, err = rampway.ParseUnits(a.MaxAmount, uint8(dec)); err != nil {
					bad(field+".max_amount", "%v", err)
				}
			}
			if lo != nil && hi != nil && lo.Cmp(hi) > 0 {
				bad(field+".max_amount", "must not be below min_amount")
			}
		}
		checkAsset(p+".native", n.Native, true)
		for j, t := range n.Tokens {
			checkAsset(fmt.Sprintf("%s.tokens[%d]", p, j), t, false)
		}
	}
}

func assetDecimals(a Asset) int {
	if a.Decimals == nil {
		return 18
	}
	return *a.Decimals
}

// DomainNetworks returns the networks in the root package's terms. The config must be valid.
func (c *Config) DomainNetworks() []rampway.Network {
	out := make([]rampway.Network, 0, len(c.Networks))
	for _, n := range c.Networks {
		asset := func(a Asset) rampway.Asset {
			dec := uint8(assetDecimals(a))
			r := rampway.Asset{Symbol: a.Symbol, Network: n.Name, Decimals: dec, ApproveReset: a.ApproveReset}
			if a.Address != "" {
				r.Contract = common.HexToAddress(a.Address)
			}
			if a.MinAmount != "" {
				r.Min, _ = rampway.ParseUnits(a.MinAmount, dec)
			}
			if a.MaxAmount != "" {
				r.Max, _ = rampway.ParseUnits(a.MaxAmount, dec)
			}
			return r
		}
		dn := rampway.Network{Name: n.Name, Livemode: n.Livemode(), ChainID: new(big.Int).SetUint64(n.ChainID), RPCURLs: append([]string(nil), n.RPCURLs...),
			RPCTimeout: n.RPCTimeout, Confirmations: n.Confirmations, ExplorerURL: n.ExplorerURL, Native: asset(n.Native)}
		for _, t := range n.Tokens {
			dn.Tokens = append(dn.Tokens, asset(t))
		}
		out = append(out, dn)
	}
	return out
}

// validateCheckout checks the checkout section.
func (c *Config) validateCheckout(bad func(field, format string, args ...any)) {
	k := c.Checkout
	if k.OrderExpiry < time.Minute || k.OrderExpiry > 7*24*time.Hour {
		bad("checkout.order_expiry", "must be between 1m and 168h, not %v", k.OrderExpiry)
	}
	if k.BankTransferExpiry < time.Hour || k.BankTransferExpiry > 14*24*time.Hour {
		bad("checkout.bank_transfer_expiry", "must be between 1h and 336h, not %v", k.BankTransferExpiry)
	}
	if k.FiatExecutionTimeout < time.Minute || k.FiatExecutionTimeout > 7*24*time.Hour {
		bad("checkout.fiat_execution_timeout", "must be between 1m and 168h (a card's authorisation does not last longer), not %v", k.FiatExecutionTimeout)
	}
	if k.ServiceFeeBPS < 0 || k.ServiceFeeBPS > 10_000 {
		bad("checkout.service_fee_bps", "must be between 0 and 10000, not %d", k.ServiceFeeBPS)
	}
	if len(c.Networks) > 0 {
		if k.DepositXPub == "" {
			bad("checkout.deposit_xpub", "is required with networks (or set %s)", EnvDepositXPub)
		} else if _, err := hd.FromXPub(k.DepositXPub); err != nil {
			bad("checkout.deposit_xpub", "%v", err)
		}
		if _, err := rampway.ParseAddress("hot_wallet_address", k.HotWalletAddress); err != nil {
			bad("checkout.hot_wallet_address", "is required with networks: a 0x address (EIP-55 when mixed case)")
		}
	}
	if k.ExecutorRepriceBlocks < 1 || k.ExecutorRepriceBlocks > 1000 {
		bad("checkout.executor_reprice_blocks", "must be between 1 and 1000, not %d", k.ExecutorRepriceBlocks)
	}
	if k.HotWalletKeystore != "" && c.Secrets.HotWalletKey != "" {
		bad("checkout.hot_wallet_keystore", "and %s are both set: keep one", EnvHotWalletKey)
	}
	if k.HotWalletKeystore != "" && c.Secrets.HotWalletPassphrase == "" {
		bad("checkout.hot_wallet_keystore", "needs its passphrase in %s", EnvHotWalletPassphrase)
	}
	if c.Secrets.HotWalletKey != "" {
		if s, err := chain.ParseKey(c.Secrets.HotWalletKey); err != nil {
			bad("secrets.hot_wallet_key", "(%s) is not a 32-byte hex private key", EnvHotWalletKey)
		} else if a, err := rampway.ParseAddress("hot_wallet_address", k.HotWalletAddress); err == nil && a != s.Address() {
			bad("checkout.hot_wallet_address", "is %s but %s is the key of %s", k.HotWalletAddress, EnvHotWalletKey, s.Address().Hex())
		}
	}
	if k.TreasuryAddress != "" {
		if _, err := rampway.ParseAddress("treasury_address", k.TreasuryAddress); err != nil {
			bad("checkout.treasury_address", "must be a 0x address (EIP-55 when mixed case)")
		}
	}
	if c.Secrets.DepositXPrv != "" {
		switch s, err := hd.FromXPrv(c.Secrets.DepositXPrv); {
		case err != nil:
			bad("secrets.deposit_xprv", "(%s) is not an extended private key", EnvDepositXPrv)
		case k.TreasuryAddress == "":
			bad("checkout.treasury_address", "is required to sweep (%s is set)", EnvDepositXPrv)
		default:
			if xpub, err := s.XPub(); err != nil || xpub != strings.TrimSpace(k.DepositXPub) {
				bad("secrets.deposit_xprv", "(%s) is not the private key of checkout.deposit_xpub", EnvDepositXPrv)
			}
		}
	}
	for sym, p := range k.Prices {
		if d, err := decimal.NewFromString(p); err != nil || !d.IsPositive() {
			bad("checkout.prices."+sym, "must be a positive decimal such as \"3000.5\", not %q", p)
		}
	}
	feedSymbols := map[string]bool{}
	for i, f := range k.PriceFeeds {
		p := fmt.Sprintf("checkout.price_feeds[%d]", i)
		switch {
		case f.Symbol == "":
			bad(p+".symbol", "is required")
		case feedSymbols[f.Symbol]:
			bad(p+".symbol", "%s has two feeds", f.Symbol)
		}
		feedSymbols[f.Symbol] = true
		if !slices.ContainsFunc(c.Networks, func(n Network) bool { return n.Name == f.Network }) {
			bad(p+".network", "must be a configured network's name, not %q", f.Network)
		}
		if _, err := rampway.ParseAddress("address", f.Address); err != nil {
			bad(p+".address", "must be a 0x address (EIP-55 when mixed case)")
		}
		if f.MaxAge < 0 {
			bad(p+".max_age", "must be positive, not %s", f.MaxAge)
		}
	}
}

// PriceTable returns the configured prices. The config must be valid.
func (c *Config) PriceTable() map[string]decimal.Decimal {
	out := make(map[string]decimal.Decimal, len(c.Checkout.Prices))
	for sym, p := range c.Checkout.Prices {
		out[sym], _ = decimal.NewFromString(p)
	}
	if _, ok := out["USD"]; !ok {
		out["USD"] = decimal.NewFromInt(1) // the table's unit
	}
	return out
}

// Feeds are the configured price feeds as the pricing package reads them, each on its
// network's node (nodes gives it by name), max_age defaulting to an hour.
func (c *Config) Feeds(nodes func(network string) (pricing.Caller, bool)) []pricing.Feed {
	var out []pricing.Feed
	for _, f := range c.Checkout.PriceFeeds {
		node, ok := nodes(f.Network)
		if !ok {
			continue
		}
		age := f.MaxAge
		if age == 0 {
			age = time.Hour
		}
		out = append(out, pricing.Feed{Symbol: f.Symbol, Node: node, Address: common.HexToAddress(f.Address), MaxAge: age})
	}
	return out
}
