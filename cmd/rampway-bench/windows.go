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
	"strings"
	"sync/atomic"
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
	api := fs.String("api", "a1", "the endpoint: a1, a2, b1, b3 or c1; or a GET: "+getNames())
	concurrency := fs.Int("concurrency", 16, "concurrent clients (one keep-alive connection each)")
	window := fs.Duration("window", 5*time.Second, "one window's length")
	windows := fs.Int("windows", 6, "how many windows, one after the other")
	apiKey := fs.String("api-key", "", "the merchant's API key (default: dev.json's)")
	poolAge := fs.Duration("pool-age", 0, "a-get, a-webhooks, a-list-page: look up orders created at least this long ago (default: the newest)")
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
	if *apiKey != "" {
		dev.Merchant.APIKey = *apiKey
	}
	for _, g := range getEndpoints {
		if g.name == *api {
			return runGetWindows(ctx, dev, g, *poolAge, *concurrency, *window, *windows, stdout)
		}
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
		windowRow(stdout, i, res)
	}
	return nil
}

// getEndpoint is a GET route `windows` loads: the lookups and lists a merchant's server and
// support desk call, whose cost must not grow with the orders the database holds.
type getEndpoint struct {
	name, title string
	// needsIDs: the URL names one of the demo merchant's area A orders (a pool read first).
	needsIDs bool
	url      func(dev devFile, id string) string
}

var getEndpoints = []getEndpoint{
	{name: "b2", title: "B2 fiatCurrencies", url: func(d devFile, _ string) string { return d.API.NFTRamp + "/merchant/hosted/nftCheckout/fiatCurrencies" }},
	{name: "c2", title: "C2 fiatCurrencies", url: func(d devFile, _ string) string {
		return d.API.Deposit + "/merchant/sdk/onramp-to-deposit/fiatCurrencies"
	}},
	{name: "a-get", title: "an area A order by id", needsIDs: true, url: func(d devFile, id string) string { return d.API.Mint + routeOrder + "/" + id }},
	{name: "a-webhooks", title: "an area A order's webhook deliveries", needsIDs: true, url: func(d devFile, id string) string {
		return d.API.Mint + routeOrder + "/" + id + "/webhooks"
	}},
	{name: "a-list", title: "area A orders, newest 20", url: func(d devFile, _ string) string { return d.API.Mint + routeOrders + "?limit=20" }},
	{name: "a-list-failed", title: "area A FAILED orders, newest 20", url: func(d devFile, _ string) string {
		return d.API.Mint + routeOrders + "?limit=20&status=FAILED"
	}},
	{name: "a-list-page", title: "area A orders, the 20 after one of the pool", needsIDs: true, url: func(d devFile, id string) string {
		return d.API.Mint + routeOrders + "?limit=20&starting_after=" + id
	}},
}

// routeOrders is area A's (and B's) list of orders.
const routeOrders = "/merchant/hosted/nftCheckout/orders"

func getNames() string {
	var names []string
	for _, g := range getEndpoints {
		names = append(names, g.name)
	}
	return strings.Join(names, ", ")
}

// orderPool reads up to n of the demo merchant's area A order ids, newest first, through the
// list endpoint.
func orderPool(ctx context.Context, dev devFile, age time.Duration, n int) ([]string, error) {
	var ids []string
	after := ""
	for len(ids) < n {
		u := dev.API.Mint + routeOrders + "?limit=100"
		if age > 0 {
			u += "&created_to=" + time.Now().Add(-age).UTC().Format(time.RFC3339)
		}
		if after != "" {
			u += "&starting_after=" + after
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Api-Key", dev.Merchant.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		var page struct {
			Data []struct {
				OrderID string `json:"order_id"`
			} `json:"data"`
			HasMore bool `json:"has_more"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("list orders: %s, %v", resp.Status, err)
		}
		for _, o := range page.Data {
			ids = append(ids, o.OrderID)
		}
		if !page.HasMore || len(page.Data) == 0 {
			break
		}
		after = page.Data[len(page.Data)-1].OrderID
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("the demo merchant has no area A order to look up: create some first (--api a1)")
	}
	return ids, nil
}

func runGetWindows(ctx context.Context, dev devFile, g getEndpoint, poolAge time.Duration, concurrency int, window time.Duration, windows int, stdout io.Writer) error {
	if dev.Merchant.APIKey == "" {
		return fmt.Errorf("dev.json has no API key")
	}
	ids := []string{""}
	if g.needsIDs {
		var err error
		if ids, err = orderPool(ctx, dev, poolAge, 2000); err != nil {
			return err
		}
	}
	var next atomic.Uint64
	get := func() string { return g.url(dev, ids[int(next.Add(1)%uint64(len(ids)))]) }
	fmt.Fprintf(stdout, "# %s at %s (%d ids), %d clients, %s windows\n\n| Window | Requests/s | p50 | p99 | Errors |\n|---|---|---|---|---|\n",
		g.title, g.url(dev, "{id}"), len(ids), concurrency, window)
	for i := range windows {
		res, err := runLoad(ctx, loadSpec{url: g.url(dev, ids[0]), get: get, header: http.Header{"X-Api-Key": {dev.Merchant.APIKey}},
			status: http.StatusOK, concurrency: concurrency, duration: window})
		if err != nil {
			return err
		}
		windowRow(stdout, i, res)
	}
	return nil
}

// windowRow prints a window's row of the table, and its first error's answer if any.
func windowRow(stdout io.Writer, i int, res *loadResult) {
	fmt.Fprintf(stdout, "| %d | %.0f | %s | %s | %s |\n", i+1, res.rate(), ms(res.percentile(0.5)), ms(res.percentile(0.99)), errorSummary(res.errors))
	if len(res.samples) > 0 && res.errorCount() > 0 {
		fmt.Fprintf(stdout, "<!-- first error: %s -->\n", res.samples[0])
	}
}
