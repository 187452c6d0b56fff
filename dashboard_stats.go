package rampway

import (
	"context"
	"math/big"
	"time"
)

// This file holds the figures of the dashboard's overview: a merchant's orders of one mode
// created in a period, counted per UTC day and area, the money the ones that succeeded took
// (exact, per currency), how long they took from paid to success, and the work waiting for a
// person (open refunds, failing webhooks).

// MaxStatsDays is the longest period OrderStats reads (days).
const MaxStatsDays = 366

// MaxPaidToSuccessSample is how many of a period's succeeded orders (the newest, per area and
// status) the paid-to-success percentiles are computed from: the read stays bounded whatever the
// merchant's volume.
const MaxPaidToSuccessSample = 10000

// OrderDayStats counts the orders of one area created on one UTC day.
type OrderDayStats struct {
	// Day is the day's midnight UTC.
	Day  time.Time
	Area Area
	// Created counts the orders created that day; of them, Succeeded reached SUCCESS (a
	// merchant may have refunded them since), Unsuccessful ended without (expired, cancelled,
	// failed, refunded on their own), and the others are still open.
	Created, Succeeded, Unsuccessful int64
}

// Open counts the day's orders still in progress (neither succeeded nor ended).
func (d OrderDayStats) Open() int64 { return d.Created - d.Succeeded - d.Unsuccessful }

// VolumeDayStats is what the orders of one area created on one UTC day that succeeded were
// paid, in one currency: area A's in their asset, areas B and C's in their fiat currency.
type VolumeDayStats struct {
	Day  time.Time
	Area Area
	// Currency is the asset's or the fiat currency's symbol, Decimals its decimals, Amount
	// the exact sum in its base (minor) units, and Orders how many orders it sums.
	Currency string
	Decimals uint8
	Amount   *big.Int
	Orders   int64
}

// OrderStats are a merchant's orders of one mode created in [From, To), and its work waiting
// now, as the overview shows them.
type OrderStats struct {
	// From and To bound the period (UTC midnights; To exclusive).
	From, To time.Time
	// Days are the counts per day and area, by day then area; a day and area without orders
	// has no entry.
	Days []OrderDayStats
	// Volume are the sums per day, area and currency, by day, area, currency.
	Volume []VolumeDayStats
	// PaidToSuccess are how long succeeded orders of the period took from being paid (their
	// payment confirmed: DEPOSIT_SUCCESS, or authorised: ONRAMP_SUCCESS) to SUCCESS: the
	// newest MaxPaidToSuccessSample of each area (and as many of those refunded since),
	// sorted ascending.
	PaidToSuccess []time.Duration
	// OpenRefunds counts the merchant's refunds of the mode not settled yet (pending, sent,
	// awaiting an address or an approval), whatever their age.
	OpenRefunds int64
	// FailingDeliveries counts webhook deliveries of the mode still being retried after a
	// failed attempt; GivenUpDeliveries those of the period's events given up on.
	FailingDeliveries, GivenUpDeliveries int64
}

// Percentile returns the p-th percentile (0 < p <= 100, nearest rank) of the sorted durations
// ds; 0 for none.
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 || p <= 0 {
		return 0
	}
	rank := (p*len(ds) + 99) / 100 // ceil(p/100 * n), 1-based
	return ds[min(max(rank, 1), len(ds))-1]
}

// StatsStore reads the overview's figures.
type StatsStore interface {
	// OrderStats reads the figures of merchantID's orders of a mode created in [from, to)
	// (UTC midnights, at most MaxStatsDays apart: EINVALID otherwise), by UTC day, with range
	// reads of the merchant's orders of each area in the period.
	OrderStats(ctx context.Context, merchantID string, livemode bool, from, to time.Time) (*OrderStats, error)
}

// CheckStatsPeriod checks the period of an OrderStats read: from and to UTC midnights, from
// before to, at most MaxStatsDays apart. EINVALID.
func CheckStatsPeriod(from, to time.Time) error {
	day := func(t time.Time) bool { return t.Equal(t.UTC().Truncate(24 * time.Hour)) }
	if !day(from) || !day(to) || !from.Before(to) || to.Sub(from) > MaxStatsDays*24*time.Hour {
		return Errorf(EINVALID, "a statistics period is whole UTC days, from before to, at most %d days (not %s to %s)",
			MaxStatsDays, from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	}
	return nil
}
