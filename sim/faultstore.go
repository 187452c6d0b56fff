package sim

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/sqlstore"
)

// errCrash is what the store answers once the process is "dead": the simulation then drops
// every service and worker and builds them again from the same database and chain.
var errCrash = errors.New("sim: the process crashed")

// faultStore is the store as one simulated process sees it. A crash armed for the step
// (arm) fires at the first write the step makes: before its commit (nothing written) or after
// it (written, but the caller sees an error, as a process killed between its commit and
// whatever it would have done next). From then on every write fails, until the process is
// rebuilt. Reads and the writes not listed here go through: the crash is modelled at the
// writes that move orders and money.
type faultStore struct {
	*sqlstore.Store
	armed bool
	after bool // crash after the commit rather than before
	dead  bool
	// fired is the write the crash fired at ("" when it has not).
	fired string
}

func (s *faultStore) arm(after bool) { s.armed, s.after = true, after }

// write runs f unless the process is dead, crashing at it when armed.
func (s *faultStore) write(name string, f func() error) error {
	if s.dead {
		return errCrash
	}
	if !s.armed {
		return f()
	}
	s.dead, s.armed = true, false
	if !s.after {
		s.fired = name + " (before commit)"
		return errCrash
	}
	s.fired = name + " (after commit)"
	if err := f(); err != nil {
		return errors.Join(errCrash, err)
	}
	return errCrash
}

func (s *faultStore) Apply(ctx context.Context, id string, c rampway.Cause, at time.Time) (o *rampway.Order, err error) {
	err = s.write("Apply", func() (err error) { o, err = s.Store.Apply(ctx, id, c, at); return err })
	return o, err
}

func (s *faultStore) ConfirmTransfer(ctx context.Context, network string, txHash common.Hash, logIndex int64, at time.Time) error {
	return s.write("ConfirmTransfer", func() error { return s.Store.ConfirmTransfer(ctx, network, txHash, logIndex, at) })
}

func (s *faultStore) RecordTransfer(ctx context.Context, t *rampway.InboundTransfer, at time.Time) (ok bool, err error) {
	err = s.write("RecordTransfer", func() (err error) { ok, err = s.Store.RecordTransfer(ctx, t, at); return err })
	return ok, err
}

func (s *faultStore) SetWatchCursor(ctx context.Context, network string, number uint64, hash common.Hash, at time.Time) error {
	return s.write("SetWatchCursor", func() error { return s.Store.SetWatchCursor(ctx, network, number, hash, at) })
}

func (s *faultStore) DropTransfer(ctx context.Context, network string, txHash common.Hash, logIndex int64, at time.Time) error {
	return s.write("DropTransfer", func() error { return s.Store.DropTransfer(ctx, network, txHash, logIndex, at) })
}

func (s *faultStore) StartExecution(ctx context.Context, orderID, network string, wallet common.Address, chainNonce uint64,
	sign func(uint64) ([]*rampway.ChainTx, error), at time.Time) (x *rampway.Execution, err error) {
	err = s.write("StartExecution", func() (err error) {
		x, err = s.Store.StartExecution(ctx, orderID, network, wallet, chainNonce, sign, at)
		return err
	})
	return x, err
}

func (s *faultStore) FinishExecution(ctx context.Context, orderID string, call rampway.MinedTx, reason string, at time.Time) error {
	return s.write("FinishExecution", func() error { return s.Store.FinishExecution(ctx, orderID, call, reason, at) })
}

func (s *faultStore) AddTx(ctx context.Context, t *rampway.ChainTx) error {
	return s.write("AddTx", func() error { return s.Store.AddTx(ctx, t) })
}

func (s *faultStore) StartRefund(ctx context.Context, id string, wallet common.Address, chainNonce uint64, fee, sent *big.Int,
	sign func(first uint64) (*rampway.ChainTx, error), at time.Time) (r *rampway.Refund, err error) {
	err = s.write("StartRefund", func() (err error) {
		r, err = s.Store.StartRefund(ctx, id, wallet, chainNonce, fee, sent, sign, at)
		return err
	})
	return r, err
}

func (s *faultStore) FinishRefund(ctx context.Context, id string, tx rampway.MinedTx, why string, at time.Time) error {
	return s.write("FinishRefund", func() error { return s.Store.FinishRefund(ctx, id, tx, why, at) })
}

func (s *faultStore) StartSweep(ctx context.Context, w *rampway.Sweep, wallet common.Address, chainNonce uint64, kind rampway.TxKind,
	sign func(uint64) (*rampway.ChainTx, error), at time.Time) error {
	return s.write("StartSweep", func() error { return s.Store.StartSweep(ctx, w, wallet, chainNonce, kind, sign, at) })
}

func (s *faultStore) SendSweep(ctx context.Context, id string, amount *big.Int, chainNonce uint64, sign func(uint64) (*rampway.ChainTx, error), at time.Time) error {
	return s.write("SendSweep", func() error { return s.Store.SendSweep(ctx, id, amount, chainNonce, sign, at) })
}

func (s *faultStore) RefuelSweep(ctx context.Context, id string, wallet common.Address, chainNonce uint64, sign func(uint64) (*rampway.ChainTx, error), at time.Time) error {
	return s.write("RefuelSweep", func() error { return s.Store.RefuelSweep(ctx, id, wallet, chainNonce, sign, at) })
}

func (s *faultStore) ApplyProviderEvent(ctx context.Context, provider string, ev *rampway.ProviderEvent, at time.Time) (ok bool, err error) {
	err = s.write("ApplyProviderEvent", func() (err error) { ok, err = s.Store.ApplyProviderEvent(ctx, provider, ev, at); return err })
	return ok, err
}

func (s *faultStore) FinishFiatAction(ctx context.Context, id string, status rampway.FiatActionStatus, providerRef, lastErr string, next, at time.Time) error {
	return s.write("FinishFiatAction", func() error { return s.Store.FinishFiatAction(ctx, id, status, providerRef, lastErr, next, at) })
}

func (s *faultStore) RecordAttempt(ctx context.Context, a *rampway.DeliveryAttempt, status rampway.DeliveryStatus, next time.Time) error {
	return s.write("RecordAttempt", func() error { return s.Store.RecordAttempt(ctx, a, status, next) })
}

func (s *faultStore) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit, perMerchant int, skip []string) (ds []*rampway.Delivery, err error) {
	err = s.write("ClaimDeliveries", func() (err error) {
		ds, err = s.Store.ClaimDeliveries(ctx, now, lease, limit, perMerchant, skip)
		return err
	})
	return ds, err
}

func (s *faultStore) ClaimFiatActions(ctx context.Context, now time.Time, lease time.Duration, n int) (as []*rampway.FiatAction, err error) {
	err = s.write("ClaimFiatActions", func() (err error) { as, err = s.Store.ClaimFiatActions(ctx, now, lease, n); return err })
	return as, err
}
