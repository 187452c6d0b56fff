package rampway

import (
	"context"
	"time"
)

// LeaseStore hands out named leases: one holder at a time, for a time. The chain workers that
// follow one network (its watcher, executor and sweeper) run on the instance holding the
// network's lease for that worker, so that several instances do not all read every block and
// receipt; a holder that dies stops renewing and another takes the lease once it expires.
type LeaseStore interface {
	// TakeLease takes or renews the lease name for holder until now+ttl. It reports whether
	// holder has it: false while another holder's lease has not expired.
	TakeLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
	// ReleaseLease gives up holder's lease name (nothing when another holds it), so that
	// another instance takes it at once rather than after it expires.
	ReleaseLease(ctx context.Context, name, holder string) error
}
