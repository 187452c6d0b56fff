package dashboard

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/rampway/rampway"
)

// Stats are the overview's figures (the store's rampway.StatsStore).
type Stats interface {
	OrderStats(ctx context.Context, merchantID string, livemode bool, from, to time.Time) (*rampway.OrderStats, error)
}

// overviewPeriods are the periods the overview offers (days, today included), and
// overviewDefault the one it shows unless asked.
var overviewPeriods = []int{7, 30, 90}

const overviewDefault = 30

// overviewAreas are the areas in the charts' order, with their names and colour classes.
var overviewAreas = []struct {
	Area        rampway.Area
	Name, Class string
}{
	{rampway.AreaMint, areaName(rampway.AreaMint), "area-mint"},
	{rampway.AreaNFTRamp, areaName(rampway.AreaNFTRamp), "area-nft-ramp"},
	{rampway.AreaDeposit, areaName(rampway.AreaDeposit), "area-deposit"},
}

// routeOverview registers the overview: GET /dashboard/overview?days=7|30|90, and the
// dashboard's start (/dashboard/) sends signed-in users there (handler.go, home).
func (h *Handler) routeOverview() {
	if h.d.Stats == nil {
		return
	}
	h.mux.HandleFunc("GET /dashboard/overview", h.handle(rampway.DashView, h.overview))
}

// overviewData is what overview.html shows.
type overviewData struct {
	// Days is the period shown, Periods the ones offered; From and Last its first and last
	// days.
	Days       int
	Periods    []int
	From, Last time.Time
	// Orders is the chart of orders created per day and area; Volume one chart per currency
	// of what the orders that succeeded were paid.
	Orders *barChart
	Volume []*barChart
	// Areas are the period's counts per area, Total all of them.
	Areas []areaTotal
	Total areaTotal
	// Ended counts the period's orders that ended (succeeded or not); SuccessRate is the
	// share of them that succeeded ("" when none ended).
	Ended       int64
	SuccessRate string
	// P50 and P95 are the paid-to-success times ("" without any), Timed how many orders they
	// are of.
	P50, P95 string
	Timed    int
	// OpenRefunds, FailingDeliveries and GivenUpDeliveries are the work waiting; RefundsLink
	// and WebhooksLink where it is seen ("" when the user may not open that page).
	// Webhooks is the sum of the two.
	OpenRefunds, FailingDeliveries, GivenUpDeliveries, Webhooks int64
	RefundsLink, WebhooksLink                                   string
}

// areaTotal counts the period's orders of an area.
type areaTotal struct {
	Name                                   string
	Created, Succeeded, Unsuccessful, Open int64
}

// overview shows the figures of the merchant and mode of q over the period asked.
func (h *Handler) overview(w http.ResponseWriter, r *http.Request, q *req) {
	days := overviewDefault
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !slices.Contains(overviewPeriods, n) {
			h.badRequest(w, q, "days must be 7, 30 or 90")
			return
		}
		days = n
	}
	v := view{Title: "Overview", Section: "overview"}
	if q.Merchant == nil {
		v.Error = "There is no merchant to show yet."
		h.show(w, r, q, http.StatusOK, "overview.html", v)
		return
	}
	to := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 1) // today included
	from := to.AddDate(0, 0, -days)
	st, err := h.d.Stats.OrderStats(r.Context(), q.MerchantID(), q.Livemode, from, to)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	d := buildOverview(st, days)
	d.Periods = overviewPeriods
	if h.d.Refunds != nil && q.Can(string(rampway.DashAllMerchants)) {
		d.RefundsLink = "/dashboard/refunds"
	}
	if h.d.Merchants != nil && q.Can(string(rampway.DashDevelopers)) {
		d.WebhooksLink = "/dashboard/developers"
		if len(q.Merchants) > 0 {
			d.WebhooksLink += "?merchant=" + q.MerchantID()
		}
	}
	v.Data = d
	h.show(w, r, q, http.StatusOK, "overview.html", v)
}

// buildOverview lays out the figures of st, a period of days days.
func buildOverview(st *rampway.OrderStats, days int) *overviewData {
	d := &overviewData{Days: days, From: st.From, Last: st.To.AddDate(0, 0, -1), Total: areaTotal{Name: "All areas"}}
	labels := make([]string, days)
	for i := range labels {
		labels[i] = st.From.AddDate(0, 0, i).Format("Jan 2")
	}
	dayIndex := func(t time.Time) int { return int(t.Sub(st.From) / (24 * time.Hour)) }

	// Orders per day and area.
	var orders []chartSeries
	for _, a := range overviewAreas {
		s := chartSeries{Name: a.Name, Class: a.Class, Values: make([]*big.Int, days)}
		t := areaTotal{Name: a.Name}
		for _, x := range st.Days {
			if x.Area != a.Area {
				continue
			}
			if i := dayIndex(x.Day); i >= 0 && i < days {
				s.Values[i] = big.NewInt(x.Created)
			}
			t.Created, t.Succeeded, t.Unsuccessful, t.Open = t.Created+x.Created, t.Succeeded+x.Succeeded, t.Unsuccessful+x.Unsuccessful, t.Open+x.Open()
		}
		orders = append(orders, s)
		d.Areas = append(d.Areas, t)
		d.Total.Created, d.Total.Succeeded, d.Total.Unsuccessful, d.Total.Open = d.Total.Created+t.Created, d.Total.Succeeded+t.Succeeded,
			d.Total.Unsuccessful+t.Unsuccessful, d.Total.Open+t.Open
	}
	d.Orders = newBarChart("chart-orders", fmt.Sprintf("Orders created per day and area, the last %d days", days), labels, orders,
		func(v *big.Int) string { return v.String() })

	// Volume: one chart per currency (area A's assets apart from the fiat currencies).
	type currency struct {
		Symbol   string
		Decimals uint8
		Fiat     bool
	}
	var currencies []currency
	for _, x := range st.Volume {
		c := currency{x.Currency, x.Decimals, x.Area != rampway.AreaMint}
		if !slices.Contains(currencies, c) {
			currencies = append(currencies, c)
		}
	}
	slices.SortFunc(currencies, func(a, b currency) int {
		if a.Symbol != b.Symbol {
			if a.Symbol < b.Symbol {
				return -1
			}
			return 1
		}
		return int(a.Decimals) - int(b.Decimals)
	})
	for n, c := range currencies {
		var series []chartSeries
		for _, a := range overviewAreas {
			s := chartSeries{Name: a.Name, Class: a.Class, Values: make([]*big.Int, days)}
			seen := false
			for _, x := range st.Volume {
				if x.Area != a.Area || x.Currency != c.Symbol || x.Decimals != c.Decimals || (x.Area != rampway.AreaMint) != c.Fiat {
					continue
				}
				if i := dayIndex(x.Day); i >= 0 && i < days {
					s.Values[i], seen = new(big.Int).Add(bigOr0(s.Values[i]), x.Amount), true
				}
			}
			if seen {
				series = append(series, s)
			}
		}
		format := func(v *big.Int) string { return rampway.FormatUnits(v, c.Decimals) + " " + c.Symbol }
		if c.Fiat {
			format = func(v *big.Int) string { return rampway.FormatFixed(v, c.Decimals) + " " + c.Symbol }
		}
		d.Volume = append(d.Volume, newBarChart(fmt.Sprintf("chart-volume-%d", n+1),
			fmt.Sprintf("Volume in %s per day and area, orders that succeeded, the last %d days", c.Symbol, days), labels, series, format))
	}

	if d.Ended = d.Total.Succeeded + d.Total.Unsuccessful; d.Ended > 0 {
		d.SuccessRate = percent(d.Total.Succeeded, d.Ended)
	}
	if d.Timed = len(st.PaidToSuccess); d.Timed > 0 {
		d.P50, d.P95 = duration(rampway.Percentile(st.PaidToSuccess, 50)), duration(rampway.Percentile(st.PaidToSuccess, 95))
	}
	d.OpenRefunds, d.FailingDeliveries, d.GivenUpDeliveries = st.OpenRefunds, st.FailingDeliveries, st.GivenUpDeliveries
	d.Webhooks = st.FailingDeliveries + st.GivenUpDeliveries
	return d
}

// bigOr0 is v, or 0 for nil.
func bigOr0(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// percent writes part/whole as a percentage with one decimal, rounded half up, in integers
// ("66.7 %").
func percent(part, whole int64) string {
	tenths := (part*2000/whole + 1) / 2
	return fmt.Sprintf("%d.%d %%", tenths/10, tenths%10)
}

// duration writes d for people: "850 ms", "42 s", "3 min 5 s", "2 h 10 min".
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%d min %d s", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%d h %d min", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}
