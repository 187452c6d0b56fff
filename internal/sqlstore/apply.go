package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rampway/rampway"
)

// Apply implements rampway.OrderStore: the cause applied to the order, in one transaction.
func (s *Store) Apply(ctx context.Context, id string, c rampway.Cause, at time.Time) (*rampway.Order, error) {
	var out *rampway.Order
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, id)
		if err != nil {
			return err
		}
		out, err = s.applyTx(ctx, tx, o, c, at)
		return err
	})
	return out, err
}

// ApplyEach implements rampway.OrderStore: each order under a savepoint of its own, so that an
// order whose state no longer takes the cause leaves nothing and the others go on.
func (s *Store) ApplyEach(ctx context.Context, ids []string, c rampway.Cause, at time.Time) ([]error, error) {
	var errs []error
	err := s.tx(ctx, func(tx *sql.Tx) error {
		errs = make([]error, len(ids))
		for i, id := range ids {
			if _, err := tx.ExecContext(ctx, "SAVEPOINT apply_each"); err != nil {
				return fmt.Errorf("savepoint: %w", err)
			}
			o, err := s.lockOrder(ctx, tx, id)
			if err == nil {
				_, err = s.applyTx(ctx, tx, o, c, at)
			}
			if err != nil {
				if code := rampway.ErrorCode(err); code != rampway.ECONFLICT && code != rampway.ENOTFOUND {
					return err
				}
				errs[i] = err
				if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT apply_each"); err != nil {
					return fmt.Errorf("rollback to savepoint: %w", err)
				}
			}
			if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT apply_each"); err != nil {
				return fmt.Errorf("release savepoint: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return errs, nil
}

// applyTx applies cause c to the order o, locked in tx, with the cause's own record (a
// transfer's row) already written: it reads the order's facts, asks the domain what the cause
// does (rampway.Apply) and writes that: the order, its refund records, its events with their
// webhook deliveries. It decides nothing itself. It returns the order as written (o when the
// cause changed nothing).
func (s *Store) applyTx(ctx context.Context, tx *sql.Tx, o *rampway.Order, c rampway.Cause, at time.Time) (*rampway.Order, error) {
	out, err := s.applyOutcomeTx(ctx, tx, o, c, at)
	if err != nil {
		return nil, err
	}
	if out.Order == nil {
		return o, nil
	}
	return out.Order, nil
}

// applyOutcomeTx is applyTx, returning all the cause did (the order as written, nil when
// unchanged; its new refund records and fiat actions; its events).
func (s *Store) applyOutcomeTx(ctx context.Context, tx *sql.Tx, o *rampway.Order, c rampway.Cause, at time.Time) (*rampway.Outcome, error) {
	f, err := s.facts(ctx, tx, o.ID)
	if err != nil {
		return nil, err
	}
	out, err := rampway.Apply(o, f, c, at)
	if missing, ok := errors.AsType[*rampway.RuleMissing](err); ok {
		s.ruleMissing(missing)
	}
	if err != nil {
		return nil, err
	}
	for _, a := range out.FiatActions {
		if err := s.insertFiatAction(ctx, tx, a); err != nil {
			return nil, err
		}
	}
	if out.Order == nil {
		return out, nil
	}
	if err := s.updateOrder(ctx, tx, out.Order, at); err != nil {
		return nil, err
	}
	// Refunds before the events, whose bodies list them.
	for _, r := range out.Refunds {
		if err := s.insertRefund(ctx, tx, r); err != nil {
			return nil, err
		}
	}
	for _, e := range out.Events {
		if err := s.insertRenderedEvent(ctx, tx, e, out.Order); err != nil {
			return nil, err
		}
	}
	s.afterCommit(tx, out)
	return out, nil
}

// Listen has h told of the causes the store applies from now on (rampway.Hooks), until stop
// is called.
func (s *Store) Listen(h rampway.Hooks) (stop func()) {
	l := &h
	s.hooksMu.Lock()
	s.hooks = append(slices.Clip(s.hooks), l)
	s.hooksMu.Unlock()
	return func() {
		s.hooksMu.Lock()
		s.hooks = slices.DeleteFunc(slices.Clone(s.hooks), func(o *rampway.Hooks) bool { return o == l })
		s.hooksMu.Unlock()
	}
}

// listeners are the hooks listening now.
func (s *Store) listeners() []*rampway.Hooks {
	s.hooksMu.RLock()
	defer s.hooksMu.RUnlock()
	return s.hooks
}

// ruleMissing tells the listeners of a fact Apply has no rule for.
func (s *Store) ruleMissing(err *rampway.RuleMissing) {
	for _, h := range s.listeners() {
		if h.RuleMissing != nil {
			h.RuleMissing(err)
		}
	}
}

// afterCommit keeps an outcome written in tx, to be told to the listeners once tx commits
// (committed) or forgotten when it rolls back.
func (s *Store) afterCommit(tx *sql.Tx, out *rampway.Outcome) {
	if len(s.listeners()) == 0 {
		return
	}
	s.outcomesMu.Lock()
	defer s.outcomesMu.Unlock()
	if s.outcomes == nil {
		s.outcomes = map[*sql.Tx][]*rampway.Outcome{}
	}
	s.outcomes[tx] = append(s.outcomes[tx], out)
}

// committed tells the listeners what the causes applied in tx did, tx having committed (ok) or
// rolled back (!ok: nothing is told).
func (s *Store) committed(tx *sql.Tx, ok bool) {
	s.outcomesMu.Lock()
	outs := s.outcomes[tx]
	delete(s.outcomes, tx)
	s.outcomesMu.Unlock()
	if !ok {
		return
	}
	for _, out := range outs {
		for _, h := range s.listeners() {
			if h.Applied != nil {
				h.Applied(out.Order, out)
			}
		}
	}
}

// facts reads, inside tx, what rampway.Apply needs of an order besides its row.
func (s *Store) facts(ctx context.Context, tx *sql.Tx, orderID string) (rampway.Facts, error) {
	ts, err := collect(ctx, tx, "order transfers", s.q(`SELECT `+transferColumns+` FROM inbound_transfers WHERE order_id = $1
		ORDER BY block_number, tx_hash, log_index`), scanTransfer, orderID)
	if err != nil {
		return rampway.Facts{}, err
	}
	rs, err := s.refunds(ctx, tx, orderID)
	if err != nil {
		return rampway.Facts{}, err
	}
	as, err := s.fiatActions(ctx, tx, orderID)
	if err != nil {
		return rampway.Facts{}, err
	}
	return rampway.Facts{Transfers: ts, Refunds: rs, FiatActions: as}, nil
}
