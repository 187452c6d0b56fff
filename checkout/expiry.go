package checkout

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/loop"
)

// expiring are the states an order's expiry moves on (rampway.Rules: CREATED, UNDERPAID and
// ONRAMP_PROCESSING).
var expiring = rampway.StatusesTakingAny(rampway.CauseExpired)

// expiryBatch bounds one pass's read; expiryWrite the orders expired in one transaction (one
// turn of SQLite's one writer: short enough for the requests waiting behind it).
const (
	expiryBatch = 500
	expiryWrite = 20
)

// ExpireDue ends the orders whose time is up: CREATED (nothing paid) -> EXPIRED, and an area A
// order still UNDERPAID -> FAILED with the shortfall as its failure reason (refunded later). An
// order whose payment is being confirmed (DEPOSIT_PROCESSING) is left to finish. Several
// instances may run it at once: each transition happens once, the others are told it no longer
// applies. It returns how many orders it moved.
func (s *Service) ExpireDue(ctx context.Context) (int, error) {
	moved := 0
	for {
		now := s.now().UTC().Truncate(time.Microsecond)
		due, err := s.store.DueOrders(ctx, expiring, now, expiryBatch)
		if err != nil {
			return moved, err
		}
		for chunk := range slices.Chunk(due, expiryWrite) {
			ids := make([]string, len(chunk))
			for i, o := range chunk {
				ids[i] = o.ID
			}
			errs, err := s.store.ApplyEach(ctx, ids, rampway.Expired{}, now)
			if err != nil {
				return moved, fmt.Errorf("expire orders: %w", err)
			}
			for i, err := range errs {
				switch rampway.ErrorCode(err) {
				case "":
					moved++
				case rampway.ECONFLICT, rampway.ENOTFOUND: // another instance, or a payment, got there first
				default:
					return moved, fmt.Errorf("expire order %s: %w", ids[i], err)
				}
			}
		}
		if len(due) < expiryBatch {
			return moved, nil
		}
	}
}

// RunExpiry calls ExpireDue every interval until ctx ends.
func (s *Service) RunExpiry(ctx context.Context, interval time.Duration, log *slog.Logger) {
	loop.Every(ctx, interval, log, "expire orders", func(ctx context.Context) error {
		n, err := s.ExpireDue(ctx)
		if n > 0 {
			log.Info("orders expired", "count", n)
		}
		return err
	})
}
