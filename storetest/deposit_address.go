package storetest

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func sameDepositAddress(t *testing.T, got, want *rampway.MerchantDepositAddress) {
	t.Helper()
	g, w := *got, *want
	if !g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) {
		t.Fatalf("times %v/%v, want %v/%v", g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt)
	}
	g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if g != w {
		t.Fatalf("deposit address %+v, want %+v", g, w)
	}
}

// A merchant's deposit addresses: one per (network, symbol), set again in place (created_at
// stays), listed by network then symbol, per merchant, deleted, and kept across a reopen.
func testMerchantDepositAddresses(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	at := now()
	set := func(merchantID, network, symbol, addr string, at time.Time) *rampway.MerchantDepositAddress {
		t.Helper()
		a := &rampway.MerchantDepositAddress{MerchantID: merchantID, Network: network, Symbol: symbol, Address: common.HexToAddress(addr),
			CreatedAt: at, UpdatedAt: at}
		if err := s.SetMerchantDepositAddress(ctx, a); err != nil {
			t.Fatalf("SetMerchantDepositAddress: %v", err)
		}
		return a
	}
	eth := set(m.ID, "sepolia", "ETH", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", at)
	dusd := set(m.ID, "devnet", "DUSD", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", at)
	devETH := set(m.ID, "devnet", "ETH", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", at)
	set(other.ID, "devnet", "ETH", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", at)

	got, err := s.MerchantDepositAddress(ctx, m.ID, "sepolia", "ETH")
	if err != nil {
		t.Fatal(err)
	}
	sameDepositAddress(t, got, eth)
	list, err := s.MerchantDepositAddresses(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 {
		t.Fatalf("%d addresses, want 3: %+v", len(list), list)
	}
	for i, want := range []*rampway.MerchantDepositAddress{dusd, devETH, eth} { // by network, then symbol
		sameDepositAddress(t, list[i], want)
	}
	if list, err := s.MerchantDepositAddresses(ctx, "mch_none"); err != nil || len(list) != 0 {
		t.Fatalf("an unknown merchant's list: %v %v", list, err)
	}

	// Set again: the address and updated_at change, created_at stays (and is told back).
	later := at.Add(time.Minute)
	replaced := set(m.ID, "sepolia", "ETH", "0x90F79bf6EB2c4f870365E785982E1f101E93b906", later)
	if !replaced.CreatedAt.Equal(at) || !replaced.UpdatedAt.Equal(later) {
		t.Fatalf("replaced: created %v updated %v, want %v %v", replaced.CreatedAt, replaced.UpdatedAt, at, later)
	}
	got, err = s.MerchantDepositAddress(ctx, m.ID, "sepolia", "ETH")
	if err != nil {
		t.Fatal(err)
	}
	sameDepositAddress(t, got, replaced)

	// Symbols and networks are exact: another case is another asset.
	_, err = s.MerchantDepositAddress(ctx, m.ID, "sepolia", "eth")
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = s.MerchantDepositAddress(ctx, other.ID, "sepolia", "ETH")
	wantCode(t, err, rampway.ENOTFOUND)
	wantCode(t, s.SetMerchantDepositAddress(ctx, &rampway.MerchantDepositAddress{MerchantID: "mch_none", Network: "devnet", Symbol: "ETH",
		Address: common.HexToAddress("0x01"), CreatedAt: at, UpdatedAt: at}), rampway.ENOTFOUND)

	if err := s.DeleteMerchantDepositAddress(ctx, m.ID, "devnet", "DUSD"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.DeleteMerchantDepositAddress(ctx, m.ID, "devnet", "DUSD"), rampway.ENOTFOUND)
	wantCode(t, s.DeleteMerchantDepositAddress(ctx, m.ID, "nowhere", "ETH"), rampway.ENOTFOUND)
	_, err = s.MerchantDepositAddress(ctx, m.ID, "devnet", "DUSD")
	wantCode(t, err, rampway.ENOTFOUND)
	// The other merchant's address for the same asset stays.
	if _, err := s.MerchantDepositAddress(ctx, other.ID, "devnet", "ETH"); err != nil {
		t.Fatal(err)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, open)
	list, err = s.MerchantDepositAddresses(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("after reopen: %d addresses, want 2: %+v", len(list), list)
	}
	sameDepositAddress(t, list[0], devETH)
	sameDepositAddress(t, list[1], replaced)
}
