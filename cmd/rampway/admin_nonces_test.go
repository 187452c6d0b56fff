package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway/sqlite"
)

// `rampway admin nonces show` and `adopt` (the step after the executor refused a wallet whose
// nonce on chain is past the database's): the wallet's next nonce becomes the one given, never
// one below the database's; nonsense is refused without a change.
func TestAdminCLINonces(t *testing.T) {
	t.Parallel()
	dbPath := filepath.Join(t.TempDir(), "prod.db")
	cfgPath := writeConfig(t, dbPath)
	cli := func(args ...string) (string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := runAdmin(t.Context(), append([]string{"--config", cfgPath, "nonces"}, args...), noEnv, &out, &errOut)
		return out.String(), err
	}
	if out, err := cli("show"); err != nil || strings.TrimSpace(out) != `{"nonces": []}` && !strings.Contains(out, `"nonces": []`) {
		t.Fatalf("show on a new database: %q, %v", out, err)
	}
	st, err := sqlite.Open(t.Context(), dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	wallet := common.HexToAddress("0xbb").Hex() // as the store writes it
	_, err = st.DB().ExecContext(t.Context(), `INSERT INTO wallet_nonces (network, wallet, next) VALUES ('devnet', ?, 4)`, wallet)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cli("adopt", "--network", "devnet", "--wallet", strings.ToLower(wallet), "--next", "9")
	var v NonceView
	if err != nil || json.Unmarshal([]byte(out), &v) != nil || v.Next != 9 || v.Before == nil || *v.Before != 4 || v.Wallet != wallet || v.Network != "devnet" {
		t.Fatalf("adopt: %q, %v", out, err)
	}
	for _, bad := range [][]string{{}, {"frob"}, {"adopt"}, {"adopt", "--network", "devnet", "--wallet", wallet},
		{"adopt", "--network", "devnet", "--wallet", "0x12", "--next", "12"}, {"adopt", "--wallet", wallet, "--next", "12"},
		{"adopt", "--network", "devnet", "--wallet", wallet, "--next", "8"}, // below the database's: never given twice
		{"adopt", "--network", "othernet", "--wallet", wallet, "--next", "12"}, {"adopt", "--network", "devnet", "--wallet", wallet, "--next", "-1"},
		{"show", "--next", "3"}, {"adopt", "--network", "devnet", "--wallet", wallet, "--next", "12", "extra"}} {
		if _, err := cli(bad...); err == nil {
			t.Errorf("nonces %q: no error", bad)
		}
	}
	var all NoncesView
	if out, err := cli("show"); err != nil || json.Unmarshal([]byte(out), &all) != nil || len(all.Nonces) != 1 || all.Nonces[0].Next != 9 {
		t.Fatalf("after the refused commands: %q, %v", out, err)
	}
}
