package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/httpapi"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider"
)

const adminUsage = `Usage: rampway admin (--config FILE | --data-dir DIR) COMMAND [ARGS]

Works directly on the configured database (or a 'rampway dev' data directory) and prints
JSON, the same objects the admin HTTP API returns. Warnings in them (a merchant with a
webhook URL and no webhook secret gets no webhooks) are also printed on stderr.

Commands:
  merchants create --name NAME [--webhook-url URL] [--service-fee-bps N] [--logo-url URL]
  merchants get MERCHANT_ID
  merchants list [--limit N] [--starting-after MERCHANT_ID]
  merchants update MERCHANT_ID [--name NAME] [--webhook-url URL] [--status active|disabled]
                   [--service-fee-bps N|default] [--logo-url URL]
                                        --service-fee-bps: the merchant's own service fee,
                                        0 to 10000 basis points of the paid value; 'default'
                                        (or none) uses checkout.service_fee_bps
                                        --logo-url: the logo the checkout page shows beside
                                        the name, an https URL (http in dev); '' removes it
                   [--refund-policy JSON]   the refunds the merchant asks for, per currency:
                                        '{"EUR": {"approval_above": "100", "daily_cap": "1000"}}'
                                        (above approval_above they wait for an operator;
                                        daily_cap per UTC day and mode); '{}' removes it
  api-keys create MERCHANT_ID [--mode test|live]
                                        prints the new key once; earlier keys stay valid.
                                        A test key (rw_test_) sees and creates test orders
                                        only, a live key (rw_live_) live ones; default live
                                        (test with --data-dir of rampway dev)
  api-keys list MERCHANT_ID
  api-keys revoke MERCHANT_ID KEY_ID    revoked at once
  webhook-secret rotate MERCHANT_ID [--mode test|live] [--secret SECRET] [--grace-period 24h]
                                        sets a new secret of the mode (random unless given;
                                        it signs the events of that mode's orders) and prints
                                        it; the old one keeps signing for the grace period
  contract-functions register MERCHANT_ID --network NAME --address 0x... --abi JSON|@FILE
                     --gas-limit N [--payable-symbol SYMBOL]
                     [--display-name TEXT] [--image-url URL]
                                        checks the contract on the network (which must be
                                        reachable) and prints the smartContractFunctionId;
                                        the checkout page shows the display name (at most
                                        100 characters; the ABI name without one) and the
                                        image (an https URL, http in dev)
  contract-functions list MERCHANT_ID
  contract-functions get MERCHANT_ID FUNCTION_ID
  contract-functions disable MERCHANT_ID FUNCTION_ID
  deposit-addresses set MERCHANT_ID --network NAME --symbol SYMBOL --address 0x...
                                        where area C sends the merchant that asset on that
                                        network (replacing the one there was); a contract is
                                        accepted only if a transfer of the asset to it
                                        succeeds in simulation (the network must be reachable)
  deposit-addresses list MERCHANT_ID
  deposit-addresses delete MERCHANT_ID --network NAME --symbol SYMBOL
  webhooks list MERCHANT_ID ORDER_ID    the order's webhook log: each event, its attempts
  webhooks resend MERCHANT_ID ORDER_ID EVENT_ID
                                        sends the event again (same eventId and body)
  refunds create ORDER_ID [--amount AMOUNT] [--reason TEXT] [--address 0x...]
                                        refunds all (default: what is left) or part of what
                                        an order that succeeded was paid, for its merchant,
                                        in its currency (area A its asset, paid back on chain
                                        to --address or the payer; areas B and C its fiat
                                        currency, through the payment's provider); the
                                        merchant's refund policy applies
  refunds list [--status STATUS] [--network NAME] [--limit N]
                                        refunds, oldest first (statuses: pending,
                                        awaiting_address, awaiting_approval, sent, done,
                                        failed, dust; --limit 1 to 1000, default 20)
  refunds show REFUND_ID
  refunds approve REFUND_ID [--by NAME] approves a refund awaiting approval (above its
                                        asset's automatic limit), or one that failed, to be
                                        sent again; --by is recorded (default "admin")
  refunds reject REFUND_ID [--by NAME] [--reason TEXT]
                                        refuses a merchant's refund awaiting approval: it
                                        fails, nothing is sent, the merchant hears
                                        order.refund.failed (a refund the service owes on
                                        its own is never refused)
  refunds set-address REFUND_ID ADDRESS gives a refund awaiting an address (or one that
                                        failed) the address it is sent to; checked as the
                                        merchant's and the page's are (the network must be
                                        reachable: a contract must take a simulated transfer)
  fiat-actions list [--status STATUS] [--limit N] [--starting-after ACTION_ID]
                                        captures, voids and refunds by status, oldest change
                                        first (default needs_operator: those the provider
                                        kept refusing past fiat.action_give_up_after)
  fiat-actions retry ACTION_ID          tries one that needs an operator again, at once
  fiat-actions resolve ACTION_ID --note TEXT
                                        records one that needs an operator as done by hand
                                        at the provider (the note says what was done)
  ledger drifts [--network NAME]       the differences standing between the ledger and the
                                        chain (docs/ledger.md): accounts rampway holds whose
                                        balance on chain is not the ledger's
  ledger accept ACCOUNT ASSET --note TEXT
                                        records a drift whose cause was found (a hot wallet
                                        funded by hand) as an adjustment at its block, and
                                        clears it
  ledger report [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                                        per day (UTC) and asset: in, out, network fees, held
                                        at the day's end (base units; default the last 30
                                        days)
  ledger transfers REF|ACCOUNT          the double-entry transfers of an order, sweep, refund
                                        or fiat payment, or of an account (hot/NETWORK/0x...)
  users add --email EMAIL --role owner|developer|support|viewer --merchant MERCHANT_ID [--password P]
  users add --email EMAIL --role operator [--password P]
                                        a dashboard user (/dashboard) of a merchant, or an
                                        operator (of every merchant, no --merchant); the
                                        password has at least 12 characters: without
                                        --password one is made up and printed once
  users list [--merchant MERCHANT_ID]   dashboard users (of one merchant), never a password
  deposit-index show                    the derivation index of the next order's deposit
                                        address
  deposit-index advance --by N          moves it on by N: after a restore from a backup,
                                        run it (N above the orders made since the backup)
                                        before serving, or their deposit addresses are
                                        given again to new orders
  nonces show                           each hot wallet's next nonce, by network
  nonces adopt --network NAME --wallet ADDRESS --next N
                                        after the executor refused to sign (the wallet's
                                        nonce on chain past the database's: used outside
                                        rampway, or a restore from an older backup) and the
                                        wallet's transactions were checked against the
                                        orders: N, the chain's nonce, becomes the next
  PROVIDER OPERATION --FIELD VALUE ...  a payment provider's own operation, PROVIDER its
                                        name in fiat.providers (docs/providers.md lists
                                        them: a test provider's bank transfer arriving, say);
                                        the running server acts on it within a second
`

// runAdmin runs an admin command: its JSON goes to stdout, warnings (a merchant that gets no
// webhooks, say) to stderr as well, where a person at a terminal sees them.
func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("admin", flag.ContinueOnError)
	fset.SetOutput(stdout)
	fset.Usage = func() { fmt.Fprint(stdout, adminUsage) }
	path := fset.String("config", getenv("RAMPWAY_CONFIG"), "configuration file (env RAMPWAY_CONFIG)")
	dataDir := fset.String("data-dir", "", "a 'rampway dev' data directory instead of --config")
	if err := fset.Parse(args); err != nil {
		return err
	}
	rest := fset.Args()
	if len(rest) == 0 || rest[0] == "help" {
		fmt.Fprint(stdout, adminUsage)
		if len(rest) == 0 {
			return errors.New("admin: no command given")
		}
		return nil
	}
	var cfg config.Config
	switch {
	case *dataDir != "":
		st, err := readDevState(*dataDir)
		if err != nil {
			return err
		}
		cfg = config.Default()
		cfg.Mode = config.ModeDev
		cfg.HTTP.PublicURL = "http://127.0.0.1"
		cfg.Database.Path = filepath.Join(*dataDir, devDBFile)
		cfg.Admin.Token, cfg.Secrets.HashSecret, cfg.Secrets.EncryptionKey = st.AdminToken, st.HashSecret, st.EncryptionKey
		if st.RPCURL != "" {
			keys, err := st.keys()
			if err != nil {
				return err
			}
			token := devchain.ContractAddresses(crypto.PubkeyToAddress(keys.deployer.PublicKey)).Token
			cfg.Networks = []config.Network{devworld.NetworkConfig(st.RPCURL, token.Hex())}
			cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(keys.hotWallet.PublicKey).Hex()
		}
	case *path != "":
		var err error
		if cfg, err = config.Load(*path, getenv); err != nil {
			return err
		}
	default:
		return errors.New("admin: --config FILE or --data-dir DIR is required")
	}
	store, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	// Only registering a function and setting a deposit address need the chain; every other
	// command works offline.
	registry := func(online bool) (*contract.Registry, func(), error) {
		if !online {
			return contract.NewRegistry(contract.RegistryConfig{}, store, offline{}, nil), func() {}, nil
		}
		nets, err := chain.Dial(ctx, cfg.DomainNetworks())
		if err != nil {
			return nil, nil, fmt.Errorf("networks: %w", err)
		}
		return app.NewRegistry(cfg, store, nets, 0), nets.Close, nil
	}
	deposits := func(online bool) (*merchant.DepositAddresses, func(), error) {
		if !online {
			return merchant.NewDepositAddresses(merchant.DepositAddressesConfig{}, store, offline{}, nil), func() {}, nil
		}
		nets, err := chain.Dial(ctx, cfg.DomainNetworks())
		if err != nil {
			return nil, nil, fmt.Errorf("networks: %w", err)
		}
		return app.NewDepositAddresses(cfg, store, nets, 0), nets.Close, nil
	}
	// Refunds: only giving an address needs the chain (a contract is tested with a simulated
	// transfer from the hot wallet).
	refunds := func(online bool) (*checkout.Refunds, func(), error) {
		hot := common.HexToAddress(cfg.Checkout.HotWalletAddress)
		if !online {
			return checkout.NewRefunds(store, offline{}, hot, nil), func() {}, nil
		}
		nets, err := chain.Dial(ctx, cfg.DomainNetworks())
		if err != nil {
			return nil, nil, fmt.Errorf("networks: %w", err)
		}
		return checkout.NewRefunds(store, nets, hot, nil), nets.Close, nil
	}
	records := checkout.NewRecords(store, nil) // webhook logs and fiat actions need only the store
	var out any
	switch {
	case slices.Contains(cfg.FiatProviderNames(), rest[0]):
		out, err = providerCommand(ctx, cfg, store, rest)
	case rest[0] == "users":
		out, err = usersCommand(ctx, dashboard.NewAccounts(store, dashboard.Config{}, nil), rest)
	case rest[0] == "deposit-index":
		out, err = depositIndexCommand(ctx, store, rest)
	case rest[0] == "nonces":
		out, err = noncesCommand(ctx, store, rest)
	case rest[0] == "ledger":
		out, err = ledgerCommand(ctx, store, rest)
	default:
		out, err = adminCommand(ctx, app.NewMerchantService(cfg, store, 0), registry, deposits, refundCases{refunds, store}, records, rest)
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	for _, w := range adminWarnings(out) {
		fmt.Fprintln(stderr, "rampway: warning:", w)
	}
	return nil
}

// adminWarnings are the warnings of an admin command's output: each merchant's in it.
func adminWarnings(out any) []string {
	var ms []httpapi.MerchantView
	switch v := out.(type) {
	case httpapi.MerchantView:
		ms = []httpapi.MerchantView{v}
	case httpapi.ListView[httpapi.MerchantView]:
		ms = v.Data
	}
	var ws []string
	for _, m := range ms {
		if m.Warning != "" {
			ws = append(ws, "merchant "+m.MerchantID+": "+m.Warning)
		}
	}
	return ws
}

// readDevState reads an existing dev data directory's secrets.
func readDevState(dir string) (*devState, error) {
	st, err := devworld.ReadState(dir)
	if errors.Is(err, devworld.ErrStateDamaged) {
		return nil, fmt.Errorf("admin: %w", err)
	} else if err != nil {
		return nil, fmt.Errorf("admin: %s is not a 'rampway dev' data directory: %w", dir, err)
	}
	return &devState{*st}, nil
}

// refundCases are the refund use cases of the admin commands, offline or online, and the
// orders their views read the asset from.
type refundCases struct {
	open   func(online bool) (*checkout.Refunds, func(), error)
	orders httpapi.OrderReader
}

// adminCommand runs one command and returns what to print.
func adminCommand(ctx context.Context, svc *merchant.Service, registry func(online bool) (*contract.Registry, func(), error),
	deposits func(online bool) (*merchant.DepositAddresses, func(), error), refunds refundCases, records orderRecords,
	args []string) (any, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("admin: %q needs a sub-command (rampway admin help)", args[0])
	}
	group, verb, rest := args[0], args[1], args[2:]
	fset := flag.NewFlagSet(group+" "+verb, flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	name := fset.String("name", "", "merchant name")
	webhookURL := fset.String("webhook-url", "", "default webhook URL")
	status := fset.String("status", "", "active or disabled")
	limit := fset.Int("limit", 20, "page size")
	after := fset.String("starting-after", "", "list after this merchant id")
	secret := fset.String("secret", "", "webhook secret to set (random when empty)")
	grace := fset.Duration("grace-period", 0, "keep the replaced webhook secret valid this long (e.g. 24h)")
	mode := fset.String("mode", "", "the mode of the key or webhook secret: test or live (default: live; test in dev)")
	note := fset.String("note", "", "what was done by hand at the provider")
	network := fset.String("network", "", "network name")
	address := fset.String("address", "", "contract or deposit address")
	symbol := fset.String("symbol", "", "an asset's symbol, such as ETH")
	abiArg := fset.String("abi", "", "the function's ABI fragment, or @FILE")
	gasLimit := fset.Uint64("gas-limit", 0, "default gas limit")
	payable := fset.String("payable-symbol", "", "asset paid to the function")
	feeArg := fset.String("service-fee-bps", "", "the merchant's service fee in basis points, or default")
	logoURL := fset.String("logo-url", "", "the merchant's logo on the checkout page")
	displayName := fset.String("display-name", "", "what the checkout page says is bought")
	imageURL := fset.String("image-url", "", "the image the checkout page shows of it")
	by := fset.String("by", "", "who approves or refuses (default admin)")
	amount := fset.String("amount", "", "an amount of the order's currency (default: all that is left)")
	reason := fset.String("reason", "", "why the refund is made")
	refundPolicy := fset.String("refund-policy", "", `the merchant's refund policy, JSON: {"EUR": {"approval_above": "100", "daily_cap": "1000"}}`)
	// Positional arguments come first, flags after them.
	var pos []string
	for len(rest) > 0 && (len(rest[0]) == 0 || rest[0][0] != '-') {
		pos, rest = append(pos, rest[0]), rest[1:]
	}
	if err := fset.Parse(rest); err != nil {
		return nil, fmt.Errorf("admin %s %s: %w", group, verb, err)
	}
	pos = append(pos, fset.Args()...)
	set := map[string]bool{}
	fset.Visit(func(f *flag.Flag) { set[f.Name] = true })
	need := func(n int, what string) error {
		if len(pos) != n {
			return fmt.Errorf("admin %s %s: expects %s", group, verb, what)
		}
		return nil
	}
	// serviceFee reads --service-fee-bps: N, or "default" (nil) for the configured default.
	serviceFee := func() (*int64, error) {
		if *feeArg == "default" {
			return nil, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(*feeArg), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("admin %s %s: --service-fee-bps must be an integer between 0 and %d or \"default\", not %q",
				group, verb, merchant.MaxServiceFeeBPS, *feeArg)
		}
		return &n, nil
	}

	switch group + " " + verb {
	case "merchants create":
		if err := need(0, "no positional arguments"); err != nil {
			return nil, err
		}
		p := merchant.CreateParams{Name: *name, WebhookURL: *webhookURL, LogoURL: *logoURL}
		if set["service-fee-bps"] {
			fee, err := serviceFee()
			if err != nil {
				return nil, err
			}
			p.ServiceFeeBPS = fee
		}
		m, err := svc.Create(ctx, p)
		if err != nil {
			return nil, err
		}
		return httpapi.NewMerchantView(m), nil
	case "merchants get":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		m, err := svc.Get(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		return httpapi.NewMerchantView(m), nil
	case "merchants list":
		if err := need(0, "no positional arguments"); err != nil {
			return nil, err
		}
		if *limit < 1 || *limit > 100 {
			return nil, errors.New("admin: --limit must be between 1 and 100")
		}
		ms, err := svc.List(ctx, rampway.Page{After: *after, Limit: *limit + 1}) // one more: has_more
		if err != nil {
			return nil, err
		}
		return httpapi.NewListView(ms, *limit, httpapi.NewMerchantView), nil
	case "merchants update":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		var p merchant.UpdateParams
		if set["name"] {
			p.Name = name
		}
		if set["webhook-url"] {
			p.WebhookURL = webhookURL
		}
		if set["status"] {
			p.Status = status
		}
		if set["logo-url"] {
			p.LogoURL = logoURL
		}
		if set["service-fee-bps"] {
			fee, err := serviceFee()
			if err != nil {
				return nil, err
			}
			p.SetServiceFeeBPS, p.ServiceFeeBPS = true, fee
		}
		if set["refund-policy"] {
			p.RefundPolicy = map[string]rampway.RefundLimits{}
			dec := json.NewDecoder(strings.NewReader(cmp.Or(*refundPolicy, "{}")))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&p.RefundPolicy); err != nil {
				return nil, fmt.Errorf(`admin: --refund-policy must be JSON such as {"EUR": {"approval_above": "100", "daily_cap": "1000"}}: %w`, err)
			}
		}
		m, err := svc.Update(ctx, pos[0], p)
		if err != nil {
			return nil, err
		}
		return httpapi.NewMerchantView(m), nil
	case "api-keys create":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		live, err := cliMode(*mode, svc.DefaultLivemode())
		if err != nil {
			return nil, err
		}
		k, raw, err := svc.IssueAPIKey(ctx, pos[0], live)
		if err != nil {
			return nil, err
		}
		return httpapi.NewAPIKeyView(k, raw), nil
	case "api-keys list":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		ks, err := svc.APIKeys(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		return httpapi.NewAPIKeyListView(ks), nil
	case "api-keys revoke":
		if err := need(2, "MERCHANT_ID KEY_ID"); err != nil {
			return nil, err
		}
		k, err := svc.RevokeAPIKey(ctx, pos[0], pos[1])
		if err != nil {
			return nil, err
		}
		return httpapi.NewAPIKeyView(k, ""), nil
	case "webhook-secret rotate":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		live, err := cliMode(*mode, svc.DefaultLivemode())
		if err != nil {
			return nil, err
		}
		s, err := svc.SetWebhookSecret(ctx, pos[0], live, *secret, *grace)
		if err != nil {
			return nil, err
		}
		return httpapi.WebhookSecretView{MerchantID: pos[0], WebhookSecret: s, Livemode: live}, nil
	case "webhooks list":
		if err := need(2, "MERCHANT_ID ORDER_ID"); err != nil {
			return nil, err
		}
		logs, err := records.Deliveries(ctx, rampway.AdminScope(pos[0]), "", pos[1])
		if err != nil {
			return nil, err
		}
		return httpapi.NewDeliveryLog(logs), nil
	case "webhooks resend":
		if err := need(3, "MERCHANT_ID ORDER_ID EVENT_ID"); err != nil {
			return nil, err
		}
		return httpapi.ResendDelivery(ctx, records, rampway.AdminScope(pos[0]), "", pos[1], pos[2])
	case "contract-functions register":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		abi := *abiArg
		if file, ok := strings.CutPrefix(abi, "@"); ok {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("admin: --abi: %w", err)
			}
			abi = string(data)
		}
		reg, done, err := registry(true)
		if err != nil {
			return nil, err
		}
		defer done()
		f, err := reg.Register(ctx, pos[0], contract.RegisterParams{Network: *network, ContractAddress: *address,
			ABI: json.RawMessage(abi), DefaultGasLimit: *gasLimit, PayableSymbol: *payable, DisplayName: *displayName, ImageURL: *imageURL})
		if err != nil {
			return nil, err
		}
		return httpapi.NewContractFunctionView(f), nil
	case "deposit-addresses set":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		d, done, err := deposits(true)
		if err != nil {
			return nil, err
		}
		defer done()
		a, err := d.Set(ctx, pos[0], merchant.DepositAddressParams{Network: *network, Symbol: *symbol, Address: *address})
		if err != nil {
			return nil, err
		}
		return httpapi.NewDepositAddressView(a), nil
	case "deposit-addresses list":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		d, _, _ := deposits(false)
		as, err := d.List(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		return httpapi.NewDepositAddressListView(as), nil
	case "deposit-addresses delete":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		for _, f := range []struct{ name, v string }{{"network", *network}, {"symbol", *symbol}} {
			if f.v == "" {
				return nil, fmt.Errorf("admin deposit-addresses delete: --%s is required", f.name)
			}
		}
		d, _, _ := deposits(false)
		a, err := d.Get(ctx, pos[0], *network, *symbol)
		if err != nil {
			return nil, err
		}
		if err := d.Delete(ctx, pos[0], *network, *symbol); err != nil {
			return nil, err
		}
		return httpapi.NewDepositAddressView(a), nil
	case "fiat-actions list":
		if err := need(0, "no positional arguments"); err != nil {
			return nil, err
		}
		if *limit < 1 || *limit > 1000 {
			return nil, errors.New("admin: --limit must be between 1 and 1000")
		}
		st := *status
		if st == "" {
			st = string(rampway.ActionNeedsOperator)
		}
		as, err := records.FiatActionsByStatus(ctx, st, *after, *limit+1) // one more: has_more
		if err != nil {
			return nil, err
		}
		return httpapi.NewListView(as, *limit, httpapi.NewFiatActionView), nil
	case "fiat-actions retry", "fiat-actions resolve":
		if err := need(1, "ACTION_ID"); err != nil {
			return nil, err
		}
		var a checkout.OperatorFiatAction
		var err error
		if verb == "retry" {
			a, err = records.RetryFiatAction(ctx, pos[0])
		} else {
			a, err = records.ResolveFiatAction(ctx, pos[0], *note)
		}
		if err != nil {
			return nil, err
		}
		return httpapi.NewFiatActionView(a), nil
	case "refunds list":
		if err := need(0, "no positional arguments"); err != nil {
			return nil, err
		}
		if *limit < 1 || *limit > 1000 {
			return nil, errors.New("admin: --limit must be between 1 and 1000")
		}
		rf, _, _ := refunds.open(false)
		rs, err := rf.List(ctx, rampway.RefundFilter{Status: rampway.RefundStatus(*status), Network: *network, Limit: *limit + 1}) // one more: has_more
		if err != nil {
			return nil, err
		}
		more := len(rs) > *limit
		if more {
			rs = rs[:*limit]
		}
		out, err := (&httpapi.RefundAssets{Orders: refunds.orders}).Views(ctx, rs)
		out.HasMore = more
		return out, err
	case "refunds create":
		if err := need(1, "ORDER_ID"); err != nil {
			return nil, err
		}
		o, err := refunds.orders.Order(ctx, pos[0])
		if rampway.ErrorCode(err) == rampway.ENOTFOUND {
			return nil, rampway.Errorf(rampway.ENOTFOUND, "Order %q not found", rampway.Echo(pos[0]))
		} else if err != nil {
			return nil, err
		}
		rf, done, err := refunds.open(*address != "") // an address is checked on its network
		if err != nil {
			return nil, err
		}
		defer done()
		r, err := rf.Create(ctx, o, checkout.MerchantRefundRequest{Amount: *amount, Reason: *reason, Address: *address, Source: rampway.RefundToAdmin})
		if err != nil {
			return nil, err
		}
		return (&httpapi.RefundAssets{Orders: refunds.orders}).View(ctx, r)
	case "refunds show", "refunds approve", "refunds reject", "refunds set-address":
		want, what := 1, "REFUND_ID"
		if verb == "set-address" {
			want, what = 2, "REFUND_ID ADDRESS"
		}
		if err := need(want, what); err != nil {
			return nil, err
		}
		rf, done, err := refunds.open(verb == "set-address")
		if err != nil {
			return nil, err
		}
		defer done()
		var r *rampway.Refund
		switch verb {
		case "show":
			r, err = rf.Get(ctx, pos[0])
		case "approve":
			r, err = rf.Approve(ctx, pos[0], *by)
		case "reject":
			r, err = rf.Reject(ctx, pos[0], *by, *reason)
		default:
			r, err = rf.SetAddress(ctx, "", pos[0], pos[1], rampway.RefundToAdmin)
		}
		if err != nil {
			return nil, err
		}
		return (&httpapi.RefundAssets{Orders: refunds.orders}).View(ctx, r)
	case "contract-functions list":
		if err := need(1, "MERCHANT_ID"); err != nil {
			return nil, err
		}
		reg, _, _ := registry(false)
		fs, err := reg.List(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		return httpapi.NewListView(fs, 0, httpapi.NewContractFunctionView), nil
	case "contract-functions get", "contract-functions disable":
		if err := need(2, "MERCHANT_ID FUNCTION_ID"); err != nil {
			return nil, err
		}
		reg, _, _ := registry(false)
		get := reg.Get
		if verb == "disable" {
			get = reg.Disable
		}
		f, err := get(ctx, pos[0], pos[1])
		if err != nil {
			return nil, err
		}
		return httpapi.NewContractFunctionView(f), nil
	}
	return nil, fmt.Errorf("admin: unknown command %q (rampway admin help)", group+" "+verb)
}

// providerCommand runs a payment provider's operation (provider.AdminOps): `PROVIDER OPERATION
// --FIELD VALUE ...`, PROVIDER a name of fiat.providers. The provider is built over the store
// (its books are there): what it records, the running server's provider acts on.
func providerCommand(ctx context.Context, cfg config.Config, store *sqlstore.Store, args []string) (any, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("admin: %q needs an operation (rampway admin help)", args[0])
	}
	var pc config.ProviderConfig
	for _, p := range cfg.FiatProviders() {
		if p.Name == args[0] {
			pc = p
		}
	}
	m, _ := provider.Lookup(pc.Module)
	inst, err := m.New(ctx, cfg.ProviderSettings(pc), provider.Deps{Books: store, Now: time.Now})
	if err != nil {
		return nil, fmt.Errorf("admin %s: %w", pc.Name, err)
	}
	var ops []provider.AdminOp
	if o, ok := inst.(provider.AdminOps); ok {
		ops = o.AdminOps()
	}
	for _, op := range ops {
		if op.CLI != args[1] {
			continue
		}
		fset := flag.NewFlagSet(args[0]+" "+args[1], flag.ContinueOnError)
		fset.SetOutput(io.Discard)
		vals := map[string]*string{}
		for _, f := range op.Fields {
			vals[f] = fset.String(f, "", f)
		}
		if err := fset.Parse(args[2:]); err != nil {
			return nil, fmt.Errorf("admin %s %s: %w", args[0], args[1], err)
		}
		if fset.NArg() > 0 {
			return nil, fmt.Errorf("admin %s %s: no positional arguments, not %q", args[0], args[1], fset.Arg(0))
		}
		fields := map[string]string{}
		for _, f := range op.Fields {
			if *vals[f] == "" {
				return nil, fmt.Errorf("admin %s %s: --%s is required", args[0], args[1], f)
			}
			fields[f] = *vals[f]
		}
		return op.Do(ctx, fields)
	}
	var names []string
	for _, op := range ops {
		names = append(names, op.CLI)
	}
	return nil, fmt.Errorf("admin: payment provider %s has no operation %q (it has %v)", args[0], args[1], names)
}

// orderRecords are what the admin commands read and note of orders (checkout.Records): the
// webhook log and its resends, and the fiat actions an operator looks after.
type orderRecords interface {
	httpapi.Webhooks
	FiatActionsByStatus(ctx context.Context, status, after string, limit int) ([]checkout.OperatorFiatAction, error)
	RetryFiatAction(ctx context.Context, id string) (checkout.OperatorFiatAction, error)
	ResolveFiatAction(ctx context.Context, id, note string) (checkout.OperatorFiatAction, error)
}

var _ orderRecords = (*checkout.Records)(nil)

// offline stands for the networks where a command does not need them.
type offline struct{}

func (offline) Network(string) (*rampway.Network, bool) { return nil, false }
func (offline) List() []*rampway.Network                { return nil }
func (offline) HasCode(context.Context, string, common.Address) (bool, error) {
	return false, errors.New("networks are not connected for this command")
}
func (offline) Simulate(context.Context, string, common.Address, []rampway.Call) (string, error) {
	return "", errors.New("networks are not connected for this command")
}

// cliMode reads --mode: "" is def.
func cliMode(mode string, def bool) (bool, error) {
	if mode == "" {
		return def, nil
	}
	live, err := rampway.ParseMode("--mode", mode)
	if err != nil {
		return false, errors.New(rampway.ErrorMessage(err))
	}
	return live, nil
}
