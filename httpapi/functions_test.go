package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/contract"
)

// nftFragment returns the ABI entry of a DemoNFT function.
func nftFragment(t *testing.T, name string) json.RawMessage {
	t.Helper()
	f, err := contract.FunctionFragment(devchain.NFTABI(), name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAdminContractFunctions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := "/merchants/" + e.merchant.ID + "/contract-functions"
	path := "/admin" + base
	nft := e.chain.Contracts().NFT.Hex()
	body := map[string]any{"network": "devnet", "contract_address": nft, "abi": nftFragment(t, "mint"), "default_gas_limit": 200000, "payable_symbol": "ETH"}
	f := decode[ContractFunctionView](t, e.admin(http.MethodPost, base, body), 201)
	if f.Signature != "mint(address,uint256)" || f.Status != "active" || f.PayableSymbol != "ETH" || f.DefaultGasLimit != 200000 || f.ContractAddress != nft || f.Network != "devnet" {
		t.Fatalf("registered %+v", f)
	}
	var abi map[string]any
	if err := json.Unmarshal(f.ABI, &abi); err != nil || abi["name"] != "mint" {
		t.Fatalf("abi %s", f.ABI)
	}
	// default_gas_limit as a string, the ABI as a string, no payable asset.
	free := decode[ContractFunctionView](t, e.admin(http.MethodPost, base, map[string]any{"network": "devnet", "contract_address": nft,
		"abi": string(nftFragment(t, "freeMint")), "default_gas_limit": "150000"}), 201)
	if free.PayableSymbol != "" || free.DefaultGasLimit != 150000 {
		t.Fatalf("registered %+v", free)
	}
	for _, tc := range []struct {
		name string
		edit func(b map[string]any)
		msg  string
	}{
		{"no network", func(b map[string]any) { delete(b, "network") }, "network is required"},
		{"no address", func(b map[string]any) { delete(b, "contract_address") }, "contract_address is required"},
		{"no gas", func(b map[string]any) { delete(b, "default_gas_limit") }, "default_gas_limit is required"},
		{"gas fraction", func(b map[string]any) { b["default_gas_limit"] = 1.5 }, "default_gas_limit must be a whole number"},
		{"gas negative", func(b map[string]any) { b["default_gas_limit"] = "-1" }, "default_gas_limit must be a whole number"},
		{"no abi", func(b map[string]any) { delete(b, "abi") }, "abi is required"},
		{"wrong type", func(b map[string]any) { b["network"] = 5 }, "Field 'network' must be a string"},
		{"unknown field", func(b map[string]any) { b["gas"] = 5 }, "Unknown field 'gas'"},
		{"no code", func(b map[string]any) { b["contract_address"] = "0x000000000000000000000000000000000000dEaD" }, "holds no contract"},
		{"unknown network", func(b map[string]any) { b["network"] = "mainnet" }, `network "mainnet" is not configured`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := map[string]any{}
			for k, v := range body {
				b[k] = v
			}
			tc.edit(b)
			wantEnvelope(t, e.admin(http.MethodPost, base, b), 400, 400, path, tc.msg)
		})
	}
	wantEnvelope(t, e.admin(http.MethodPost, "/merchants/mch_nope/contract-functions", body), 404, 404, "/admin/merchants/mch_nope/contract-functions", "not found")

	list := decode[ListView[ContractFunctionView]](t, e.admin(http.MethodGet, base, nil), 200)
	if len(list.Data) != 2 || list.Data[0].SmartContractFunctionID != f.SmartContractFunctionID {
		t.Fatalf("list %+v", list)
	}
	got := decode[ContractFunctionView](t, e.admin(http.MethodGet, base+"/"+f.SmartContractFunctionID, nil), 200)
	if got.SmartContractFunctionID != f.SmartContractFunctionID {
		t.Fatalf("get %+v", got)
	}
	wantEnvelope(t, e.admin(http.MethodGet, base+"/scf_nope", nil), 404, 404, path+"/scf_nope", "not found")
	d := decode[ContractFunctionView](t, e.admin(http.MethodPost, base+"/"+f.SmartContractFunctionID+"/disable", nil), 200)
	if d.Status != "disabled" {
		t.Fatalf("disabled %+v", d)
	}
	// Merchant keys never reach the admin API.
	r := e.do(http.MethodGet, "/admin"+base, nil, map[string]string{"X-API-KEY": e.key})
	wantEnvelope(t, r, 401, 401, path, "Unauthorized")
}
