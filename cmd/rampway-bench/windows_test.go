package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// windows reads the service from a dev.json, sends A1 orders with the demo merchant's key, each
// with its own merchant_txn_id, and prints one row per window.
func TestWindowsFromDevJSON(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	txns := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MerchantID string `json:"merchant_id"`
			Txn        string `json:"merchant_txn_id"`
			Exec       struct {
				FunctionID string `json:"smartContractFunctionId"`
			} `json:"contractExecution"`
		}
		if r.URL.Path != "/mint/merchant/hosted/nftCheckout/order" || r.Header.Get("X-Api-Key") != "rw_test_k" ||
			json.NewDecoder(r.Body).Decode(&body) != nil || body.MerchantID != "mch_1" || body.Exec.FunctionID != "scf_eth" {
			http.Error(w, "bad request", 400)
			return
		}
		mu.Lock()
		dup := txns[body.Txn]
		txns[body.Txn] = true
		mu.Unlock()
		if dup {
			http.Error(w, "duplicate merchant_txn_id", 409)
			return
		}
		w.WriteHeader(201)
	}))
	defer srv.Close()
	dev := `{"api": {"mint_base_url": "` + srv.URL + `/mint", "nft_ramp_base_url": "` + srv.URL + `/nft-ramp", "deposit_base_url": "` + srv.URL + `/deposit"},
		"merchant": {"merchant_id": "mch_1", "api_key": "rw_test_k"}, "chain": {"payer_address": "0x116aBF0BdaCfeB1CE97B9387B5Bb0e8Fe5eE3f17"},
		"smart_contract_functions": [{"id": "scf_tok", "payable_symbol": "DUSD"}, {"id": "scf_eth", "payable_symbol": "ETH"}]}`
	path := filepath.Join(t.TempDir(), "dev.json")
	if err := os.WriteFile(path, []byte(dev), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := runWindows(t.Context(), []string{"--dev-json", path, "--windows", "2", "--window", "200ms", "--concurrency", "2"}, &out); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| 1 |") || strings.HasPrefix(line, "| 2 |") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("want 2 window rows:\n%s", out.String())
	}
	for _, r := range rows {
		if !strings.HasSuffix(r, "| 0 |") {
			t.Errorf("a window with errors: %s\n%s", r, out.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(txns) == 0 {
		t.Fatal("no order reached the service")
	}
}

// A GET endpoint's windows: the lookups go to ids of the pool read through the list first.
func TestWindowsGetLooksUpThePool(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	looked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("X-Api-Key") != "rw_test_k" {
			http.Error(w, "bad request", 400)
			return
		}
		switch {
		case r.URL.Path == "/mint/merchant/hosted/nftCheckout/orders" && r.URL.Query().Get("starting_after") == "":
			w.Write([]byte(`{"data": [{"order_id": "ord_1"}, {"order_id": "ord_2"}], "has_more": true}`))
		case r.URL.Path == "/mint/merchant/hosted/nftCheckout/orders" && r.URL.Query().Get("starting_after") == "ord_2":
			w.Write([]byte(`{"data": [{"order_id": "ord_3"}], "has_more": false}`))
		case strings.HasPrefix(r.URL.Path, "/mint/merchant/hosted/nftCheckout/order/ord_"):
			mu.Lock()
			looked[strings.TrimPrefix(r.URL.Path, "/mint/merchant/hosted/nftCheckout/order/")]++
			mu.Unlock()
			w.Write([]byte(`{}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dev := `{"api": {"mint_base_url": "` + srv.URL + `/mint"}, "merchant": {"merchant_id": "mch_1", "api_key": "rw_test_k"}}`
	path := filepath.Join(t.TempDir(), "dev.json")
	if err := os.WriteFile(path, []byte(dev), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := runWindows(t.Context(), []string{"--dev-json", path, "--api", "a-get", "--windows", "1", "--window", "200ms", "--concurrency", "2"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "(3 ids)") || !strings.Contains(out.String(), "| 1 |") || !strings.Contains(out.String(), "| 0 |") {
		t.Fatalf("want one window without errors over 3 ids:\n%s", out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(looked) != 3 {
		t.Fatalf("looked up %v, want ord_1, ord_2 and ord_3", looked)
	}
}
