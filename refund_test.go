package rampway

import (
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Each refund cause in each status: the step the table has (the record as it is after it, and
// the cause its order takes), or ECONFLICT; the record given is never changed.
func TestApplyRefund(t *testing.T) {
	at := t0.Add(time.Hour)
	user := common.HexToAddress("0x00000000000000000000000000000000000000dd")
	hash := common.HexToHash("0xfeed")
	causes := []RefundCause{
		RefundHeld{Status: RefundAwaitingAddress, Why: "a contract"},
		RefundHeld{Status: RefundAwaitingApproval, Why: "above the limit"},
		RefundAddressGiven{To: user, Source: RefundToUser},
		RefundApproved{By: "alice"},
		RefundIsDust{Fee: big.NewInt(7), Why: "dust"},
		RefundSigned{TxHash: hash, To: payer, Fee: big.NewInt(21), Sent: big.NewInt(full - 21)},
		RefundMined{TxHash: hash},
		RefundReverted{TxHash: hash, Why: "reverted"},
		RefundRejected{By: "alice", Why: "too much"},
		RefundProviderDone{Ref: "sbr_1"},
		RefundProviderFailed{Why: "refused"},
	}
	taken := map[RefundStep]bool{}
	// An automatic refund on chain, a merchant's on chain, a merchant's through a provider.
	kinds := []func(r *Refund){func(*Refund) {}, func(r *Refund) { r.Merchant = "mch_1" }, func(r *Refund) { r.Merchant, r.Network, r.To = "mch_1", "", common.Address{} }}
	for _, st := range RefundStatuses {
		for ci := range len(causes) * len(kinds) {
			c := causes[ci%len(causes)]
			r := refundIn(st)
			kinds[ci/len(causes)](r)
			before := *r
			n, oc, err := ApplyRefund(r, c, at)
			if r.Status != before.Status || r.StatusReason != before.StatusReason || r.To != before.To || r.TxHash != before.TxHash {
				t.Fatalf("%s %s changed the record given: %+v", st, c.RefundKind(), r)
			}
			if err != nil {
				if ErrorCode(err) != ECONFLICT || r.Takes(c.RefundKind()) {
					t.Fatalf("%s %s: %v", st, c.RefundKind(), err)
				}
				continue
			}
			step := RefundStep{st, c.RefundKind(), n.Status}
			if !slices.Contains(RefundSteps(), step) || !n.UpdatedAt.Equal(at) {
				t.Fatalf("%s %s -> %s: no such step", st, c.RefundKind(), n.Status)
			}
			taken[step] = true
			var want Cause
			switch n.Status {
			case RefundSent:
				want = RefundSentCause{Refund: n}
				if n.Fee.Int64() != 21 || n.Sent.Int64() != full-21 || n.TxHash != hash {
					t.Fatalf("sent: %+v", n)
				}
			case RefundDone:
				want = RefundPaid{Refund: n}
			case RefundDust, RefundFailed:
				want = RefundNotPaid{Refund: n}
			}
			if r.FromMerchant() { // its order hears of its end, and of an approval it asks its provider for
				switch {
				case n.Status == RefundDone:
					want = MerchantRefundPaid{Refund: n}
				case n.Status == RefundDust || n.Status == RefundFailed:
					want = MerchantRefundFailed{Refund: n}
				case r.Fiat() && c.RefundKind() == CauseRefundApproved:
					want = MerchantRefundApproved{Refund: n}
				default:
					want = nil
				}
			}
			if (want == nil) != (oc == nil) || want != nil && want.Kind() != oc.Kind() {
				t.Fatalf("%s %s: order cause %v, want %v", st, c.RefundKind(), oc, want)
			}
			switch c := c.(type) {
			case RefundAddressGiven:
				if n.To != user || n.ToSource != RefundToUser || n.StatusReason != "" {
					t.Fatalf("address given: %+v", n)
				}
			case RefundApproved:
				if n.ApprovedBy != "alice" || !n.ApprovedAt.Equal(at) {
					t.Fatalf("approved: %+v", n)
				}
			case RefundHeld:
				if n.Status != c.Status || n.StatusReason != c.Why {
					t.Fatalf("held: %+v", n)
				}
			}
		}
	}
	for _, s := range RefundSteps() {
		if !taken[s] {
			t.Errorf("step %s --%s--> %s is never taken", s.From, s.Cause, s.To)
		}
	}
}

// A refund is not sent for more than it owes, nor to another address than its own, nor held in
// a status that is not a wait.
func TestApplyRefundRefuses(t *testing.T) {
	r := refundIn(RefundPending)
	if _, _, err := ApplyRefund(r, RefundSigned{TxHash: callTx, To: payer, Fee: big.NewInt(2), Sent: big.NewInt(full - 1)}, t0); err == nil {
		t.Fatal("sent more than the refund's amount")
	}
	if _, _, err := ApplyRefund(r, RefundSigned{TxHash: callTx, To: deposit, Fee: big.NewInt(2), Sent: big.NewInt(1)}, t0); ErrorCode(err) != ECONFLICT {
		t.Fatalf("sent to another address than the refund's: %v", err)
	}
	if _, _, err := ApplyRefund(r, RefundHeld{Status: RefundSent}, t0); err == nil {
		t.Fatal("held as sent")
	}
	if !r.Takes(CauseRefundSigned) || refundIn(RefundSent).Takes(CauseRefundSigned) {
		t.Fatal("Takes disagrees with the steps")
	}
}

// The page's end (Decided) is the statuses from which the rule table reaches SUCCESS no more,
// and SUCCESS: the set the page ended on before it asked the domain.
func TestDecided(t *testing.T) {
	want := []OrderStatus{StatusSuccess, StatusExpired, StatusCancelled, StatusFailed, StatusRefundPending, StatusRefunded}
	for _, s := range OrderStatuses {
		if s.Decided() != slices.Contains(want, s) {
			t.Errorf("%s.Decided() = %v", s, s.Decided())
		}
		if s.Terminal() && !s.Decided() {
			t.Errorf("%s is terminal and not decided", s)
		}
	}
}

// The watcher watches orders awaiting a payment or confirming one; a fiat payment is taken by
// an area B or C order waiting for one.
func TestDepositAndFiatPredicates(t *testing.T) {
	if got := WatchesDeposits(); !sameStatuses(got, []OrderStatus{StatusCreated, StatusUnderpaid, StatusDepositProcessing}) {
		t.Errorf("WatchesDeposits() = %v", got)
	}
	for _, s := range OrderStatuses {
		want := s == StatusCreated || s == StatusOnrampProcessing
		if got := TakesFiatPayment(fiatOrder(s, MethodCard, "")); got != want {
			t.Errorf("B %s: TakesFiatPayment = %v", s, got)
		}
		if got := TakesFiatPayment(depositOrder(s, MethodCard, "")); got != want {
			t.Errorf("C %s: TakesFiatPayment = %v", s, got)
		}
		if TakesFiatPayment(lifecycleOrder(s, 0)) {
			t.Errorf("A %s takes a fiat payment", s)
		}
	}
}

func sameStatuses(a, b []OrderStatus) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// A fiat-paid order the hot wallet cannot pay for waits its patience, then fails as a refused
// execution (its payment given back); an area A order waits however long it takes.
func TestWalletShort(t *testing.T) {
	paid := fiatOrder(StatusOnrampSuccess, MethodCard, "fpy_1")
	c := WalletShort{Patience: time.Hour}
	if c.GivesUp(paid, paid.UpdatedAt.Add(time.Hour)) {
		t.Fatal("gave up within its patience")
	}
	if out, err := Apply(paid, Facts{}, c, paid.UpdatedAt.Add(time.Hour)); err != nil || out.Order != nil {
		t.Fatalf("within its patience: %+v %v", out, err)
	}
	at := paid.UpdatedAt.Add(time.Hour + time.Second)
	if !c.GivesUp(paid, at) {
		t.Fatal("did not give up after its patience")
	}
	out, err := Apply(paid, Facts{}, c, at)
	if err != nil || out.Order.Status != StatusFailed || out.Order.FailureReason != "the service's wallet could not pay for it within 1h" ||
		len(out.FiatActions) != 1 || out.FiatActions[0].Kind != ActionVoid || len(out.Events) != 1 || out.Events[0].Name != EventSmartContractFailure {
		t.Fatalf("after its patience: %+v %v", out, err)
	}
	mint := lifecycleOrder(StatusDepositSuccess, full)
	if c.GivesUp(mint, mint.UpdatedAt.Add(24*time.Hour)) {
		t.Fatal("an area A order gave up")
	}
	if _, err := Apply(mint, Facts{}, c, mint.UpdatedAt.Add(24*time.Hour)); ErrorCode(err) != ECONFLICT {
		t.Fatalf("an area A order took WalletShort: %v", err)
	}
}

// A request a state has no rule for is refused (ECONFLICT: a race); a fact is a *RuleMissing
// that names the order, its state and the cause (EINTERNAL: a gap in the table).
func TestRuleMissing(t *testing.T) {
	o := lifecycleOrder(StatusCreated, 0)
	_, err := Apply(o, Facts{}, ExecutionMined{TxHash: callTx}, t0)
	var missing *RuleMissing
	if !errors.As(err, &missing) || ErrorCode(err) != EINTERNAL || *missing != (RuleMissing{OrderID: o.ID, Area: AreaMint, Status: StatusCreated,
		Cause: CauseExecutionMined, To: StatusSuccess}) {
		t.Fatalf("a fact without a rule: %v", err)
	}
	if _, err := Apply(lifecycleOrder(StatusDepositSuccess, full), Facts{}, Cancelled{}, t0); ErrorCode(err) != ECONFLICT || errors.As(err, &missing) {
		t.Fatalf("a request without a rule: %v", err)
	}
	for _, k := range []CauseKind{CauseExpired, CauseCancelled, CauseExecutionStarted, CauseExecutionRefused, CauseFiatMethodChosen, CauseWalletShort} {
		if !IsRequest(k) {
			t.Errorf("%s is not a request", k)
		}
	}
	for _, k := range []CauseKind{CausePaymentSeen, CausePaymentConfirmed, CausePaymentDropped, CauseExecutionMined, CauseExecutionReverted,
		CauseFiatProcessing, CauseFiatAuthorised, CauseFiatCredited, CauseFiatDeclined, CauseFiatReleased, CauseRefundSent, CauseRefundPaid, CauseRefundNotPaid} {
		if IsRequest(k) {
			t.Errorf("%s is a request", k)
		}
	}
}
