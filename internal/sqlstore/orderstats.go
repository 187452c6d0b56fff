package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// The overview's figures are read per area, each a range of the index orders_merchant_area
// (merchant, mode, area, creation time) or orders_merchant_status (the same with the status,
// for the orders that succeeded): the rows of the period only, whatever the merchant's other
// areas, modes and days hold. Days are counted in SQL, amounts summed exactly in SQL, and
// only a bounded sample of durations comes back to Go for the percentiles.

// amountChunks and chunkDigits split an amount (decimal text of up to 78 digits: a uint256)
// into 12-digit pieces that each fit a BIGINT, so that both databases sum them exactly: a
// piece is below 10^12, and 10^6 of them sum below 2^63. The pieces' sums are put together
// in Go (sumChunks).
const (
	amountChunks = 7
	chunkDigits  = 12
)

// dayOf is the SQL expression of the day (0, 1, ...) of column col after the period's start,
// the parameter param (a UTC midnight).
func (s *Store) dayOf(col, param string) string {
	if s.d.TimesAsMicros {
		return fmt.Sprintf("((%s - %s) / 86400000000)", col, param)
	}
	return fmt.Sprintf("CAST(floor(extract(epoch FROM (%s - %s)) / 86400) AS BIGINT)", col, param)
}

// chunkSums are the SQL sums of the pieces of the amount expression amt, most significant
// first.
func chunkSums(amt string) string {
	zeros := strings.Repeat("0", amountChunks*chunkDigits)
	var b strings.Builder
	for k := range amountChunks {
		fmt.Fprintf(&b, ", SUM(CAST(substr('%s' || %s, length(%s) + %d, %d) AS BIGINT))", zeros, amt, amt, 1+k*chunkDigits, chunkDigits)
	}
	return b.String()
}

// sumChunks puts the pieces' sums (decimal text, most significant first) together.
func sumChunks(parts []sql.NullString) (*big.Int, error) {
	total, unit := new(big.Int), new(big.Int).Exp(big.NewInt(10), big.NewInt(chunkDigits), nil)
	for _, p := range parts {
		v := new(big.Int) // a group without rows sums to NULL
		if p.Valid && p.String != "" {
			if _, ok := v.SetString(strings.TrimSpace(p.String), 10); !ok {
				return nil, fmt.Errorf("order stats: sum %q is not an integer", p.String)
			}
		}
		total.Mul(total, unit).Add(total, v)
	}
	return total, nil
}

// succeededRefunded is true of a REFUNDED order (o) that had succeeded first: its merchant
// refunded it; one refunded on its own (failed, paid late) never succeeded.
const succeededRefunded = `EXISTS (SELECT 1 FROM order_events e WHERE e.order_id = o.id AND e.to_status = 'SUCCESS')`

// unsuccessfulStatuses are the states of an order that ended without succeeding (REFUNDED
// apart: it may have succeeded first).
var unsuccessfulStatuses = []rampway.OrderStatus{rampway.StatusExpired, rampway.StatusCancelled, rampway.StatusFailed, rampway.StatusRefundPending}

// OrderStats implements rampway.StatsStore.
func (s *Store) OrderStats(ctx context.Context, merchantID string, livemode bool, from, to time.Time) (*rampway.OrderStats, error) {
	if err := rampway.CheckStatsPeriod(from, to); err != nil {
		return nil, err
	}
	from, to = from.UTC(), to.UTC()
	st := &rampway.OrderStats{From: from, To: to}
	day := func(n int64) time.Time { return from.AddDate(0, 0, int(n)) }
	for _, area := range []rampway.Area{rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit} {
		if err := s.orderDays(ctx, st, day, merchantID, livemode, area); err != nil {
			return nil, err
		}
		for _, status := range []rampway.OrderStatus{rampway.StatusSuccess, rampway.StatusRefunded} {
			if err := s.orderVolume(ctx, st, day, merchantID, livemode, area, status); err != nil {
				return nil, err
			}
			if err := s.paidToSuccess(ctx, st, merchantID, livemode, area, status); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(st.Days, func(a, b rampway.OrderDayStats) int {
		return cmp.Or(a.Day.Compare(b.Day), strings.Compare(string(a.Area), string(b.Area)))
	})
	st.Volume = mergeVolume(st.Volume)
	slices.Sort(st.PaidToSuccess)
	// Open refunds are a work queue (few, found by status), an automatic one's merchant is its
	// order's.
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM refunds r`+s.indexed("refunds_status")+`
		WHERE r.status IN ('pending', 'sent', 'awaiting_address', 'awaiting_approval')
		AND EXISTS (SELECT 1 FROM orders o WHERE o.id = r.order_id AND o.merchant_id = $1 AND o.livemode = $2)`),
		merchantID, livemode).Scan(&st.OpenRefunds); err != nil {
		return nil, fmt.Errorf("order stats: open refunds: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM webhook_deliveries`+s.indexed("webhook_deliveries_merchant_due")+`
		WHERE merchant_id = $1 AND status = 'pending' AND held_at IS NULL AND attempts > 0 AND livemode = $2`),
		merchantID, livemode).Scan(&st.FailingDeliveries); err != nil {
		return nil, fmt.Errorf("order stats: failing deliveries: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM webhook_deliveries`+s.indexed("webhook_deliveries_merchant_failed")+`
		WHERE merchant_id = $1 AND livemode = $2 AND status = 'failed' AND created_at >= $3 AND created_at < $4`),
		merchantID, livemode, s.t(from), s.t(to)).Scan(&st.GivenUpDeliveries); err != nil {
		return nil, fmt.Errorf("order stats: given-up deliveries: %w", err)
	}
	return st, nil
}

// orderDays adds the counts per day of the merchant's orders of area in the period.
func (s *Store) orderDays(ctx context.Context, st *rampway.OrderStats, day func(int64) time.Time, merchantID string, livemode bool, area rampway.Area) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+s.dayOf("o.created_at", "$4")+` AS day, o.status, COUNT(*),
		SUM(CASE WHEN o.status = 'REFUNDED' AND `+succeededRefunded+` THEN 1 ELSE 0 END)
		FROM orders o`+s.indexed("orders_merchant_area")+`
		WHERE o.merchant_id = $1 AND o.livemode = $2 AND o.area = $3 AND o.created_at >= $4 AND o.created_at < $5
		GROUP BY 1, 2`), merchantID, livemode, string(area), s.t(st.From), s.t(st.To))
	if err != nil {
		return fmt.Errorf("order stats: days: %w", err)
	}
	defer rows.Close()
	byDay := map[int64]*rampway.OrderDayStats{}
	for rows.Next() {
		var (
			n, count, refundedAfterSuccess int64
			status                         string
		)
		if err := rows.Scan(&n, &status, &count, &refundedAfterSuccess); err != nil {
			return fmt.Errorf("order stats: days: %w", err)
		}
		d, ok := byDay[n]
		if !ok {
			d = &rampway.OrderDayStats{Day: day(n), Area: area}
			byDay[n] = d
		}
		d.Created += count
		switch st := rampway.OrderStatus(status); {
		case st == rampway.StatusSuccess:
			d.Succeeded += count
		case st == rampway.StatusRefunded:
			d.Succeeded += refundedAfterSuccess
			d.Unsuccessful += count - refundedAfterSuccess
		case slices.Contains(unsuccessfulStatuses, st):
			d.Unsuccessful += count
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("order stats: days: %w", err)
	}
	for _, d := range byDay {
		st.Days = append(st.Days, *d)
	}
	return nil
}

// orderVolume adds what the merchant's orders of area in status (SUCCESS, or REFUNDED after
// succeeding) created in the period were paid, per day and currency.
func (s *Store) orderVolume(ctx context.Context, st *rampway.OrderStats, day func(int64) time.Time, merchantID string, livemode bool, area rampway.Area, status rampway.OrderStatus) error {
	symbol, decimals, amount := "o.fiat_symbol", "o.fiat_decimals", "o.fiat_amount"
	if area == rampway.AreaMint {
		symbol, decimals, amount = "o.asset_symbol", "o.asset_decimals", "o.crypto_amount"
	}
	cond := ""
	if status == rampway.StatusRefunded {
		cond = " AND " + succeededRefunded
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+s.dayOf("o.created_at", "$5")+` AS day, `+symbol+`, `+decimals+`, COUNT(*)`+chunkSums(amount)+`
		FROM orders o`+s.indexed("orders_merchant_status")+`
		WHERE o.merchant_id = $1 AND o.livemode = $2 AND o.area = $3 AND o.status = $4 AND o.created_at >= $5 AND o.created_at < $6`+cond+`
		GROUP BY 1, 2, 3`), merchantID, livemode, string(area), string(status), s.t(st.From), s.t(st.To))
	if err != nil {
		return fmt.Errorf("order stats: volume: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			v     = rampway.VolumeDayStats{Area: area}
			n     int64
			dec   int64
			parts = make([]sql.NullString, amountChunks)
		)
		dst := []any{&n, &v.Currency, &dec, &v.Orders}
		for i := range parts {
			dst = append(dst, &parts[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return fmt.Errorf("order stats: volume: %w", err)
		}
		if v.Amount, err = sumChunks(parts); err != nil {
			return err
		}
		v.Day, v.Decimals = day(n), uint8(dec)
		st.Volume = append(st.Volume, v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("order stats: volume: %w", err)
	}
	return nil
}

// mergeVolume adds up the sums of one day, area and currency (read once per status) and
// sorts them by day, area, currency.
func mergeVolume(vs []rampway.VolumeDayStats) []rampway.VolumeDayStats {
	slices.SortFunc(vs, func(a, b rampway.VolumeDayStats) int {
		return cmp.Or(a.Day.Compare(b.Day), strings.Compare(string(a.Area), string(b.Area)), strings.Compare(a.Currency, b.Currency),
			int(a.Decimals)-int(b.Decimals))
	})
	var out []rampway.VolumeDayStats
	for _, v := range vs {
		if n := len(out); n > 0 && out[n-1].Day.Equal(v.Day) && out[n-1].Area == v.Area && out[n-1].Currency == v.Currency && out[n-1].Decimals == v.Decimals {
			out[n-1].Amount = new(big.Int).Add(out[n-1].Amount, v.Amount)
			out[n-1].Orders += v.Orders
			continue
		}
		out = append(out, v)
	}
	return out
}

// paidToSuccess adds how long the newest orders of area in status (SUCCESS, or REFUNDED after
// succeeding) created in the period took from paid to success: at most
// rampway.MaxPaidToSuccessSample of each, their times read from their events.
func (s *Store) paidToSuccess(ctx context.Context, st *rampway.OrderStats, merchantID string, livemode bool, area rampway.Area, status rampway.OrderStatus) error {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT
		(SELECT MIN(e.created_at) FROM order_events e WHERE e.order_id = o.id AND e.to_status IN ('DEPOSIT_SUCCESS', 'ONRAMP_SUCCESS')),
		(SELECT MIN(e.created_at) FROM order_events e WHERE e.order_id = o.id AND e.to_status = 'SUCCESS')
		FROM orders o`+s.indexed("orders_merchant_status")+`
		WHERE o.merchant_id = $1 AND o.livemode = $2 AND o.area = $3 AND o.status = $4 AND o.created_at >= $5 AND o.created_at < $6
		ORDER BY o.created_at DESC, o.id DESC LIMIT $7`),
		merchantID, livemode, string(area), string(status), s.t(st.From), s.t(st.To), rampway.MaxPaidToSuccessSample)
	if err != nil {
		return fmt.Errorf("order stats: paid to success: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var paid, success dbTime
		if err := rows.Scan(&paid, &success); err != nil {
			return fmt.Errorf("order stats: paid to success: %w", err)
		}
		if paid.Valid && success.Valid && !success.T.Before(paid.T) { // a REFUNDED order that never succeeded has no success
			st.PaidToSuccess = append(st.PaidToSuccess, success.T.Sub(paid.T))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("order stats: paid to success: %w", err)
	}
	return nil
}
