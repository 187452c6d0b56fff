package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway/config"
)

// devFile is what `windows` reads of a running `rampway dev`'s dev.json (docs/dev-mode.md).
type devFile struct {
	API struct {
		Mint    string `json:"mint_base_url"`
		NFTRamp string `json:"nft_ramp_base_url"`
		Deposit string `json:"deposit_base_url"`
	} `json:"api"`
	Merchant struct {
		ID     string `json:"merchant_id"`
		APIKey string `json:"api_key"`
	} `json:"merchant"`
	Chain struct {
		Payer string `json:"payer_address"`
	} `json:"chain"`
	Functions []struct {
		ID            string `json:"id"`
		PayableSymbol string `json:"payable_symbol"`
	} `json:"smart_contract_functions"`
}

// runWindows loads a running rampway from outside, over HTTP, in consecutive windows, and
// prints each window's requests/s and latency percentiles: how an endpoint holds up as the
// orders it creates accumulate (or while something else runs, an expiry, a backlog of
// webhooks). The service is the one a dev.json describes (`rampway dev` writes it; the
// --base-url and --api-key flags point it elsewhere).
func runWindows(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("windows", flag.ContinueOnError)
	fs.SetOutput(stdout)
	devJSON := fs.String("dev-json", ".rampway-dev/dev.json", "the running service's dev.json (its URLs, demo merchant, key, function)")
	api := fs.String("api", "a1", "the endpoint: a1, a2, b1, b3 or c1")
	concurrency := fs.Int("concurrency", 16, "concurrent clients (one keep-alive connection each)")
	window := fs.Duration("window", 5*time.Second, "one window's length")
	windows := fs.Int("windows", 6, "how many windows, one after the other")
	apiKey := fs.String("api-key", "", "the merchant's API key (default: dev.json's)")
	o := ordersOptions{}
	fs.StringVar(&o.fiatSymbol, "fiat-symbol", "EUR", "b1, b3, c1: order_fiat_symbol")
	fs.StringVar(&o.fiatMethod, "fiat-method", "credit_debit_card", "b1, b3, c1: fiat_payment_method")
	fs.StringVar(&o.fiatAmount, "fiat-amount", "100.00", "c1: order_fiat_amount")
	if err := fs.Parse(args); err != nil {
		return err
	}
	raw, err := os.ReadFile(*devJSON)
	if err != nil {
		return err
	}
	var dev devFile
	if err := json.Unmarshal(raw, &dev); err != nil {
		return fmt.Errorf("%s: %w", *devJSON, err)
	}
	scs, err := parseScenarios(*api)
	if err != nil {
		return err
	}
	if len(scs) != 1 {
		return fmt.Errorf("--api: one endpoint at a time")
	}
	sc := scs[0]
	st := &stack{merchantID: dev.Merchant.ID, apiKey: dev.Merchant.APIKey, payer: common.HexToAddress(dev.Chain.Payer)}
	for _, f := range dev.Functions {
		if f.PayableSymbol == "ETH" && st.functionID == "" {
			st.functionID = f.ID
		}
	}
	if *apiKey != "" {
		st.apiKey = *apiKey
	}
	if st.merchantID == "" || st.apiKey == "" || st.functionID == "" {
		return fmt.Errorf("%s has no merchant, API key or ETH-paid function", *devJSON)
	}
	body, err := json.Marshal(sc.body(st, o))
	if err != nil {
		return err
	}
	prefix, suffix, marked := bytes.Cut(body, []byte(txnMark))
	url := sc.route(config.BasePaths{Mint: dev.API.Mint, NFTRamp: dev.API.NFTRamp, Deposit: dev.API.Deposit})
	header := http.Header{"Content-Type": {"application/json"}, "X-Api-Key": {st.apiKey}}
	fmt.Fprintf(stdout, "# %s at %s, %d clients, %s windows\n\n| Window | Requests/s | p50 | p99 | Errors |\n|---|---|---|---|---|\n",
		sc.title, url, *concurrency, *window)
	run := time.Now().UnixNano()
	for i := range *windows {
		res, err := runLoad(ctx, loadSpec{url: url, header: header, status: sc.status(), concurrency: *concurrency, duration: *window,
			tag: fmt.Sprintf("win-%d-%d", run, i), body: func(txn string) []byte {
				if !marked {
					return body
				}
				return append(append(append(make([]byte, 0, len(body)+len(txn)), prefix...), txn...), suffix...)
			}})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "| %d | %.0f | %s | %s | %s |\n", i+1, res.rate(), ms(res.percentile(0.5)), ms(res.percentile(0.99)), errorSummary(res.errors))
		if len(res.samples) > 0 && res.errorCount() > 0 {
			fmt.Fprintf(stdout, "<!-- first error: %s -->\n", res.samples[0])
		}
	}
	return nil
}
