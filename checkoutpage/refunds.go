package checkoutpage

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// Refunds of area A on the page: money owed back to the user (an overpayment's excess, a
// payment after expiry, a failed order's payment) is sent to the address it came from; when
// that is a contract, or not known, the page asks the user for an address (the refund's
// status is awaiting_address) and shows where each refund is: to be sent, sent (with its
// transaction), done (what was sent and the network fee taken out), or not sent.

// Refunds is the refund use cases the page calls (checkout.Refunds).
type Refunds interface {
	// OrderRefunds returns an order's refunds, oldest first.
	OrderRefunds(ctx context.Context, orderID string) ([]*rampway.Refund, error)
	// SetAddress gives refund id of order orderID its address from source: EINVALID naming
	// "address" for an address refused (the message says why), ECONFLICT when the refund
	// does not wait for one, ENOTFOUND for a refund of another order.
	SetAddress(ctx context.Context, orderID, id, address, source string) (*rampway.Refund, error)
}

var _ Refunds = (*checkout.Refunds)(nil)

// refundMessages are the refund panel's texts (joined to Messages).
var refundMessages = map[string]string{
	"refunds":               "Money owed back to you",
	"refund_owed":           "{amount} {symbol} is owed back to you ({reason}).",
	"refund_from_contract":  "It was paid from a contract, which may not be able to receive it, so enter the address to receive it.",
	"refund_from_unknown":   "Its sender is not known, so enter the address to receive it.",
	"refund_address":        "Your {network} address for the refund (0x…)",
	"refund_address_hint":   "An address you control on {network} that can receive {symbol}, such as your wallet's. Not an exchange deposit address that needs a memo.",
	"refund_submit":         "Send the refund to this address",
	"refund_pending":        "The refund will be sent to {to}.",
	"refund_approval":       "{amount} {symbol} is owed back to you ({reason}): it will be sent to {to} once the service approves it.",
	"refund_sent":           "The refund of {amount} {symbol} was sent to {to}.",
	"refund_done":           "Refunded: {sent} {symbol} was sent to {to} ({amount} {symbol} less a network fee of {fee} {symbol}).",
	"refund_failed":         "The refund of {amount} {symbol} to {to} could not be sent ({why}). The shop or the service will send it again.",
	"refund_failed_shop":    "The refund of {amount} {symbol} to {to} could not be sent ({why}). Nothing left the service; the shop was told.",
	"refund_dust":           "{amount} {symbol} is owed back to you ({reason}), less than the network fee of sending it: nothing is sent.",
	"refund_tx":             "Refund transaction",
	"refund_address_needed": "Enter your address below to receive your refund before you return to the shop.",
}

func init() {
	for k, v := range refundMessages {
		Messages[k] = v
	}
}

// RefundLine is one refund as the page shows it.
type RefundLine struct {
	ID, Status string
	// Text says where it is; Owed and Why introduce the address form (status
	// awaiting_address).
	Text, Owed, Why string
	// Ask: the page asks the user for the refund's address; Label and Hint are its field's.
	Ask         bool
	Label, Hint string
	// Value is the address the user typed and Error why it was refused (after a POST).
	Value, Error string
	TxHash       string
	TxURL        string
}

// refundLines are the refunds of order o as the page shows them; posted is the refund the user
// just gave an address for (with what they typed and why it was refused), or nil.
func (h *Handler) refundLines(ctx context.Context, o *rampway.Order, posted *RefundLine) ([]RefundLine, error) {
	if h.refunds == nil || o.Area != rampway.AreaMint || o.FiatSymbol != "" {
		return nil, nil
	}
	rs, err := h.refunds.OrderRefunds(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	net, _ := h.chains.Network(o.Network)
	var out []RefundLine
	for _, r := range rs {
		e := rampway.EventRefundOf(r, o)
		reason := strings.TrimSuffix(r.Reason, ".")
		if reason == "" {
			reason = "not kept by the order"
		}
		why := strings.TrimSuffix(r.StatusReason, ".")
		if why == "" {
			why = "its transaction failed"
		}
		fill := strings.NewReplacer("{amount}", e.Amount, "{symbol}", o.Asset.Symbol, "{reason}", reason, "{to}", e.ToAddress,
			"{sent}", e.AmountSent, "{fee}", e.NetworkFee, "{why}", why, "{network}", o.Network)
		l := RefundLine{ID: r.ID, Status: string(r.Status)}
		switch r.Status {
		case rampway.RefundAwaitingAddress:
			l.Ask = true
			l.Owed = fill.Replace(Messages["refund_owed"])
			l.Why = Messages["refund_from_unknown"]
			if r.To != ([20]byte{}) {
				l.Why = Messages["refund_from_contract"]
			}
			l.Label, l.Hint = fill.Replace(Messages["refund_address"]), fill.Replace(Messages["refund_address_hint"])
			if posted != nil && posted.ID == r.ID {
				l.Value, l.Error = posted.Value, posted.Error
			}
		case rampway.RefundPending:
			if e.ToAddress == "" {
				continue // not decided yet: the page says nothing of it until it is
			}
			l.Text = fill.Replace(Messages["refund_pending"])
		case rampway.RefundAwaitingApproval:
			l.Text = fill.Replace(Messages["refund_approval"])
		case rampway.RefundSent:
			l.Text = fill.Replace(Messages["refund_sent"])
		case rampway.RefundDone:
			l.Text = fill.Replace(Messages["refund_done"])
		case rampway.RefundFailed:
			l.Text = fill.Replace(Messages["refund_failed"])
			if r.FromMerchant() { // not sent again: the shop asks for another
				l.Text = fill.Replace(Messages["refund_failed_shop"])
			}
		case rampway.RefundDust:
			l.Text = fill.Replace(Messages["refund_dust"])
		default:
			continue
		}
		if e.TxHash != "" {
			l.TxHash, l.TxURL = e.TxHash, txURL(net, e.TxHash)
		}
		out = append(out, l)
	}
	return out, nil
}

// awaitsRefundAddress reports whether one of the order's refunds waits for the user's
// address. Only an order at a final status is asked (refunds are settled there; the page's
// live updates end with it).
func (h *Handler) awaitsRefundAddress(ctx context.Context, o *rampway.Order) (bool, error) {
	if h.refunds == nil || o.Area != rampway.AreaMint || o.FiatSymbol != "" || !o.Status.Decided() {
		return false, nil
	}
	rs, err := h.refunds.OrderRefunds(ctx, o.ID)
	if err != nil {
		return false, err
	}
	for _, r := range rs {
		if r.Status == rampway.RefundAwaitingAddress {
			return true, nil
		}
	}
	return false, nil
}

// handleRefundAddress takes a refund's address from the page's form: recorded (from the user)
// and back to the page, which says where the refund goes; a refused address renders the page
// again with the use case's reason beside the field (400).
func (h *Handler) handleRefundAddress(w http.ResponseWriter, r *http.Request) {
	o, back := h.formOrder(w, r, 4096)
	if o == nil {
		return
	}
	if h.refunds == nil || o.FiatSymbol != "" {
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	id, address := r.PostFormValue("refund_id"), strings.TrimSpace(r.PostFormValue("address"))
	_, err := h.refunds.SetAddress(r.Context(), o.ID, id, address, rampway.RefundToUser)
	switch rampway.ErrorCode(err) {
	case "":
	case rampway.EINVALID:
		var e *rampway.Error
		msg := rampway.ErrorMessage(err)
		if errors.As(err, &e) && e.Message != "" {
			msg = e.Message
		}
		h.renderPage(w, r, o, &RefundLine{ID: id, Value: address, Error: msg})
		return
	case rampway.ECONFLICT, rampway.ENOTFOUND:
		// Given already (another tab, the merchant), or not one of this order's: the page
		// shows where each refund is.
	default:
		h.log.Error("checkout page: refund address", "order_id", o.ID, "refund_id", rampway.Echo(id), "error", err)
		h.unavailable(w, r, false)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
