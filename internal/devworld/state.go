package devworld

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// StateFile is where `rampway dev` keeps its State in its data directory.
const StateFile = "dev-state.json"

// State is what `rampway dev` keeps in its data directory so a restart serves the same
// merchant with the same keys; its admin CLI (--data-dir) and the benchmark's fill read it.
type State struct {
	AdminToken    string `json:"admin_token"`
	HashSecret    string `json:"hash_secret"`
	EncryptionKey string `json:"encryption_key"`
	MerchantID    string `json:"merchant_id"`
	APIKey        string `json:"api_key"`
	WebhookSecret string `json:"webhook_secret"`
	// Chain keys, hex: the demo contracts' deployer (so they keep their addresses across
	// restarts), the pre-funded user wallet, and the service's hot wallet.
	DeployerKey  string `json:"deployer_key"`
	PayerKey     string `json:"payer_key"`
	HotWalletKey string `json:"hot_wallet_key"`
	// DepositMnemonic is the HD seed of the deposit addresses.
	DepositMnemonic string `json:"deposit_mnemonic"`
	// MerchantDepositKey is the key, hex, of the demo merchant's deposit address (area C
	// delivers to it): an account of its own, funded by nothing else, so that what it receives
	// shows as its balance.
	MerchantDepositKey string `json:"merchant_deposit_key,omitempty"`
	// RPCURL is the running chain's endpoint, for `rampway admin --data-dir`.
	RPCURL string `json:"rpc_url"`
	// ChainBlock1 is the hash of the chain's first block (the demo contracts' deployment,
	// stamped with the time it was mined): which chain, of those DIR/chain could hold, the
	// database's orders, nonces and cursors belong to.
	ChainBlock1 string `json:"chain_block_1,omitempty"`
	// DashboardPassword is the password of the demo merchant's dashboard owner (dev.json's
	// dashboard login), made on the first run.
	DashboardPassword string `json:"dashboard_password,omitempty"`
}

// ErrStateDamaged is ReadState's error for a file that is not a State.
var ErrStateDamaged = errors.New("not a dev state")

// ReadState reads DIR/dev-state.json: an error wrapping fs.ErrNotExist when the directory has
// none, ErrStateDamaged when it does not read as one.
func ReadState(dir string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", filepath.Join(dir, StateFile), ErrStateDamaged, err)
	}
	return &st, nil
}
