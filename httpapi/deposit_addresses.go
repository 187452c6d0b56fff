package httpapi

import (
	"context"
	"net/http"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// DepositAddresses is the merchants' deposit address onboarding the admin handlers call
// (merchant.DepositAddresses).
type DepositAddresses interface {
	Set(ctx context.Context, merchantID string, p merchant.DepositAddressParams) (*rampway.MerchantDepositAddress, error)
	List(ctx context.Context, merchantID string) ([]*rampway.MerchantDepositAddress, error)
	Delete(ctx context.Context, merchantID, network, symbol string) error
}

var _ DepositAddresses = (*merchant.DepositAddresses)(nil)

// DepositAddressView is a merchant's deposit address for an asset on a network (area C sends
// the asset the user bought there), in the admin API and CLI.
type DepositAddressView struct {
	MerchantID string `json:"merchant_id"`
	Network    string `json:"network"`
	Symbol     string `json:"symbol"`
	// Address is EIP-55 hex.
	Address   string `json:"address"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// NewDepositAddressView returns a's view.
func NewDepositAddressView(a *rampway.MerchantDepositAddress) DepositAddressView {
	return DepositAddressView{MerchantID: a.MerchantID, Network: a.Network, Symbol: a.Symbol, Address: a.Address.Hex(),
		CreatedAt: a.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: a.UpdatedAt.UTC().Format(TimeFormat)}
}

// NewDepositAddressListView is the list of a merchant's deposit addresses, all of them.
func NewDepositAddressListView(as []*rampway.MerchantDepositAddress) ListView[DepositAddressView] {
	return NewListView(as, 0, NewDepositAddressView)
}

// depositAddressBody is the body of POST .../deposit-addresses.
type depositAddressBody struct {
	Network *string `json:"network"`
	Symbol  *string `json:"symbol"`
	Address *string `json:"address"`
}

// handleSetDepositAddress sets the merchant's deposit address for (network, symbol), or
// replaces it: 201 with the address either way (created_at tells a replacement: it stays).
func (s *Server) handleSetDepositAddress(w http.ResponseWriter, r *http.Request) error {
	var body depositAddressBody
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	a, err := s.deposits.Set(r.Context(), r.PathValue("merchant_id"), merchant.DepositAddressParams{Network: deref(body.Network),
		Symbol: deref(body.Symbol), Address: deref(body.Address)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, NewDepositAddressView(a))
	return nil
}

func (s *Server) handleListDepositAddresses(w http.ResponseWriter, r *http.Request) error {
	as, err := s.deposits.List(r.Context(), r.PathValue("merchant_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewDepositAddressListView(as))
	return nil
}

func (s *Server) handleDeleteDepositAddress(w http.ResponseWriter, r *http.Request) error {
	if err := s.deposits.Delete(r.Context(), r.PathValue("merchant_id"), r.PathValue("network"), r.PathValue("symbol")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
