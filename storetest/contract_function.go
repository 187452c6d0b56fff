package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func mustFunction(t *testing.T, s rampway.Store, merchantID, payable string) *rampway.ContractFunction {
	t.Helper()
	at := now()
	f := &rampway.ContractFunction{ID: rampway.NewID(rampway.PrefixContractFunction, at), MerchantID: merchantID, Network: "devnet",
		Contract: common.HexToAddress("0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9"), ABI: `{"type":"function","name":"mint"}`,
		Signature: "mint(address,uint256)", DefaultGasLimit: 200_000, PayableSymbol: payable, Status: rampway.ContractFunctionActive,
		CreatedAt: at, UpdatedAt: at}
	if err := s.CreateContractFunction(t.Context(), f); err != nil {
		t.Fatalf("CreateContractFunction: %v", err)
	}
	return f
}

func sameFunction(t *testing.T, got, want *rampway.ContractFunction) {
	t.Helper()
	g, w := *got, *want
	if !g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) {
		t.Fatalf("times %v/%v, want %v/%v", g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt)
	}
	g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if g != w {
		t.Fatalf("function %+v, want %+v", g, w)
	}
}

func testContractFunctions(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	f1 := mustFunction(t, s, m.ID, "ETH")
	f2 := mustFunction(t, s, m.ID, "")
	mustFunction(t, s, other.ID, "DUSD")
	// What the checkout page shows of it: a display name and an image, or none ("").
	shown := *f1
	shown.CreatedAt = now()
	shown.ID, shown.UpdatedAt = rampway.NewID(rampway.PrefixContractFunction, shown.CreatedAt), shown.CreatedAt
	shown.DisplayName, shown.ImageURL = "Golden Ticket — édition № 1", "https://img.example/"+strings.Repeat("t", 2000)+".png"
	if err := s.CreateContractFunction(t.Context(), &shown); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ContractFunction(t.Context(), shown.ID); err != nil {
		t.Fatal(err)
	} else {
		sameFunction(t, got, &shown)
	}

	got, err := s.ContractFunction(t.Context(), f1.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameFunction(t, got, f1)
	list, err := s.ContractFunctions(t.Context(), m.ID)
	if err != nil || len(list) != 3 {
		t.Fatalf("ContractFunctions = %d, %v; want 3", len(list), err)
	}
	sameFunction(t, list[0], f1)
	sameFunction(t, list[1], f2)
	sameFunction(t, list[2], &shown)
	if f1.DisplayName != "" || f1.ImageURL != "" {
		t.Fatalf("a function registered without them has %q, %q", f1.DisplayName, f1.ImageURL)
	}
	if list, err := s.ContractFunctions(t.Context(), "mch_nobody"); err != nil || len(list) != 0 {
		t.Fatalf("ContractFunctions(unknown merchant) = %v, %v", list, err)
	}

	_, err = s.ContractFunction(t.Context(), "scf_nope")
	wantCode(t, err, rampway.ENOTFOUND)
	orphan := *f1
	orphan.ID, orphan.MerchantID = rampway.NewID(rampway.PrefixContractFunction, now()), "mch_nope"
	wantCode(t, s.CreateContractFunction(t.Context(), &orphan), rampway.ENOTFOUND)
	dup := *f1
	wantCode(t, s.CreateContractFunction(t.Context(), &dup), rampway.ECONFLICT)

	// The display changes alone (a disabled function keeps it as it is, below).
	at := now().Add(time.Second)
	for _, d := range [][2]string{{"Demo NFT", "http://127.0.0.1:8080/demo/assets/nft.svg"}, {"", ""}, {"Ticket", "https://img.example/t.png"}} {
		got, err := s.SetContractFunctionDisplay(t.Context(), m.ID, f1.ID, d[0], d[1], at)
		if err != nil {
			t.Fatal(err)
		}
		f1.DisplayName, f1.ImageURL, f1.UpdatedAt = d[0], d[1], at
		sameFunction(t, got, f1)
		if got, err = s.ContractFunction(t.Context(), f1.ID); err != nil {
			t.Fatal(err)
		}
		sameFunction(t, got, f1)
	}
	_, err = s.SetContractFunctionDisplay(t.Context(), other.ID, f1.ID, "x", "", now())
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = s.SetContractFunctionDisplay(t.Context(), m.ID, "scf_nope", "x", "", now())
	wantCode(t, err, rampway.ENOTFOUND)

	_, err = s.SetContractFunctionStatus(t.Context(), other.ID, f1.ID, rampway.ContractFunctionDisabled, now())
	wantCode(t, err, rampway.ENOTFOUND)
	at = now().Add(2 * time.Second)
	d, err := s.SetContractFunctionStatus(t.Context(), m.ID, f1.ID, rampway.ContractFunctionDisabled, at)
	if err != nil {
		t.Fatal(err)
	}
	want := *f1
	want.Status, want.UpdatedAt = rampway.ContractFunctionDisabled, at
	sameFunction(t, d, &want)
	got, _ = s.ContractFunction(t.Context(), f1.ID)
	sameFunction(t, got, &want)
}
