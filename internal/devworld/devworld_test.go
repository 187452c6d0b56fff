package devworld_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/storetest"
)

// Ensure makes the world once and then keeps it: the same merchant, credentials, functions
// and addresses on a second run; the demo store's URLs of an earlier run (another port) are
// moved, one the developer set is kept.
func TestEnsure(t *testing.T) {
	t.Parallel()
	c := devchaintest.Start(t)
	nets, err := chain.Dial(t.Context(), []rampway.Network{c.Network(devworld.Network)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	store := storetest.OpenSQLite(t)
	svc := devworld.Services{
		Merchants: merchant.NewService(store, merchant.Options{HashSecret: "dev-secret-0123456789abcdef0123456789", DevMode: true}),
		Functions: contract.NewRegistry(contract.RegistryConfig{DevMode: true}, store, nets, nil),
		Deposits:  merchant.NewDepositAddresses(merchant.DepositAddressesConfig{}, store, nets, nil),
	}
	spec := devworld.Spec{Contracts: c.Contracts(), DepositAddress: common.HexToAddress("0x1111111111111111111111111111111111111111"),
		WebhookURL: "http://127.0.0.1:8080/demo/webhooks", LogoURL: "http://127.0.0.1:8080/demo/assets/logo.svg",
		NFTImageURL: "http://127.0.0.1:8080/demo/assets/nft.svg"}
	first, err := devworld.Ensure(t.Context(), svc, spec)
	if err != nil {
		t.Fatal(err)
	}
	m := first.Merchant
	if m.ID == "" || m.APIKey == "" || m.WebhookSecret == "" || len(first.Functions) != len(devworld.Demos) ||
		len(first.DepositAddresses) != len(devworld.DepositSymbols) {
		t.Fatalf("first run: %+v", first)
	}
	if _, _, err := svc.Merchants.Authenticate(t.Context(), m.APIKey); err != nil {
		t.Fatalf("the key does not authenticate: %v", err)
	}
	mint, ok := first.Function(devchain.NativeSymbol)
	if !ok || mint.Name != "mint" || mint.Registered.ImageURL != spec.NFTImageURL || mint.Registered.DisplayName != "Demo NFT" {
		t.Fatalf("mint %+v", mint)
	}

	// A second run on another port, the developer having given the merchant a logo of their own.
	own := "https://shop.example/logo.png"
	if _, err := svc.Merchants.Update(t.Context(), m.ID, merchant.UpdateParams{LogoURL: &own}); err != nil {
		t.Fatal(err)
	}
	spec.Merchant = m
	spec.WebhookURL, spec.LogoURL, spec.NFTImageURL = "http://127.0.0.1:9090/demo/webhooks", "http://127.0.0.1:9090/demo/assets/logo.svg",
		"http://127.0.0.1:9090/demo/assets/nft.svg"
	again, err := devworld.Ensure(t.Context(), svc, spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.Merchant != m {
		t.Fatalf("merchant %+v, then %+v", m, again.Merchant)
	}
	for i, f := range again.Functions {
		if f.Registered.ID != first.Functions[i].Registered.ID || f.Registered.ImageURL != spec.NFTImageURL {
			t.Fatalf("function %s: %+v, then %+v", f.Name, first.Functions[i].Registered, f.Registered)
		}
	}
	got, err := svc.Merchants.Get(t.Context(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.WebhookURL != spec.WebhookURL || got.LogoURL != own {
		t.Fatalf("webhook %q (want the new run's), logo %q (want the developer's)", got.WebhookURL, got.LogoURL)
	}
}
