package checkout_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/storetest"
)

var (
	hotWallet = common.HexToAddress("0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc")
	tokenAddr = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	userAddr  = common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	refuser   = common.HexToAddress("0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9") // a contract that refuses transfers
	wallet    = common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC") // a contract wallet that takes them
)

// refundChains is devnet (ETH, DUSD) whose contracts are the token, refuser and wallet.
type refundChains struct{ net rampway.Network }

func (c *refundChains) Network(name string) (*rampway.Network, bool) {
	return &c.net, name == c.net.Name
}
func (c *refundChains) List() []*rampway.Network { return []*rampway.Network{&c.net} }
func (c *refundChains) HasCode(_ context.Context, _ string, a common.Address) (bool, error) {
	return a == tokenAddr || a == refuser || a == wallet, nil
}

func (c *refundChains) Simulate(_ context.Context, _ string, _ common.Address, calls []rampway.Call) (string, error) {
	call := calls[0]
	if call.To == refuser || len(call.Data) >= 36 && common.BytesToAddress(call.Data[4:36]) == refuser {
		return "execution reverted: no thanks", nil
	}
	return "", nil
}

// A refund's address, as the user, the merchant or an operator gives it: checked, and taken
// only while the refund waits for one; an operator's approval likewise.
func TestRefundUseCases(t *testing.T) {
	t.Parallel()
	store := storetest.OpenSQLite(t)
	ctx := t.Context()
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	m := storetest.NewMerchant(t, store)
	i, _ := store.NextDepositIndex(ctx)
	deposit := common.BigToAddress(big.NewInt(int64(i) + 77))
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, t0), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: rampway.Asset{Symbol: "DUSD", Network: "devnet", Contract: tokenAddr, Decimals: 6},
		CryptoAmount: big.NewInt(1e6), CryptoReceived: new(big.Int), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
		DepositAddress: deposit, DepositIndex: i, ExpiresAt: t0.Add(time.Hour), CreatedAt: t0, UpdatedAt: t0}
	if err := store.CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	storetest.Drive(t, store, o.ID, rampway.StatusFailed)
	refunds, err := store.Refunds(ctx, o.ID)
	if err != nil || len(refunds) != 1 {
		t.Fatalf("refunds %+v %v", refunds, err)
	}
	id := refunds[0].ID
	chains := &refundChains{net: rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Native: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18},
		Tokens: []rampway.Asset{{Symbol: "DUSD", Network: "devnet", Contract: tokenAddr, Decimals: 6}}}}
	svc := checkout.NewRefunds(store, chains, hotWallet, nil)
	code := func(err error, want, msg string) {
		t.Helper()
		if rampway.ErrorCode(err) != want || !strings.Contains(rampway.ErrorMessage(err), msg) {
			t.Fatalf("got %v (%s), want %s containing %q", rampway.ErrorCode(err), rampway.ErrorMessage(err), want, msg)
		}
	}

	// Pending: it takes no address and no approval yet.
	_, err = svc.SetAddress(ctx, o.ID, id, userAddr.Hex(), rampway.RefundToUser)
	code(err, rampway.ECONFLICT, "does not wait for an address")
	_, err = svc.Approve(ctx, id, "alice")
	code(err, rampway.ECONFLICT, "only a refund awaiting approval")
	if _, err := store.HoldRefund(ctx, id, rampway.RefundAwaitingAddress, "a contract paid", t0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ addr, msg string }{
		{"", "address is required"},
		{"0x123", "address"},
		{"0x0000000000000000000000000000000000000000", "zero address"},
		{hotWallet.Hex(), "hot wallet"},
		{deposit.Hex(), "deposit address"},
		{tokenAddr.Hex(), "token's own contract"},
		{refuser.Hex(), "refuses a plain transfer of DUSD"},
	} {
		_, err := svc.SetAddress(ctx, o.ID, id, c.addr, rampway.RefundToUser)
		code(err, rampway.EINVALID, c.msg)
		if f := errField(err); f != "address" {
			t.Fatalf("%q: field %q", c.addr, f)
		}
	}
	_, err = svc.SetAddress(ctx, "ord_other", id, userAddr.Hex(), rampway.RefundToUser)
	code(err, rampway.ENOTFOUND, "not found")
	_, err = svc.SetAddress(ctx, o.ID, "rfd_nope", userAddr.Hex(), rampway.RefundToUser)
	code(err, rampway.ENOTFOUND, "not found")
	// A contract wallet that takes the token is fine.
	r, err := svc.SetAddress(ctx, o.ID, id, strings.ToLower(wallet.Hex()), rampway.RefundToMerchant)
	if err != nil || r.To != wallet || r.ToSource != rampway.RefundToMerchant || r.Status != rampway.RefundPending {
		t.Fatalf("set %+v %v", r, err)
	}
	_, err = svc.SetAddress(ctx, o.ID, id, userAddr.Hex(), rampway.RefundToUser)
	code(err, rampway.ECONFLICT, "does not wait for an address")

	if _, err := store.HoldRefund(ctx, id, rampway.RefundAwaitingApproval, "above the limit", t0); err != nil {
		t.Fatal(err)
	}
	r, err = svc.Approve(ctx, id, "")
	if err != nil || r.Status != rampway.RefundPending || r.ApprovedBy != "admin" || r.ApprovedAt.IsZero() {
		t.Fatalf("approve %+v %v", r, err)
	}
	if _, err := svc.List(ctx, rampway.RefundFilter{Status: "paid"}); errField(err) != "status" {
		t.Fatalf("list by an unknown status: %v", err)
	}
	if list, err := svc.List(ctx, rampway.RefundFilter{Status: rampway.RefundPending}); err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("list %+v %v", list, err)
	}
}

// errField is the field an *rampway.Error names.
func errField(err error) string {
	var e *rampway.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
