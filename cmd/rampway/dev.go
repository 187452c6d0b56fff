package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gofrs/flock"

	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/provider"
)

// Files in the dev data directory.
const (
	devStateFile = devworld.StateFile // secrets kept across restarts
	devJSONFile  = "dev.json"         // the dev-mode contract, written once ready to serve
	devLockFile  = "dev.lock"         // held while a dev process uses the directory
	devChainDir  = "chain"            // the embedded chain's database
	devDBFile    = "rampway.db"
)

// devState is what `rampway dev` keeps in its data directory (devworld.State), with the
// methods that make keys of it.
type devState struct{ devworld.State }

// devJSON is DESIGN.md's dev-mode contract; tools outside this repository read it.
type devJSON struct {
	API                    devAPI        `json:"api"`
	AdminToken             string        `json:"admin_token"`
	Merchant               devMerchant   `json:"merchant"`
	Chain                  devChainInfo  `json:"chain"`
	Assets                 []devAsset    `json:"assets"`
	Contracts              devContracts  `json:"contracts"`
	SmartContractFunctions []devFunction `json:"smart_contract_functions"`
	Fiat                   devFiat       `json:"fiat"`
	// Dashboard is the dashboard's URL and the demo merchant's owner's sign-in (added after the
	// first version of the contract; absent when the dashboard is off).
	Dashboard *devDashboard `json:"dashboard,omitempty"`
}

// devFiat is the dev-mode contract's fiat part: the test cards of the payment provider dev mode
// configures (the module registered as provider.Module.DevDefault), which takes area B's card
// payments on the checkout page's card form: success is authorised, decline is declined,
// three_ds asks for a 3-D Secure challenge on the provider's page. docs/fiat.md lists the
// provider's other test data.
type devFiat struct {
	TestCards devTestCards `json:"test_cards"`
}

type devTestCards struct {
	Success string `json:"success"`
	Decline string `json:"decline"`
	ThreeDS string `json:"three_ds"`
}

// devCards are the test cards of dev mode's payment provider (provider.Module.Dev).
func devCards() devTestCards {
	for _, m := range provider.Modules() {
		if m.DevDefault && m.Dev != nil {
			c := m.Dev.TestCards
			return devTestCards{Success: c["success"], Decline: c["decline"], ThreeDS: c["three_ds"]}
		}
	}
	return devTestCards{}
}

type devChainInfo struct {
	Network         string `json:"network"`
	ChainID         int64  `json:"chain_id"`
	RPCURL          string `json:"rpc_url"`
	PayerPrivateKey string `json:"payer_private_key"`
	PayerAddress    string `json:"payer_address"`
}

type devAsset struct {
	Symbol          string `json:"symbol"`
	Network         string `json:"network"`
	ContractAddress string `json:"contract_address"`
	Decimals        uint8  `json:"decimals"`
}

type devContracts struct {
	NFT        string `json:"nft"`
	Token      string `json:"token"`
	PriceFeed  string `json:"price_feed"`
	Multicall3 string `json:"multicall3"`
}

type devFunction struct {
	ID              string          `json:"id"`
	ContractAddress string          `json:"contract_address"`
	ABI             json.RawMessage `json:"abi"`
	PayableSymbol   string          `json:"payable_symbol"`
	Example         devExecution    `json:"example"`
}

// devExecution is a contractExecution object of the merchant API.
type devExecution struct {
	SmartContractFunctionID string           `json:"smartContractFunctionId"`
	FunctionArgs            map[string]any   `json:"function_args"`
	Payment                 *devPayment      `json:"payment,omitempty"`
	NetworkParams           devNetworkParams `json:"network_params"`
}

type devPayment struct {
	PayableCryptoSymbol          string `json:"payableCryptoSymbol"`
	PayableCryptoContractAddress string `json:"payableCryptoContractAddress"`
	TotalValue                   string `json:"totalValue"`
}

type devNetworkParams struct {
	NetworkName string `json:"networkName"`
}

type devAPI struct {
	MintBaseURL    string `json:"mint_base_url"`
	NFTRampBaseURL string `json:"nft_ramp_base_url"`
	DepositBaseURL string `json:"deposit_base_url"`
	AdminBaseURL   string `json:"admin_base_url"`
}

type devMerchant struct {
	MerchantID    string `json:"merchant_id"`
	APIKey        string `json:"api_key"`
	WebhookSecret string `json:"webhook_secret"`
	// DepositAddresses are the demo merchant's onboarded deposit addresses, one per dev asset.
	DepositAddresses []devMerchantDepositAddress `json:"deposit_addresses"`
}

// devMerchantDepositAddress is where area C sends the demo merchant an asset.
type devMerchantDepositAddress struct {
	Symbol  string `json:"symbol"`
	Network string `json:"network"`
	Address string `json:"address"`
}

// devNetwork is the name of the embedded chain's network in dev mode.
const devNetwork = devworld.Network

func runDev(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "pay" {
		return runDevPay(ctx, args[1:], stdout)
	}
	fset := flag.NewFlagSet("dev", flag.ContinueOnError)
	fset.SetOutput(stdout)
	addr := fset.String("addr", "127.0.0.1:8080", "HTTP listen address (port 0 picks a free one)")
	rpcAddr := fset.String("rpc-addr", "127.0.0.1:8545", "the embedded chain's JSON-RPC address (port 0 picks a free one)")
	blockTime := fset.Duration("block-time", devchain.DefaultBlockTime, "at most one block per this period while transactions wait")
	dataDir := fset.String("data-dir", ".rampway-dev", "directory for the SQLite database, secrets and dev.json")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("dev: unexpected arguments %v", fset.Args())
	}
	if *blockTime <= 0 {
		return errors.New("dev: --block-time must be positive")
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		return fmt.Errorf("dev: %w", err)
	}
	// One dev process per directory: a second would share the database and remove the
	// first's dev.json when it stops.
	lock := flock.New(filepath.Join(*dataDir, devLockFile))
	if ok, err := lock.TryLock(); err != nil {
		return fmt.Errorf("dev: lock %s: %w", *dataDir, err)
	} else if !ok {
		return fmt.Errorf("dev: %s is in use by another rampway dev", *dataDir)
	}
	defer lock.Unlock()
	devJSONPath := filepath.Join(*dataDir, devJSONFile)
	// A dev.json from an earlier run must not tell tools that this one is ready.
	if err := os.Remove(devJSONPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("dev: %w", err)
	}
	state, err := loadDevState(*dataDir)
	if err != nil {
		return err
	}
	keys, err := state.keys()
	if err != nil {
		return err
	}
	// The keys make the chain's genesis: they are kept before the chain is, so that a first
	// start that fails after the chain began (a port in use, Ctrl-C) leaves a directory the
	// next start can open.
	if err := saveJSON(filepath.Join(*dataDir, devStateFile), state); err != nil {
		return err
	}

	cfg := config.Default()
	cfg.Mode = config.ModeDev
	// Listen first: the port (--addr may ask for 0) is in the public URL everything is built
	// with (gateway_url, dev.json, the demo store); requests wait in the backlog until Serve.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return inUse(fmt.Errorf("dev: listen on %s: %w", *addr, err), *addr, "--addr", "127.0.0.1:8081")
	}
	defer ln.Close() // once the app has it, closed already: this is for the errors before
	base := "http://" + reachable(ln.Addr().String())
	cfg.HTTP.Addr = ln.Addr().String()
	cfg.HTTP.PublicURL = base
	cfg.Database.Path = filepath.Join(*dataDir, devDBFile)
	cfg.Admin.Token = state.AdminToken
	cfg.Secrets.HashSecret = state.HashSecret
	cfg.Secrets.EncryptionKey = state.EncryptionKey
	cfg.Log.Format = "text"
	// No rate limit on a developer's own machine: load tests and scripted integrations
	// against the dev server should measure the server, not the limit (serve has it).
	cfg.HTTP.RateLimit = config.RateLimit{}
	log := newLogger(cfg, stdout)

	ch, err := devchain.Start(ctx, devChainConfig(keys, *dataDir, *rpcAddr, *blockTime, log.With("component", "devchain")))
	if err != nil {
		return inUse(fmt.Errorf("dev: embedded chain: %w", err), *rpcAddr, "--rpc-addr", "127.0.0.1:8555")
	}
	defer ch.Close()
	if err := state.sameChain(ctx, ch, *dataDir); err != nil {
		return err
	}
	state.RPCURL = ch.RPCURL()
	cfg.Networks = []config.Network{devworld.NetworkConfig(ch.RPCURL(), ch.Contracts().Token.Hex())}
	if cfg.Checkout.DepositXPub, err = state.depositXPub(); err != nil {
		return err
	}
	cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(keys.hotWallet.PublicKey).Hex()
	cfg.Secrets.HotWalletKey = hex.EncodeToString(crypto.FromECDSA(keys.hotWallet))
	// Deposits are swept to the deployer's account, the dev chain's own.
	cfg.Checkout.TreasuryAddress = crypto.PubkeyToAddress(keys.deployer.PublicKey).Hex()
	if cfg.Secrets.DepositXPrv, err = state.depositXPrv(); err != nil {
		return err
	}
	cfg.Checkout.Prices = devworld.Prices
	cfg.Checkout.PriceFeeds = devworld.PriceFeeds(ch.Contracts())
	// Refunds are paid automatically up to 1 ETH or 1,000 DUSD; above, an operator approves.
	cfg.Refunds.Assets = []config.RefundAsset{{Network: devNetwork, Symbol: devchain.NativeSymbol, AutoMax: "1"},
		{Network: devNetwork, Symbol: devchain.TokenSymbol, AutoMax: "1000"}}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("dev: %w", err)
	}

	// The chain runs in this process: rampway calls it without a socket; wallets and tools
	// use its HTTP endpoint. The demo merchant and its functions are made on the store and the
	// networks first, so that the demo store, built from dev.json, is one of the app's
	// constructor arguments.
	store, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	networks, err := chain.Dial(ctx, cfg.DomainNetworks(), chain.InProcess(ch.RPCURL(), ch.RPC()))
	if err != nil {
		store.Close()
		return fmt.Errorf("dev: networks: %w", err)
	}
	dj, err := prepareDev(ctx, devServices(cfg, store, networks), cfg.HTTP.BasePaths, ch, state, keys, base)
	if err == nil && cfg.DashboardEnabled() {
		var login devDashboard
		if login, err = ensureDevLogin(ctx, store, state, base); err == nil {
			dj.Dashboard = &login
		}
	}
	if err == nil {
		err = saveJSON(filepath.Join(*dataDir, devStateFile), state)
	}
	if err != nil {
		networks.Close()
		store.Close()
		return err
	}
	a, err := app.Start(ctx, cfg, log, app.Options{Version: version, Store: store, Networks: networks, Listener: ln,
		Home: newDemoStore(base, dj, &http.Client{Timeout: 30 * time.Second}, log.With("component", "demo-store"))})
	if err != nil {
		return err
	}
	// The listener is bound, so requests queue until Serve runs: dev.json may go out first.
	if err := saveJSON(devJSONPath, dj); err != nil {
		a.Close()
		return err
	}
	// dev.json says "ready"; it goes when the server does.
	defer os.Remove(devJSONPath)
	dashLine := ""
	if d := dj.Dashboard; d != nil {
		dashLine = fmt.Sprintf("  dashboard: %s (sign in as %s, password %s)\n", d.URL, d.Email, d.Password)
	}
	started := fmt.Sprintf("in %s", sinceStart().Round(100*time.Millisecond))
	if build, ok := goRunBuild(); ok {
		started += fmt.Sprintf(", after %s of go run building it", build.Round(time.Second))
	}
	fmt.Fprintf(stdout, "\nrampway dev is running at %s (open it: a demo store)\n  started:   %s\n  dev.json:  %s\n  merchant:  %s\n  api key:   %s\n  webhooks:  %s (the demo store's receiver)\n  admin:     %s (Bearer %s)\n%s  chain:     %s (chain id %d, network %q)\n  payer:     %s\nCtrl-C stops it.\n\n",
		base, started, devJSONPath, state.MerchantID, state.APIKey, base+demoWebhookPath, dj.API.AdminBaseURL, state.AdminToken, dashLine, ch.RPCURL(), devchain.ChainID, devNetwork, dj.Chain.PayerAddress)
	return a.Serve(ctx)
}

// devChainConfig is the embedded chain of the dev directory dataDir, made from its keys (the
// same keys open the same chain again).
// inUse adds to err, when a port was in use, the flag that picks another (and an example), so
// that a second `rampway dev` or another program on the port is not a dead end.
func inUse(err error, addr, flag, example string) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return err
	}
	return fmt.Errorf("%w\n%s is in use (another rampway dev, or another program): stop it, or pick another address with %s, e.g. %s %s (port 0 picks a free one)",
		err, addr, flag, flag, example)
}

func devChainConfig(keys *devKeys, dataDir, rpcAddr string, blockTime time.Duration, log *slog.Logger) devchain.Config {
	return devchain.Config{
		RPCAddr: rpcAddr, BlockTime: blockTime, Deployer: keys.deployer, Logger: log,
		DataDir: filepath.Join(dataDir, devChainDir),
		Fund:    devworld.Funding(crypto.PubkeyToAddress(keys.payer.PublicKey), crypto.PubkeyToAddress(keys.hotWallet.PublicKey)),
	}
}

// depositXPrv returns the xprv of the dev deposit addresses (depositXPub makes their seed).
func (st *devState) depositXPrv() (string, error) {
	s, err := hd.FromMnemonic(st.DepositMnemonic, "")
	if err != nil {
		return "", fmt.Errorf("dev: %s: %w", devStateFile, err)
	}
	return s.XPrv(), nil
}

// depositXPub returns the xpub of the dev deposit addresses, making their seed on the first run.
func (st *devState) depositXPub() (string, error) {
	if st.DepositMnemonic == "" {
		m, err := hd.NewMnemonic()
		if err != nil {
			return "", fmt.Errorf("dev: %w", err)
		}
		st.DepositMnemonic = m
	}
	s, err := hd.FromMnemonic(st.DepositMnemonic, "")
	if err != nil {
		return "", fmt.Errorf("dev: %s: %w", devStateFile, err)
	}
	return s.XPub()
}

// devServices are the use cases the dev world is made through, on the dev configuration's
// store and networks.
func devServices(cfg config.Config, store *sqlstore.Store, nets *chain.Networks) devworld.Services {
	return devworld.Services{Merchants: app.NewMerchantService(cfg, store, 0), Functions: app.NewRegistry(cfg, store, nets, 0),
		Deposits: app.NewDepositAddresses(cfg, store, nets, 0)}
}

// prepareDev makes sure the demo merchant, its functions and its deposit addresses exist
// (devworld), keeps the merchant's credentials in st, and returns dev.json.
func prepareDev(ctx context.Context, svc devworld.Services, bp config.BasePaths, ch *devchain.Chain, st *devState, keys *devKeys,
	base string) (devJSON, error) {
	depositAddr, err := st.merchantDepositAddress()
	if err != nil {
		return devJSON{}, err
	}
	c := ch.Contracts()
	w, err := devworld.Ensure(ctx, svc, devworld.Spec{
		Merchant:  devworld.Merchant{ID: st.MerchantID, APIKey: st.APIKey, WebhookSecret: st.WebhookSecret},
		Contracts: c, DepositAddress: depositAddr,
		WebhookURL: base + demoWebhookPath, LogoURL: demoAssetURL(base, demoLogo), NFTImageURL: demoAssetURL(base, demoNFTImage)})
	if err != nil {
		return devJSON{}, fmt.Errorf("dev: %w", err)
	}
	st.MerchantID, st.APIKey, st.WebhookSecret = w.Merchant.ID, w.Merchant.APIKey, w.Merchant.WebhookSecret
	payer := crypto.PubkeyToAddress(keys.payer.PublicKey)
	var fns []devFunction
	for _, f := range w.Functions {
		fns = append(fns, devFunctionOf(f, c, payer))
	}
	var addrs []devMerchantDepositAddress
	for _, a := range w.DepositAddresses {
		addrs = append(addrs, devMerchantDepositAddress{Symbol: a.Symbol, Network: a.Network, Address: a.Address.Hex()})
	}
	return devJSON{
		API: devAPI{MintBaseURL: base + bp.Mint, NFTRampBaseURL: base + bp.NFTRamp,
			DepositBaseURL: base + bp.Deposit, AdminBaseURL: base + bp.Admin},
		AdminToken: st.AdminToken,
		Merchant:   devMerchant{MerchantID: st.MerchantID, APIKey: st.APIKey, WebhookSecret: st.WebhookSecret, DepositAddresses: addrs},
		Chain: devChainInfo{Network: devNetwork, ChainID: devchain.ChainID, RPCURL: ch.RPCURL(),
			PayerPrivateKey: "0x" + hex.EncodeToString(crypto.FromECDSA(keys.payer)), PayerAddress: payer.Hex()},
		Assets: []devAsset{
			{Symbol: devchain.NativeSymbol, Network: devNetwork, ContractAddress: "", Decimals: 18},
			{Symbol: devchain.TokenSymbol, Network: devNetwork, ContractAddress: c.Token.Hex(), Decimals: devchain.TokenDecimals},
		},
		Contracts:              devContracts{NFT: c.NFT.Hex(), Token: c.Token.Hex(), PriceFeed: c.PriceFeed.Hex(), Multicall3: c.Multicall.Hex()},
		SmartContractFunctions: fns,
		Fiat:                   devFiat{TestCards: devCards()},
	}, nil
}

// devFunctionOf is a demo function as dev.json lists it, with a working example: one token
// minted to payer.
func devFunctionOf(f devworld.Function, c devchain.Contracts, payer common.Address) devFunction {
	r := f.Registered
	ex := devExecution{SmartContractFunctionID: r.ID, FunctionArgs: map[string]any{"to": payer.Hex(), "quantity": "1"},
		NetworkParams: devNetworkParams{NetworkName: devNetwork}}
	switch f.Payable {
	case devchain.NativeSymbol:
		ex.Payment = &devPayment{PayableCryptoSymbol: f.Payable, PayableCryptoContractAddress: "", TotalValue: f.TotalValue}
	case devchain.TokenSymbol:
		ex.Payment = &devPayment{PayableCryptoSymbol: f.Payable, PayableCryptoContractAddress: c.Token.Hex(), TotalValue: f.TotalValue}
	}
	return devFunction{ID: r.ID, ContractAddress: r.Contract.Hex(), ABI: json.RawMessage(r.ABI), PayableSymbol: r.PayableSymbol, Example: ex}
}

// merchantDepositAddress returns the demo merchant's deposit address, making its key on the
// first run: an account of its own (not the payer, the hot wallet or the treasury), which no
// genesis funds.
func (st *devState) merchantDepositAddress() (common.Address, error) {
	if st.MerchantDepositKey == "" {
		key, err := crypto.GenerateKey()
		if err != nil {
			return common.Address{}, fmt.Errorf("dev: %w", err)
		}
		st.MerchantDepositKey = hex.EncodeToString(crypto.FromECDSA(key))
	}
	key, err := crypto.HexToECDSA(st.MerchantDepositKey)
	if err != nil {
		return common.Address{}, fmt.Errorf("dev: %s holds a bad merchant deposit key: %w", devStateFile, err)
	}
	return crypto.PubkeyToAddress(key.PublicKey), nil
}

// devKeys are the dev chain's keys.
type devKeys struct {
	deployer, payer, hotWallet *ecdsa.PrivateKey
}

// keys parses (making on the first run) the chain keys.
func (st *devState) keys() (*devKeys, error) {
	var k devKeys
	for _, p := range []struct {
		hex *string
		key **ecdsa.PrivateKey
	}{{&st.DeployerKey, &k.deployer}, {&st.PayerKey, &k.payer}, {&st.HotWalletKey, &k.hotWallet}} {
		if *p.hex == "" {
			key, err := crypto.GenerateKey()
			if err != nil {
				return nil, fmt.Errorf("dev: %w", err)
			}
			*p.hex = hex.EncodeToString(crypto.FromECDSA(key))
		}
		key, err := crypto.HexToECDSA(*p.hex)
		if err != nil {
			return nil, fmt.Errorf("dev: %s holds a bad key: %w", devStateFile, err)
		}
		*p.key = key
	}
	return &k, nil
}

// loadDevState reads the data directory's secrets, making new ones on the first run.
func loadDevState(dir string) (*devState, error) {
	path := filepath.Join(dir, devStateFile)
	var st devState
	read, err := devworld.ReadState(dir)
	switch {
	case err == nil:
		st.State = *read
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, devworld.ErrStateDamaged):
		return nil, fmt.Errorf("dev: %s is damaged (delete the data directory to start over): %w", path, err)
	default:
		return nil, fmt.Errorf("dev: %w", err)
	}
	for _, s := range []*string{&st.AdminToken, &st.HashSecret, &st.EncryptionKey} {
		if *s == "" {
			*s = devSecret()
		}
	}
	return &st, nil
}

// devSecret returns a random secret marked as a dev one (production refuses those).
func devSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return config.DevSecretPrefix + hex.EncodeToString(b[:])
}

// saveJSON writes v to path atomically (readers see the old file or the whole new one), 0600.
func saveJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// sameChain checks that the chain ch goes on from the one the database in dataDir knows: its
// orders' deposits, the hot wallet's nonces and the watcher's cursor all belong to one chain.
// A directory whose chain was made anew (its chain directory removed, or made by a version
// of rampway that did not keep the chain) is refused rather than run with another chain's
// state (transactions at nonces the new chain never saw, cursors past its head).
func (st *devState) sameChain(ctx context.Context, ch *devchain.Chain, dataDir string) error {
	b1, err := ch.Client().HeaderByNumber(ctx, big.NewInt(1))
	if err != nil {
		return fmt.Errorf("dev: embedded chain: read block 1: %w", err)
	}
	hash := b1.Hash().Hex()
	switch {
	case st.ChainBlock1 == hash:
		return nil
	case st.ChainBlock1 == "" && st.MerchantID == "":
		st.ChainBlock1 = hash // a new directory
		return nil
	default:
		return fmt.Errorf("dev: the database in %s belongs to another chain than the one in %s (made anew): remove %s to start afresh",
			dataDir, filepath.Join(dataDir, devChainDir), dataDir)
	}
}

// reachable is addr with an unspecified host (":8080", "0.0.0.0:8080", "[::]:8080") made
// the loopback address, for URLs a client on this machine can call.
func reachable(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
