package main

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/rampway/rampway/chain/devchain"
)

// The free-mint example (docs/api.md) is quoted allowed at any time: also once the dev chain has
// idled long enough for its base fee to decay to EIP-1559's floor (which a fresh chain, at
// 1 gwei, is far above). The idle hour is mined on the dev directory's own chain between two
// runs of `rampway dev`, as fast as blocks can be sealed.
func TestFreeMintQuotesOnAnIdleChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, stop := startDev(t, dir)
	var free *devFunction
	for i, f := range dj.SmartContractFunctions {
		if f.PayableSymbol == "" {
			free = &dj.SmartContractFunctions[i]
		}
	}
	if free == nil {
		t.Fatalf("dev.json has no free function: %+v", dj.SmartContractFunctions)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	st, err := loadDevState(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.keys()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ch, err := devchain.Start(ctx, devChainConfig(keys, dir, "", -1, nil))
	if err != nil {
		t.Fatal(err)
	}
	floor := big.NewInt(7) // the base fee from which EIP-1559's 1/8 step rounds to zero
	var blocks int
	for ; blocks < 1000; blocks++ {
		h, err := ch.Client().HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if h.BaseFee.Cmp(floor) <= 0 && blocks >= 20 { // and the fee oracle's window is idle too
			break
		}
		if _, err := ch.Mine(); err != nil {
			t.Fatal(err)
		}
	}
	if err := ch.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("mined %d empty blocks to reach the base-fee floor", blocks)

	dj, _ = startDev(t, dir)
	body := exampleQuote(dj, *free)
	raw, _ := json.Marshal(body)
	code, q := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/cryptoQuote", dj.Merchant.APIKey, string(raw))
	if code != 200 || q["allowed"] != true || q["message"] != "" {
		t.Fatalf("free-mint quote on an idle chain: %d %v", code, q)
	}
	body["merchant_user_id"], body["merchant_redirect_url"] = "user-1", "http://127.0.0.1:3000/done"
	raw, _ = json.Marshal(body)
	if code, o := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", dj.Merchant.APIKey, string(raw)); code != 201 {
		t.Fatalf("free-mint order on an idle chain: %d %v", code, o)
	}
}
