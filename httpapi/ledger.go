package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// Warner reports what an operator should look at while rampway stays ready: /readyz answers
// 200 with them as "warnings" (the ledger's drifts).
type Warner interface {
	Warnings(ctx context.Context) []string
}

// LedgerDriftView is a difference between the ledger's balance of an account rampway holds
// and the chain's, at a block (or, on network "fiat", of a payment and what its provider
// holds of it: no address, block 0): amounts in the asset's base units (wei, token units,
// minor units), as integer strings; difference is chain (provider) - ledger.
type LedgerDriftView struct {
	Network    string `json:"network"`
	Account    string `json:"account"`
	Address    string `json:"address"`
	Asset      string `json:"asset"`
	Block      uint64 `json:"block"`
	Ledger     string `json:"ledger"`
	Chain      string `json:"chain"`
	Difference string `json:"difference"`
	FirstSeen  string `json:"first_seen"`
	LastSeen   string `json:"last_seen"`
}

// LedgerDriftsView lists the drifts standing.
type LedgerDriftsView struct {
	Drifts []LedgerDriftView `json:"drifts"`
}

// NewLedgerDriftsView returns the drifts' admin view.
func NewLedgerDriftsView(ds []rampway.LedgerDrift) LedgerDriftsView {
	out := LedgerDriftsView{Drifts: []LedgerDriftView{}}
	for _, d := range ds {
		addr := "" // a payment's drift with its provider (network fiat) is at no address
		if d.Address != (common.Address{}) {
			addr = d.Address.Hex()
		}
		out.Drifts = append(out.Drifts, LedgerDriftView{Network: d.Network, Account: d.Account, Address: addr, Asset: d.Asset, Block: d.Block,
			Ledger: d.Ledger.String(), Chain: d.Chain.String(), Difference: d.Diff().String(), FirstSeen: d.FirstSeen.UTC().Format(TimeFormat),
			LastSeen: d.LastSeen.UTC().Format(TimeFormat)})
	}
	return out
}

// LedgerDayView is a day's (UTC) flows of one asset: in from outside to the accounts rampway
// holds, out of them, network fees paid, and held at the day's end; base units, integer strings.
type LedgerDayView struct {
	Day   string `json:"day"`
	Asset string `json:"asset"`
	In    string `json:"in"`
	Out   string `json:"out"`
	Fees  string `json:"fees"`
	Held  string `json:"held"`
}

// LedgerReportView is the ledger's report of days.
type LedgerReportView struct {
	From string          `json:"from"`
	To   string          `json:"to"`
	Days []LedgerDayView `json:"days"`
}

// NewLedgerReportView returns the report's admin view of [from, to).
func NewLedgerReportView(from, to time.Time, days []rampway.LedgerDay) LedgerReportView {
	out := LedgerReportView{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Days: []LedgerDayView{}}
	for _, d := range days {
		out.Days = append(out.Days, LedgerDayView{Day: d.Day, Asset: d.Asset, In: d.In.String(), Out: d.Out.String(), Fees: d.Fees.String(), Held: d.Held.String()})
	}
	return out
}

// LedgerTransferView is one double-entry record: amount of asset from debit to credit.
type LedgerTransferView struct {
	ID        string `json:"id"`
	Network   string `json:"network"`
	Asset     string `json:"asset"`
	Debit     string `json:"debit"`
	Credit    string `json:"credit"`
	Amount    string `json:"amount"`
	Block     uint64 `json:"block"`
	Kind      string `json:"kind"`
	Ref       string `json:"ref"`
	Note      string `json:"note"`
	CreatedAt string `json:"created_at"`
}

// LedgerTransfersView lists transfers.
type LedgerTransfersView struct {
	Transfers []LedgerTransferView `json:"transfers"`
}

// NewLedgerTransfersView returns the transfers' admin view.
func NewLedgerTransfersView(ts []rampway.LedgerTransfer) LedgerTransfersView {
	out := LedgerTransfersView{Transfers: []LedgerTransferView{}}
	for _, t := range ts {
		out.Transfers = append(out.Transfers, LedgerTransferView{ID: t.ID, Network: t.Network, Asset: t.Asset, Debit: t.Debit, Credit: t.Credit,
			Amount: t.Amount.String(), Block: t.Block, Kind: t.Kind, Ref: t.Ref, Note: t.Note, CreatedAt: t.CreatedAt.UTC().Format(TimeFormat)})
	}
	return out
}

// LedgerRange reads a report's days: from and to as YYYY-MM-DD (to excluded); the last 30
// days to today included by default.
func LedgerRange(fromText, toText string, now time.Time) (time.Time, time.Time, error) {
	to := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	if toText != "" {
		t, err := time.Parse(time.DateOnly, toText)
		if err != nil {
			return time.Time{}, time.Time{}, rampway.FieldErrorf("to", "to must be a date, YYYY-MM-DD")
		}
		to = t
	}
	from := to.Add(-30 * 24 * time.Hour)
	if fromText != "" {
		t, err := time.Parse(time.DateOnly, fromText)
		if err != nil {
			return time.Time{}, time.Time{}, rampway.FieldErrorf("from", "from must be a date, YYYY-MM-DD")
		}
		from = t
	}
	if !from.Before(to) || to.Sub(from) > 366*24*time.Hour {
		return time.Time{}, time.Time{}, rampway.FieldErrorf("from", "from must be before to, at most 366 days")
	}
	return from, to, nil
}

func (s *Server) ledgerStore() (rampway.LedgerStore, error) {
	if s.ledger == nil {
		return nil, rampway.Errorf(rampway.EUNAVAILABLE, "The ledger is not available on this server")
	}
	return s.ledger, nil
}

// handleLedgerDrifts lists the differences between the ledger and the chain: ?network=.
func (s *Server) handleLedgerDrifts(w http.ResponseWriter, r *http.Request) error {
	l, err := s.ledgerStore()
	if err != nil {
		return err
	}
	ds, err := l.LedgerDrifts(r.Context(), r.URL.Query().Get("network"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewLedgerDriftsView(ds))
	return nil
}

// handleLedgerReport reports per day and asset: ?from=YYYY-MM-DD&to=YYYY-MM-DD.
func (s *Server) handleLedgerReport(w http.ResponseWriter, r *http.Request) error {
	l, err := s.ledgerStore()
	if err != nil {
		return err
	}
	from, to, err := LedgerRange(r.URL.Query().Get("from"), r.URL.Query().Get("to"), time.Now())
	if err != nil {
		return err
	}
	days, err := l.LedgerReport(r.Context(), from, to)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewLedgerReportView(from, to, days))
	return nil
}

// handleLedgerTransfers lists the transfers of ?ref= (an order, sweep, refund or fiat payment's
// id, or an account).
func (s *Server) handleLedgerTransfers(w http.ResponseWriter, r *http.Request) error {
	l, err := s.ledgerStore()
	if err != nil {
		return err
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		return rampway.FieldErrorf("ref", "ref is required: an order, sweep, refund or fiat payment's id, or an account")
	}
	ts, err := l.LedgerTransfers(r.Context(), ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewLedgerTransfersView(ts))
	return nil
}

// ledgerAcceptBody is POST {admin}/ledger/drifts/accept's body.
type ledgerAcceptBody struct {
	Account *string `json:"account"`
	Asset   *string `json:"asset"`
	Note    *string `json:"note"`
}

// handleLedgerAccept records a standing drift as an adjustment an operator explains (a hot
// wallet funded by hand): 200 the adjustment's transfer; 404 without such a drift.
func (s *Server) handleLedgerAccept(w http.ResponseWriter, r *http.Request) error {
	l, err := s.ledgerStore()
	if err != nil {
		return err
	}
	var body ledgerAcceptBody
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	if deref(body.Account) == "" {
		return rampway.FieldErrorf("account", "account is required: the drift's account, as GET /admin/ledger/drifts lists it")
	}
	if deref(body.Asset) == "" {
		return rampway.FieldErrorf("asset", "asset is required: the drift's asset, as GET /admin/ledger/drifts lists it")
	}
	t, err := l.AcceptLedgerDrift(r.Context(), deref(body.Account), deref(body.Asset), deref(body.Note), time.Now().UTC().Truncate(time.Microsecond))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewLedgerTransfersView([]rampway.LedgerTransfer{*t}).Transfers[0])
	return nil
}
