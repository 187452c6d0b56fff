package fiatwork

import (
	"context"
	"log/slog"
	"math/big"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/loop"
)

// LedgerStore is what the fiat reconciler reads and records.
type LedgerStore interface {
	FiatLedgerPayments(ctx context.Context, since time.Time, sweepAfter string, sweep int) ([]rampway.FiatLedgerPayment, string, error)
	LedgerDrifts(ctx context.Context, network string) ([]rampway.LedgerDrift, error)
	RecordReconciliation(ctx context.Context, r *rampway.Reconciliation) error
}

// Reconciler compares the ledger's fiat side with the providers' records, payment by payment:
// what the ledger's transfers say the provider holds of a payment for rampway (captures and
// credits less refunds) against what the provider says it holds (rampway.ProviderPayment.Held).
// A difference is a drift of the account provider/<provider>/<currency>/<payment> on the
// network rampway.LedgerFiat, listed, counted and warned of like the chain's (docs/ledger.md).
//
// The provider may be ahead of rampway for a while (its notification on its way, an action
// done and not yet recorded): a payment with an action under way is left for a later round,
// and a new difference becomes a drift only once it has stood for Grace.
type Reconciler struct {
	store     LedgerStore
	providers map[string]rampway.FiatProvider
	cfg       ReconcilerConfig
	log       *slog.Logger
	now       func() time.Time

	since   time.Time            // transfers recorded from here on are the next round's
	after   string               // the rolling look's place
	suspect map[string]suspicion // differences seen, not yet drifts, by payment
}

type suspicion struct {
	since          time.Time
	ledger, holder string
}

// ReconcilerConfig tunes a Reconciler.
type ReconcilerConfig struct {
	// Grace is how long a difference stands before it is a drift; default DefaultGrace.
	// Zero takes the default; a negative one makes every difference a drift at once (a
	// check after everything quiesced).
	Grace time.Duration
	// Sweep is how many other payments a round looks at; default 20.
	Sweep int
}

// sinceOverlap is how far before a round's start the next round looks for payments whose
// ledger moved: longer than a store transaction takes between its time and its commit.
const sinceOverlap = 2 * time.Minute

// DefaultGrace is how long a payment's difference with its provider stands before it is an
// alarm: longer than a provider's notification takes to arrive and be applied.
const DefaultGrace = 10 * time.Minute

// NewReconciler returns a fiat reconciler over the providers by name. now is the clock
// (time.Now when nil).
func NewReconciler(store LedgerStore, providers map[string]rampway.FiatProvider, cfg ReconcilerConfig, log *slog.Logger, now func() time.Time) *Reconciler {
	if now == nil {
		now = time.Now
	}
	if cfg.Grace == 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = 20
	}
	return &Reconciler{store: store, providers: providers, cfg: cfg, log: log, now: now, suspect: map[string]suspicion{}}
}

// Reconcile runs one round: it compares the payments recorded since the last round (the
// last hour at the first), those with a drift standing and a rolling look at the others, and
// records the round (drifts found, drifts gone). It returns what it compared; the drifts
// recorded are the LedgerDrifts of rampway.LedgerFiat.
func (r *Reconciler) Reconcile(ctx context.Context) (*rampway.Reconciliation, error) {
	start := r.now().UTC().Truncate(time.Microsecond)
	since := r.since
	if since.IsZero() {
		since = start.Add(-time.Hour)
	}
	pays, next, err := r.store.FiatLedgerPayments(ctx, since, r.after, r.cfg.Sweep)
	if err != nil {
		return nil, err
	}
	standing, err := r.store.LedgerDrifts(ctx, rampway.LedgerFiat)
	if err != nil {
		return nil, err
	}
	drifted := map[string]bool{}
	for _, d := range standing {
		drifted[d.Account] = true
	}
	round := &rampway.Reconciliation{Network: rampway.LedgerFiat, At: start}
	for _, p := range pays {
		account := rampway.ProviderPaymentAccount(p.Provider, p.Currency, p.PaymentID)
		prov := r.providers[p.Provider]
		if p.Busy || prov == nil {
			if prov == nil && !p.Busy {
				r.log.Warn("fiat ledger: the payment's provider is not configured: not compared", "payment", p.PaymentID, "provider", p.Provider)
			}
			round.Skipped = append(round.Skipped, account)
			continue
		}
		pp, err := prov.Payment(ctx, p.ProviderRef)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.log.Warn("fiat ledger: the provider cannot be asked: compared in a later round", "payment", p.PaymentID, "provider", p.Provider, "error", err)
			round.Skipped = append(round.Skipped, account)
			continue
		}
		if pp.Held == nil {
			round.Skipped = append(round.Skipped, account) // the provider does not say
			continue
		}
		c := rampway.LedgerCheck{Account: account, Network: rampway.LedgerFiat, Asset: rampway.FiatAsset(p.Currency),
			Ledger: new(big.Int).Set(p.Ledger), Chain: new(big.Int).Set(pp.Held)}
		if c.Diff().Sign() == 0 {
			delete(r.suspect, p.PaymentID)
			round.Checked = append(round.Checked, c)
			continue
		}
		s, seen := r.suspect[p.PaymentID]
		if !seen || s.ledger != c.Ledger.String() || s.holder != c.Chain.String() {
			s = suspicion{since: start, ledger: c.Ledger.String(), holder: c.Chain.String()}
			r.suspect[p.PaymentID] = s
		}
		if !drifted[account] && start.Sub(s.since) < r.cfg.Grace {
			round.Skipped = append(round.Skipped, account) // perhaps a notification on its way
			continue
		}
		r.log.Error("ledger drift", "network", rampway.LedgerFiat, "account", account, "asset", c.Asset, "payment", p.PaymentID,
			"order_id", p.OrderID, "provider", p.Provider, "ledger", c.Ledger.String(), "provider_holds", c.Chain.String(), "difference", c.Diff().String())
		round.Checked = append(round.Checked, c)
	}
	if err := r.store.RecordReconciliation(ctx, round); err != nil {
		return nil, err
	}
	// The next round looks again at what was recorded a little before this one started: a
	// transfer is stamped when its transaction began, and may commit after this round read.
	r.since, r.after = start.Add(-sinceOverlap), next
	return round, nil
}

// Run reconciles every interval until ctx ends.
func (r *Reconciler) Run(ctx context.Context, interval time.Duration) {
	loop.Every(ctx, interval, r.log, "fiat ledger", func(ctx context.Context) error {
		_, err := r.Reconcile(ctx)
		return err
	})
}
