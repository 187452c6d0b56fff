package rampway

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// The ledger: every movement of value rampway makes or receives, recorded as double-entry
// transfers (a debit account, a credit account, an asset and a positive amount, so that each
// sums to zero) in the same database transaction as the movement itself. See docs/ledger.md.

// LedgerAccountKind is what a ledger account stands for.
type LedgerAccountKind string

// Ledger account kinds. Hot wallets, deposit addresses and provider balances are held: rampway
// holds their keys (or its money is there), and the reconciliation compares them with the
// chain (the provider). The others are counterparties: the world, and fees burned.
const (
	AccountHot       LedgerAccountKind = "hot"       // a hot wallet of a network
	AccountDeposit   LedgerAccountKind = "deposit"   // a deposit address of a network
	AccountExternal  LedgerAccountKind = "external"  // any address of a network rampway holds no key for
	AccountFees      LedgerAccountKind = "fees"      // network fees (gas) paid, burned or to the block's producer
	AccountProvider  LedgerAccountKind = "provider"  // money held for rampway at a payment provider
	AccountCustomers LedgerAccountKind = "customers" // the people who paid a provider in fiat
)

// Held reports whether rampway holds the account's money (and so reconciles it).
func (k LedgerAccountKind) Held() bool {
	return k == AccountHot || k == AccountDeposit || k == AccountProvider
}

// HotAccount, DepositAccount, ExternalAccount and FeesAccount name a network's accounts;
// ProviderAccount and CustomersAccount a payment provider's in a currency.
func HotAccount(network string, a common.Address) string { return "hot/" + network + "/" + a.Hex() }
func DepositAccount(network string, a common.Address) string {
	return "deposit/" + network + "/" + a.Hex()
}
func ExternalAccount(network string) string { return "external/" + network }
func FeesAccount(network string) string     { return "fees/" + network }
func ProviderAccount(provider, currency string) string {
	return "provider/" + provider + "/" + currency
}
func CustomersAccount(provider, currency string) string {
	return "customers/" + provider + "/" + currency
}

// ProviderPaymentAccount is one payment's part of a provider's account (provider/<provider>/
// <currency>/<payment id>): what a drift between the ledger and the provider's records of the
// payment is about.
func ProviderPaymentAccount(provider, currency, paymentID string) string {
	return ProviderAccount(provider, currency) + "/" + paymentID
}

// SplitProviderPaymentAccount is ProviderPaymentAccount's inverse; false for another account.
func SplitProviderPaymentAccount(account string) (provider, currency, paymentID string, ok bool) {
	parts := strings.Split(account, "/")
	if len(parts) != 4 || parts[0] != string(AccountProvider) || parts[1] == "" || parts[2] == "" || parts[3] == "" {
		return "", "", "", false
	}
	return parts[1], parts[2], parts[3], true
}

// LedgerFiat is the network name of the fiat side's reconciliation (its drifts and rounds):
// the ledger's fiat payments compared with the providers' records.
const LedgerFiat = "fiat"

// FiatLedgerPayment is a fiat payment as the ledger has it, for the reconciliation with its
// provider: the net of its captures, credits and refunds (what the provider should hold of it
// for rampway, in the currency's minor units).
type FiatLedgerPayment struct {
	PaymentID   string
	OrderID     string
	Provider    string
	ProviderRef string
	Currency    string
	Ledger      *big.Int
	// Busy: an action of the payment is under way (pending): the provider may have done it
	// before rampway recorded it, so the payment waits for a later round.
	Busy bool
}

// AccountKind is the kind of an account named by the functions above.
func AccountKind(account string) LedgerAccountKind {
	kind, _, _ := strings.Cut(account, "/")
	return LedgerAccountKind(kind)
}

// NativeAsset and TokenAsset name a network's assets in the ledger; FiatAsset a currency.
func NativeAsset(network string) string                      { return network + "/native" }
func TokenAsset(network string, token common.Address) string { return network + "/" + token.Hex() }
func FiatAsset(currency string) string                       { return "fiat/" + currency }

// ChainAsset is the ledger's name of a network's asset: its token contract, or the zero
// address for the native coin.
func ChainAsset(network string, token common.Address) string {
	if token == (common.Address{}) {
		return NativeAsset(network)
	}
	return TokenAsset(network, token)
}

// LedgerTransfer is one double-entry record: Amount of Asset from Debit to Credit.
type LedgerTransfer struct {
	// ID makes it once: the same movement recorded again is ignored (e.g. "tx:<network>:<hash>:fee").
	ID      string
	Network string // "" for fiat
	Asset   string
	Debit   string
	Credit  string
	Amount  *big.Int
	// Block is the block of the movement (0 for fiat).
	Block uint64
	// Kind says what moved it: deposit, call, approve, refund, sweep, gas, fee, opening,
	// adjustment, fiat_capture, fiat_credit, fiat_refund.
	Kind string
	// Note is what the operator who accepted a drift said (Kind "adjustment").
	Note string
	// Ref is what it served: an order's id (a payment credited, its call and approve), a
	// sweep's (its gas and transfer), a refund's, a fiat payment's (its captures, credits and
	// refunds), or the account opened.
	Ref       string
	CreatedAt time.Time
}

// TokenMove is an ERC-20 Transfer log of a mined transaction.
type TokenMove struct {
	Token, From, To common.Address
	Amount          *big.Int
	LogIndex        uint
}

// MinedTx is what a transaction rampway signed did once mined deep enough, from its receipt:
// the stores settle it with this and record its movements in the ledger.
type MinedTx struct {
	Hash  common.Hash
	Block uint64
	// OK is the receipt's status 1; a reverted transaction moves nothing but its fee.
	OK bool
	// To and Value: the native value sent (0 when reverted).
	To    common.Address
	Value *big.Int
	// Fee is what its sender paid for gas: gas used x effective gas price (nil: none).
	Fee *big.Int
	// Tokens are the Transfer logs of the network's tokens to or from its sender.
	Tokens []TokenMove
}

// TransferTopic is keccak256("Transfer(address,address,uint256)").
var TransferTopic = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")

// NewMinedTx reads a mined transaction signed by from: its fee, its value when it succeeded,
// and the Transfer logs of tokens (the contracts given) to or from the sender.
func NewMinedTx(tx *types.Transaction, from common.Address, rec *types.Receipt, tokens []common.Address) MinedTx {
	m := MinedTx{Hash: tx.Hash(), Block: rec.BlockNumber.Uint64(), OK: rec.Status == types.ReceiptStatusSuccessful, Value: new(big.Int)}
	if tx.To() != nil {
		m.To = *tx.To()
	}
	if m.OK {
		m.Value = new(big.Int).Set(tx.Value())
	}
	price := rec.EffectiveGasPrice
	if price == nil {
		price = tx.GasPrice()
	}
	m.Fee = new(big.Int).Mul(price, new(big.Int).SetUint64(rec.GasUsed))
	for _, l := range rec.Logs {
		if len(l.Topics) != 3 || l.Topics[0] != TransferTopic || len(l.Data) != 32 || l.Removed {
			continue
		}
		known := false
		for _, t := range tokens {
			known = known || t == l.Address
		}
		lf, lt := common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes())
		if known && (lf == from || lt == from) {
			m.Tokens = append(m.Tokens, TokenMove{Token: l.Address, From: lf, To: lt, Amount: new(big.Int).SetBytes(l.Data), LogIndex: l.Index})
		}
	}
	return m
}

// LedgerCheck is one account's asset as a reconciliation found it at a block: the ledger's
// balance and the chain's (or the provider's).
type LedgerCheck struct {
	Account string
	Network string
	Address common.Address
	Asset   string
	Block   uint64
	Ledger  *big.Int
	Chain   *big.Int
}

// Diff is Chain - Ledger: positive when the chain holds more than the ledger says.
func (c LedgerCheck) Diff() *big.Int { return new(big.Int).Sub(c.Chain, c.Ledger) }

// LedgerDrift is an account's asset whose chain balance differs from the ledger's: an
// alarm until they agree again.
type LedgerDrift struct {
	LedgerCheck
	FirstSeen time.Time
	LastSeen  time.Time
}

// LedgerHolding is an account of a network the ledger holds, with the assets to compare.
type LedgerHolding struct {
	Account string
	Kind    LedgerAccountKind
	Address common.Address
	// Opened is false for an account whose ledger starts at the chain's balance the first
	// time it is reconciled (a hot wallet, funded outside rampway).
	Opened bool
	// Balances are the ledger's balances at the block asked for, by asset.
	Balances map[string]*big.Int
	// Moves is a counter of the transfers that touched it, to mark it checked (RecordReconciliation).
	Moves map[string]int64
}

// Reconciliation is what one round compared on a network at a block.
type Reconciliation struct {
	Network string
	Block   uint64
	// Checked are the comparisons made (equal or not); Drifts those that differ.
	Checked []LedgerCheck
	// Skipped are the accounts left for a later round: a movement of theirs at or below the
	// block is not recorded yet (a transaction mined, not yet settled; a payment seen, not yet
	// confirmed).
	Skipped []string
	// Moves are the counters of the holdings read (LedgerHolding.Moves) by account and asset.
	Moves map[string]map[string]int64
	At    time.Time
}

// Drifts are the checks that differ.
func (r *Reconciliation) Drifts() []LedgerCheck {
	var out []LedgerCheck
	for _, c := range r.Checked {
		if c.Diff().Sign() != 0 {
			out = append(out, c)
		}
	}
	return out
}

// LedgerDay is one day's and one asset's line of the ledger's report: what came in from
// outside to accounts rampway holds, what went out, what was paid in network fees, and what
// the held accounts held at the day's end.
type LedgerDay struct {
	Day   string // YYYY-MM-DD, UTC
	Asset string
	In    *big.Int
	Out   *big.Int
	Fees  *big.Int
	Held  *big.Int
}

// LedgerStore keeps the ledger. Movements are recorded by the stores' own writes (credits,
// settlements, fiat actions); what is here serves the reconciliation and the report.
type LedgerStore interface {
	// AddHotWallet makes address a held account of network (idempotent): its ledger is opened
	// at the chain's balance the first time it is reconciled.
	AddHotWallet(ctx context.Context, network string, address common.Address) error
	// LedgerHoldings returns the held accounts of network to compare, with their balances at
	// block (every transfer recorded at or below it), read in one snapshot: the hot wallets,
	// those with transfers not yet checked, those with a drift, the accounts not opened, and
	// up to sweep others with a balance, after the account sweepAfter (a rolling look at the
	// rest); next is where the next sweep starts ("" from the beginning).
	LedgerHoldings(ctx context.Context, network string, block uint64, sweepAfter string, sweep int) (holdings []*LedgerHolding, next string, err error)
	// OpenLedgerAccount records the opening transfers of an account not opened (from the
	// world, at block) and marks it opened; an account already opened is left alone.
	OpenLedgerAccount(ctx context.Context, network, account string, block uint64, opening map[string]*big.Int, at time.Time) error
	// RecordReconciliation stores a round: the drifts found (kept until the balances agree),
	// the accounts checked, the network's last reconciled block.
	RecordReconciliation(ctx context.Context, r *Reconciliation) error
	// AcceptLedgerDrift records, for an operator who found its cause (a hot wallet funded by
	// hand), the standing drift of account's asset as a transfer from (or to) the world at the
	// drift's block, with note, and clears it: the next round compares again. ENOTFOUND
	// without a drift; EINVALID without a note.
	AcceptLedgerDrift(ctx context.Context, account, asset, note string, at time.Time) (*LedgerTransfer, error)
	// LedgerDrifts returns the differences standing, network "" for all.
	LedgerDrifts(ctx context.Context, network string) ([]LedgerDrift, error)
	// LedgerTransfers returns the transfers of ref (an order, sweep, refund or fiat payment),
	// or of an account when ref starts with an account kind and "/", oldest first.
	LedgerTransfers(ctx context.Context, ref string) ([]LedgerTransfer, error)
	// LedgerReport returns per day (UTC) and asset the flows of the days in [from, to).
	LedgerReport(ctx context.Context, from, to time.Time) ([]LedgerDay, error)
	// FiatLedgerPayments returns the fiat payments to compare with their providers, with the
	// ledger's net of each: those whose ledger transfers were recorded at or after since,
	// those with a drift standing, and up to sweep others with a provider reference after the
	// payment id sweepAfter (a rolling look at the rest); next is where the next sweep starts
	// ("" from the beginning).
	FiatLedgerPayments(ctx context.Context, since time.Time, sweepAfter string, sweep int) (payments []FiatLedgerPayment, next string, err error)
	// Reconciled returns the last block reconciled on network and when (false: never).
	Reconciled(ctx context.Context, network string) (uint64, time.Time, bool, error)
}
