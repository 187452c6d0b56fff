package sandbox

import (
	"context"

	"github.com/rampway/rampway/provider"
)

// The sandbox registers itself: test mode only, the provider `rampway dev` configures when the
// configuration names none, its pages and its bank-transfer operation.
func init() {
	provider.Register(provider.Module{
		Name:       Name,
		Methods:    Methods,
		TestOnly:   true,
		DevDefault: true,
		Dev:        &provider.Dev{TestCards: map[string]string{"success": CardSuccess, "decline": CardDecline, "three_ds": CardThreeDS}},
		New: func(_ context.Context, s provider.Settings, d provider.Deps) (provider.Instance, error) {
			return New(Config{Name: s.Name, BaseURL: s.PublicURL, Secret: s.Secret}, NewBooks(d.Books, s.Name), d.Now), nil
		},
	})
}

var (
	_ provider.Router   = (*Provider)(nil)
	_ provider.Runner   = (*Provider)(nil)
	_ provider.AdminOps = (*Provider)(nil)
)

// BankTransferView answers a bank transfer told to the sandbox.
type BankTransferView struct {
	Credit    string `json:"credit_id"`
	Reference string `json:"reference"`
	Amount    string `json:"amount"`
	Currency  string `json:"currency"`
}

// AdminOps implements provider.AdminOps: POST {admin}/{name}/bank-transfers {reference, amount,
// currency} tells the sandbox a bank transfer arrived (amount in major units); `rampway admin
// {name} bank-transfer --reference REF --amount AMOUNT --currency CUR` does the same.
func (p *Provider) AdminOps() []provider.AdminOp {
	return []provider.AdminOp{{
		Path: "bank-transfers", CLI: "bank-transfer",
		Help:   "tells the sandbox payment provider that a bank transfer arrived for the payment with this reference (amount in major units)",
		Fields: []string{"reference", "amount", "currency"},
		Do: func(ctx context.Context, f map[string]string) (any, error) {
			credit, err := p.BankTransfer(ctx, f["reference"], f["amount"], f["currency"])
			if err != nil {
				return nil, err
			}
			return BankTransferView{Credit: credit, Reference: f["reference"], Amount: f["amount"], Currency: f["currency"]}, nil
		},
	}}
}
