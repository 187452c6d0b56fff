package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
)

const keysUsage = `Usage: rampway keys new [--keystore-dir DIR] [--passphrase-file FILE] [--json]

Generates what a production 'rampway serve' needs and prints where each value goes:
  - the deposit seed: a BIP-39 mnemonic (24 words), its extended public key for
    checkout.deposit_xpub (the API side) and its extended private key for
    RAMPWAY_DEPOSIT_XPRV (the sweeper), both of m/44'/60'/0'/0;
  - the hot wallet: a new key in an encrypted go-ethereum keystore file written to DIR
    (mode 0600), for checkout.hot_wallet_keystore, unlocked by RAMPWAY_HOT_WALLET_PASSPHRASE
    (random unless that variable is set or --passphrase-file is given);
  - RAMPWAY_ADMIN_TOKEN, RAMPWAY_HASH_SECRET and RAMPWAY_ENCRYPTION_KEY.
Nothing but the keystore file is written: copy each value to where it goes.

Flags:
  --keystore-dir DIR        where the keystore file goes (default: the current directory)
  --passphrase-file FILE    the keystore's passphrase: FILE's first line
  --json                    print one JSON object instead of text
  --light-kdf               encrypt the keystore with a fast, weak scrypt (tests only)
`

// keysNew is what `rampway keys new` prints (its --json form).
type keysNew struct {
	// Env is the environment of every instance; secrets all.
	Env map[string]string `json:"env"`
	// SweeperEnv is the environment of the instance that sweeps deposits only.
	SweeperEnv map[string]string `json:"sweeper_env"`
	// Config are configuration file fields (YAML paths), none of them secret.
	Config    map[string]string `json:"config"`
	Deposit   keysDeposit       `json:"deposit"`
	HotWallet keysHotWallet     `json:"hot_wallet"`
	Warnings  []string          `json:"warnings"`
}

// keysDeposit is the deposit seed and its extended keys.
type keysDeposit struct {
	// Mnemonic is the seed (no BIP-39 passphrase): stored offline, on no server.
	Mnemonic       string `json:"mnemonic"`
	DerivationPath string `json:"derivation_path"`
	XPub           string `json:"xpub"`
	XPrv           string `json:"xprv"`
	// FirstAddress is deposit address 0 (ChainPath/0): a wallet restoring the mnemonic shows
	// it as its first account's address.
	FirstAddress string `json:"first_address"`
}

// keysHotWallet is the new hot wallet.
type keysHotWallet struct {
	Address      string `json:"address"`
	KeystoreFile string `json:"keystore_file"`
	// PassphraseGiven is true when the passphrase came from the environment or a file (it is
	// then not printed); false when it was generated (it is in Env).
	PassphraseGiven bool `json:"passphrase_given"`
}

func runKeys(_ context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, keysUsage)
		if len(args) == 0 {
			return errors.New("keys: no command given")
		}
		return nil
	}
	if args[0] != "new" {
		fmt.Fprint(stdout, keysUsage)
		return fmt.Errorf("keys: unknown command %q", args[0])
	}
	fset := flag.NewFlagSet("keys new", flag.ContinueOnError)
	fset.SetOutput(stdout)
	fset.Usage = func() { fmt.Fprint(stdout, keysUsage) }
	dir := fset.String("keystore-dir", ".", "where the keystore file goes")
	passFile := fset.String("passphrase-file", "", "the keystore's passphrase: the file's first line")
	asJSON := fset.Bool("json", false, "print one JSON object")
	lightKDF := fset.Bool("light-kdf", false, "a fast, weak scrypt for the keystore (tests only)")
	if err := fset.Parse(args[1:]); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("keys new: unexpected arguments %v", fset.Args())
	}

	passphrase, given := getenv(config.EnvHotWalletPassphrase), true
	if *passFile != "" {
		data, err := os.ReadFile(*passFile)
		if err != nil {
			return fmt.Errorf("keys new: --passphrase-file: %w", err)
		}
		passphrase, _, _ = strings.Cut(string(data), "\n")
		passphrase = strings.TrimSuffix(passphrase, "\r")
		if passphrase == "" {
			return fmt.Errorf("keys new: --passphrase-file: %s's first line is empty", *passFile)
		}
	}
	if passphrase == "" {
		passphrase, given = randomSecret(), false
	}

	out, err := newKeys(*dir, passphrase, given, *lightKDF)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	printKeys(stdout, out)
	return nil
}

// randomSecret is 256 random bits in hex: long enough for every check of config.Validate,
// and safe in any shell, env file or YAML.
func randomSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails
	return hex.EncodeToString(b[:])
}

// newKeys makes the deposit seed, the hot wallet's keystore file in dir and the service's
// secrets, and checks that each works as `rampway serve` will use it.
func newKeys(dir, passphrase string, passphraseGiven, lightKDF bool) (*keysNew, error) {
	mnemonic, err := hd.NewMnemonic()
	if err != nil {
		return nil, fmt.Errorf("keys new: deposit seed: %w", err)
	}
	seed, err := hd.FromMnemonic(mnemonic, "")
	if err != nil {
		return nil, fmt.Errorf("keys new: deposit seed: %w", err)
	}
	xpub, err := seed.XPub()
	if err != nil {
		return nil, fmt.Errorf("keys new: deposit xpub: %w", err)
	}
	xprv := seed.XPrv()
	// What the API side derives from the xpub is what the sweeper spends with the xprv.
	deriver, err := hd.FromXPub(xpub)
	if err != nil {
		return nil, fmt.Errorf("keys new: deposit xpub: %w", err)
	}
	first, err := deriver.Address(0)
	if err != nil {
		return nil, fmt.Errorf("keys new: deposit address 0: %w", err)
	}
	sweeper, err := hd.FromXPrv(xprv)
	if err != nil {
		return nil, fmt.Errorf("keys new: deposit xprv: %w", err)
	}
	if k, err := sweeper.Key(0); err != nil || crypto.PubkeyToAddress(k.PublicKey) != first {
		return nil, errors.New("keys new: the xprv's address 0 is not the xpub's (a bug: nothing was written)")
	}

	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("keys new: --keystore-dir: %w", err)
	}
	n, p := keystore.StandardScryptN, keystore.StandardScryptP
	if lightKDF {
		n, p = keystore.LightScryptN, keystore.LightScryptP
	}
	// StoreKey creates dir (0700) if needed, writes the file (0600) and reads it back.
	acct, err := keystore.StoreKey(abs, passphrase, n, p)
	if err != nil {
		return nil, fmt.Errorf("keys new: hot wallet keystore in %s: %w", abs, err)
	}
	if s, err := chain.LoadKeystore(acct.URL.Path, passphrase); err != nil || s.Address() != acct.Address {
		return nil, fmt.Errorf("keys new: hot wallet keystore %s does not open as rampway serve opens it: %v", acct.URL.Path, err)
	}

	out := &keysNew{
		Env: map[string]string{
			config.EnvAdminToken:    randomSecret(),
			config.EnvHashSecret:    randomSecret(),
			config.EnvEncryptionKey: randomSecret(),
		},
		SweeperEnv: map[string]string{config.EnvDepositXPrv: xprv},
		Config: map[string]string{
			"checkout.deposit_xpub":        xpub,
			"checkout.hot_wallet_address":  acct.Address.Hex(),
			"checkout.hot_wallet_keystore": acct.URL.Path,
		},
		Deposit:   keysDeposit{Mnemonic: mnemonic, DerivationPath: hd.ChainPath, XPub: xpub, XPrv: xprv, FirstAddress: first.Hex()},
		HotWallet: keysHotWallet{Address: acct.Address.Hex(), KeystoreFile: acct.URL.Path, PassphraseGiven: passphraseGiven},
		Warnings: []string{
			"This output holds secrets: keep it out of shell history, CI logs and tickets.",
			"The mnemonic and the xprv spend every deposit: store the mnemonic offline (paper, a safe), never on a server; " +
				"put the xprv only in the sweeping instance's environment.",
			"The keystore file and its passphrase together spend the hot wallet: keep them apart (the file on the server, the passphrase in a secret manager).",
			"Changing " + config.EnvHashSecret + " invalidates every API key; losing " + config.EnvEncryptionKey + " loses every webhook secret stored with it.",
			"checkout.treasury_address (where deposits are swept) is not generated here: use the address of a wallet you hold offline.",
		},
	}
	if lightKDF {
		out.Warnings = append(out.Warnings, "--light-kdf: the keystore is weakly encrypted; make a new one for production.")
	}
	if !passphraseGiven {
		out.Env[config.EnvHotWalletPassphrase] = passphrase
	}
	return out, nil
}

// printKeys prints out for a person: each value under the place it goes.
func printKeys(w io.Writer, k *keysNew) {
	pass := config.EnvHotWalletPassphrase + "=" + k.Env[config.EnvHotWalletPassphrase]
	if k.HotWallet.PassphraseGiven {
		pass = "# " + config.EnvHotWalletPassphrase + ": the passphrase you gave (not printed)"
	}
	fmt.Fprintf(w, `rampway keys new: the keys and secrets of a production 'rampway serve'.
Only the keystore file was written; copy every other value now to where it goes.

1. Environment of every instance (a secret manager, or an env file only rampway can read;
   never the config file, never a repository):

%s=%s
%s=%s
%s=%s
%s

2. Environment of the sweeping instance only (it spends the deposits):

%s=%s

3. Configuration file (rampway.yaml); nothing here is secret:

checkout:
  # or %s; deposit address i is %s/i
  deposit_xpub: %s
  hot_wallet_address: %q
  hot_wallet_keystore: %s
  treasury_address: "0x..."   # not generated: your own cold wallet, where deposits are swept

   Every instance that executes orders needs the keystore file (mode 0600) at that path.
   Fund the hot wallet with the native coin for gas and with the assets your merchants'
   functions are paid in: it executes paid orders with its own liquidity.

4. Offline only (paper, a safe; never on a server): the deposit seed, a BIP-39 mnemonic
   without passphrase. A standard wallet (MetaMask, a Ledger) restoring it shows deposit
   address 0, %s, as its first account.
   Use this seed for nothing else: its accounts are the deposit addresses.

`, config.EnvAdminToken, k.Env[config.EnvAdminToken], config.EnvHashSecret, k.Env[config.EnvHashSecret],
		config.EnvEncryptionKey, k.Env[config.EnvEncryptionKey], pass,
		config.EnvDepositXPrv, k.SweeperEnv[config.EnvDepositXPrv],
		config.EnvDepositXPub, k.Deposit.DerivationPath, k.Deposit.XPub, k.HotWallet.Address, yamlString(k.HotWallet.KeystoreFile),
		k.Deposit.FirstAddress)
	// Numbered, six to a line, for writing down.
	var line strings.Builder
	words := strings.Fields(k.Deposit.Mnemonic)
	for i, word := range words {
		fmt.Fprintf(&line, "%4d %-10s", i+1, word)
		if (i+1)%6 == 0 || i == len(words)-1 {
			fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
			line.Reset()
		}
	}
	fmt.Fprint(w, "\nWarnings:\n")
	for _, s := range k.Warnings {
		fmt.Fprintf(w, "  - %s\n", s)
	}
}

// yamlString quotes s for YAML when it needs it (a path with spaces or YAML's own characters).
func yamlString(s string) string {
	if strings.ContainsAny(s, " :#'\"{}[],&*!|>%@`\\") {
		b, _ := json.Marshal(s) // a JSON string is a YAML double-quoted string
		return string(b)
	}
	return s
}
