package sqlstore

import (
	"context"
	"database/sql"
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

// applyTx applies cause c to the order o, locked in tx, with the cause's own record (a
// transfer's row) already written: it reads the order's facts, asks the domain what the cause
// does (rampway.Apply) and writes that: the order, its refund records, its events with their
// webhook deliveries. It decides nothing itself. It returns the order as written (o when the
// cause changed nothing).
func (s *Store) applyTx(ctx context.Context, tx *sql.Tx, o *rampway.Order, c rampway.Cause, at time.Time) (*rampway.Order, error) {
	f, err := s.facts(ctx, tx, o.ID)
	if err != nil {
		return nil, err
	}
	out, err := rampway.Apply(o, f, c, at)
	if err != nil {
		return nil, err
	}
	for _, a := range out.FiatActions {
		if err := s.insertFiatAction(ctx, tx, a); err != nil {
			return nil, err
		}
	}
	if out.Order == nil {
		return o, nil
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
	return out.Order, nil
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
