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
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/merchant"
)

// Files in the dev data directory.
const (
	devStateFile = "dev-state.json" // secrets kept across restarts
	devJSONFile  = "dev.json"       // the dev-mode contract, written once ready to serve
	devDBFile    = "rampway.db"
)

// devState is what `rampway dev` keeps in its data directory so a restart serves the same
// merchant with the same keys.
type devState struct {
	AdminToken    string `json:"admin_token"`
	HashSecret    string `json:"hash_secret"`
	EncryptionKey string `json:"encryption_key"`
	MerchantID    string `json:"merchant_id"`
	APIKey        string `json:"api_key"`
	WebhookSecret string `json:"webhook_secret"`
}

// devJSON is DESIGN.md's dev-mode contract; tools outside this repository read it.
type devJSON struct {
	API        devAPI      `json:"api"`
	AdminToken string      `json:"admin_token"`
	Merchant   devMerchant `json:"merchant"`
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
}

func runDev(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fset := flag.NewFlagSet("dev", flag.ContinueOnError)
	fset.SetOutput(stdout)
	addr := fset.String("addr", "127.0.0.1:8080", "HTTP listen address (port 0 picks a free one)")
	dataDir := fset.String("data-dir", ".rampway-dev", "directory for the SQLite database, secrets and dev.json")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		return fmt.Errorf("dev: %w", err)
	}
	devJSONPath := filepath.Join(*dataDir, devJSONFile)
	// A dev.json from an earlier run must not tell tools that this one is ready.
	if err := os.Remove(devJSONPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("dev: %w", err)
	}
	state, err := loadDevState(*dataDir)
	if err != nil {
		return err
	}

	cfg := config.Default()
	cfg.Mode = config.ModeDev
	cfg.HTTP.Addr = *addr
	cfg.HTTP.PublicURL = "http://" + *addr
	cfg.Database.Path = filepath.Join(*dataDir, devDBFile)
	cfg.Admin.Token = state.AdminToken
	cfg.Secrets.HashSecret = state.HashSecret
	cfg.Secrets.EncryptionKey = state.EncryptionKey
	cfg.Log.Format = "text"
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("dev: %w", err)
	}
	log := newLogger(cfg, stdout)
	a, err := startApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	base := "http://" + a.addr()
	a.cfg.HTTP.PublicURL = base

	if err := ensureDemoMerchant(ctx, a.merchants, state); err != nil {
		a.close()
		return err
	}
	if err := saveJSON(filepath.Join(*dataDir, devStateFile), state); err != nil {
		a.close()
		return err
	}
	bp := cfg.HTTP.BasePaths
	dj := devJSON{
		API: devAPI{MintBaseURL: base + bp.Mint, NFTRampBaseURL: base + bp.NFTRamp,
			DepositBaseURL: base + bp.Deposit, AdminBaseURL: base + bp.Admin},
		AdminToken: state.AdminToken,
		Merchant:   devMerchant{MerchantID: state.MerchantID, APIKey: state.APIKey, WebhookSecret: state.WebhookSecret},
	}
	// The listener is bound, so requests queue until Serve runs: dev.json may go out first.
	if err := saveJSON(devJSONPath, dj); err != nil {
		a.close()
		return err
	}
	// dev.json says "ready"; it goes when the server does.
	defer os.Remove(devJSONPath)
	fmt.Fprintf(stdout, "\nrampway dev is running at %s\n  dev.json:  %s\n  merchant:  %s\n  api key:   %s\n  admin:     %s (Bearer %s)\nCtrl-C stops it.\n\n",
		base, devJSONPath, state.MerchantID, state.APIKey, base+bp.Admin, state.AdminToken)
	return a.serve(ctx)
}

// loadDevState reads the data directory's secrets, making new ones on the first run.
func loadDevState(dir string) (*devState, error) {
	path := filepath.Join(dir, devStateFile)
	var st devState
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &st); err != nil {
			return nil, fmt.Errorf("dev: %s is damaged (delete the data directory to start over): %w", path, err)
		}
	case errors.Is(err, fs.ErrNotExist):
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

// ensureDemoMerchant makes sure the demo merchant exists with a working API key and webhook
// secret, repairing what is missing (a first run, a revoked key, a cleared secret).
func ensureDemoMerchant(ctx context.Context, svc *merchant.Service, st *devState) error {
	m, err := svc.Get(ctx, st.MerchantID)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		m, err = svc.Create(ctx, merchant.CreateParams{Name: "Demo Store"})
		st.APIKey, st.WebhookSecret = "", ""
	}
	if err != nil {
		return fmt.Errorf("dev: demo merchant: %w", err)
	}
	st.MerchantID = m.ID
	if m.Status != rampway.MerchantActive {
		active := string(rampway.MerchantActive)
		if _, err := svc.Update(ctx, m.ID, merchant.UpdateParams{Status: &active}); err != nil {
			return fmt.Errorf("dev: demo merchant: %w", err)
		}
	}
	if _, _, err := svc.Authenticate(ctx, st.APIKey); err != nil {
		if rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
			return fmt.Errorf("dev: demo merchant key: %w", err)
		}
		if _, st.APIKey, err = svc.IssueAPIKey(ctx, m.ID); err != nil {
			return fmt.Errorf("dev: demo merchant key: %w", err)
		}
	}
	if m.WebhookSecret == "" || m.WebhookSecret != st.WebhookSecret {
		if st.WebhookSecret, err = svc.SetWebhookSecret(ctx, m.ID, ""); err != nil {
			return fmt.Errorf("dev: demo merchant webhook secret: %w", err)
		}
	}
	return nil
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
