package checkout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/pricing"
)

// PaymentParams is contractExecution.payment.
type PaymentParams struct {
	Symbol string // payableCryptoSymbol
	// ContractAddress is payableCryptoContractAddress: nil when the request leaves it out (the
	// symbol and network name the asset), "" for the native coin.
	ContractAddress *string
	TotalValue      string // totalValue, whole units
}

// ExecutionParams is the contractExecution object.
type ExecutionParams struct {
	FunctionID     string
	FunctionArgs   json.RawMessage
	Payment        *PaymentParams
	NetworkName    string
	CustomGasLimit string
}

// QuoteParams is an A2 request (and the part of A1 a quote needs).
type QuoteParams struct {
	MerchantID string
	// Livemode is the mode of the key asking: the network must be of that mode.
	Livemode              bool
	CryptoSymbol          string
	CryptoNetwork         string
	CryptoContractAddress string
	Execution             ExecutionParams
	// ServiceFeeBPS is the merchant's own service fee in basis points (rampway.Merchant's);
	// nil means the configured default.
	ServiceFeeBPS *int64
	// assetFromPayment: the request has no crypto_symbol nor crypto_contract_address (B1, B3):
	// the paying asset is the payment's, as CryptoSymbol says, and no address is checked.
	assetFromPayment bool
	// deferSimulation leaves the call's simulation to the caller (Quote.simulate): B3 checks
	// its method's limits, which cost nothing, before it.
	deferSimulation bool
}

// Quote is the priced plan of an order.
type Quote struct {
	Network  *rampway.Network
	Asset    rampway.Asset // what the user pays in
	Function *rampway.ContractFunction
	Args     json.RawMessage
	// Value is totalValue in the payable asset's base units; zero without a payment.
	Value      *big.Int
	GasLimit   uint64
	NetworkFee *big.Int // in Asset's base units
	ServiceFee *big.Int // in Asset's base units
	Amount     *big.Int // Value + NetworkFee + ServiceFee: what the user pays
	Allowed    bool
	Message    string

	// pending is the simulation a deferSimulation quote has not run yet (nil: run, or none).
	pending *pendingSimulation
}

// pendingSimulation is what a deferred simulation runs.
type pendingSimulation struct {
	evm      EVM
	calldata []byte
	custom   bool
}

const (
	fExec     = "contractExecution"
	fFunction = fExec + ".smartContractFunctionId"
	fPayment  = fExec + ".payment"
	fSymbol   = fPayment + ".payableCryptoSymbol"
	fContract = fPayment + ".payableCryptoContractAddress"
	fTotal    = fPayment + ".totalValue"
	fNetwork  = fExec + ".network_params.networkName"
	fGas      = fExec + ".network_params.customGasLimit"
)

// Quote prices an order. Invalid input is an error (EINVALID naming the field, EFUNCARGS for
// the arguments); a valid request that cannot be served (outside the asset's bounds, a call
// that would revert) is a Quote with Allowed false and a Message saying why.
func (s *Service) Quote(ctx context.Context, p QuoteParams) (*Quote, error) {
	net, ok := s.chains.Network(p.CryptoNetwork)
	if p.CryptoNetwork == "" {
		return nil, rampway.FieldErrorf("crypto_network", "crypto_network is required")
	}
	if !ok {
		return nil, rampway.FieldErrorf("crypto_network", "crypto_network %q is not a supported network", rampway.Echo(p.CryptoNetwork))
	}
	if err := checkNetworkMode("crypto_network", net, p.Livemode); err != nil {
		return nil, err
	}
	x := p.Execution
	// A payable asset the network does not have is named by the request's own field first
	// (the spec's "payableCryptoSymbol X is not valid for network Y"), whatever crypto_symbol
	// says: B1 and C1 have no crypto_symbol at all.
	if pay := x.Payment; pay != nil && pay.Symbol != "" {
		if _, ok := net.Asset(pay.Symbol); !ok {
			return nil, rampway.FieldErrorf(fSymbol, "payableCryptoSymbol %s is not valid for network %s", rampway.Echo(pay.Symbol), net.Name)
		}
	}
	if p.CryptoSymbol == "" {
		return nil, rampway.FieldErrorf("crypto_symbol", "crypto_symbol is required")
	}
	asset, ok := net.Asset(p.CryptoSymbol)
	if !ok {
		return nil, rampway.FieldErrorf("crypto_symbol", "crypto_symbol %s is not valid for network %s", rampway.Echo(p.CryptoSymbol), net.Name)
	}
	if x.FunctionID == "" {
		return nil, rampway.FieldErrorf(fFunction, "%s is required", fFunction)
	}
	// An id longer than Echo keeps is no registered one: Active refuses it as unknown, and its
	// message repeats it cut.
	f, fn, err := s.functions.Active(ctx, p.MerchantID, rampway.Echo(x.FunctionID))
	if err != nil {
		return nil, err
	}
	if x.NetworkName == "" {
		return nil, rampway.FieldErrorf(fNetwork, "%s is required", fNetwork)
	}
	if x.NetworkName != f.Network {
		return nil, rampway.FieldErrorf(fNetwork, "networkName %s is not the network of function %s (%s)", rampway.Echo(x.NetworkName), f.ID, f.Network)
	}
	if x.NetworkName != net.Name {
		return nil, rampway.FieldErrorf("crypto_network", "crypto_network %s differs from networkName %s", net.Name, x.NetworkName)
	}

	q := &Quote{Network: net, Asset: asset, Function: f, Args: normalizeArgs(x.FunctionArgs), Value: new(big.Int), GasLimit: f.DefaultGasLimit}
	pay := x.Payment
	switch {
	case pay == nil && f.PayableSymbol != "":
		return nil, rampway.FieldErrorf(fPayment, "%s is required: function %s is paid in %s", fPayment, f.ID, f.PayableSymbol)
	case pay != nil && f.PayableSymbol == "":
		return nil, rampway.FieldErrorf(fPayment, "function %s receives no funds: leave out %s", f.ID, fPayment)
	case pay != nil:
		if pay.Symbol == "" {
			return nil, rampway.FieldErrorf(fSymbol, "%s is required", fSymbol)
		}
		if pay.Symbol != f.PayableSymbol {
			return nil, rampway.FieldErrorf(fSymbol, "payableCryptoSymbol %s is not the asset function %s is paid in (%s)", pay.Symbol, f.ID, f.PayableSymbol)
		}
		if pay.Symbol != p.CryptoSymbol {
			return nil, rampway.FieldErrorf("crypto_symbol", "crypto_symbol %s must be the payableCryptoSymbol %s", p.CryptoSymbol, pay.Symbol)
		}
	}
	// The contract addresses only now: on a function paid in another asset, crypto_symbol is
	// the fault to name, not the address its token would need. (With a payment, both
	// symbols are the same asset of the network.)
	if !p.assetFromPayment {
		if err := checkContractAddress("crypto_contract_address", p.CryptoContractAddress, asset); err != nil {
			return nil, err
		}
	}
	if pay != nil {
		// Optional in the spec: left out, the symbol and network name the asset.
		switch {
		case pay.ContractAddress == nil:
		case *pay.ContractAddress == "" && !asset.IsNative():
			return nil, rampway.FieldErrorf(fContract, "payableCryptoContractAddress \"\" names the native coin of %s, but %s is a token: give its contract address %s or leave the field out",
				net.Name, asset.Symbol, asset.Contract.Hex())
		default:
			if err := checkContractAddress(fContract, *pay.ContractAddress, asset); err != nil {
				return nil, err
			}
		}
		if pay.TotalValue == "" {
			return nil, rampway.FieldErrorf(fTotal, "%s is required", fTotal)
		}
		v, err := rampway.ParseUnits(pay.TotalValue, asset.Decimals)
		if err != nil || v.Sign() <= 0 {
			return nil, rampway.FieldErrorf(fTotal, "totalValue must be a positive decimal with at most %d decimal places, not %q", asset.Decimals, rampway.Echo(pay.TotalValue))
		}
		q.Value = v
	}
	if x.CustomGasLimit != "" {
		g, err := strconv.ParseUint(x.CustomGasLimit, 10, 64) // digits only: no sign, no spaces
		if err != nil || g < contract.MinGasLimit || g > contract.MaxGasLimit {
			return nil, rampway.FieldErrorf(fGas, "customGasLimit must be a whole number between %d and %d", contract.MinGasLimit, contract.MaxGasLimit)
		}
		q.GasLimit = g
	}
	calldata, err := fn.Encode(q.Args)
	if err != nil {
		return nil, err
	}

	evm, ok := s.chains.EVM(net.Name)
	if !ok {
		return nil, fmt.Errorf("no client for network %s", net.Name)
	}
	if err := s.price(ctx, q, evm, p.ServiceFeeBPS); err != nil {
		return nil, err
	}
	q.Allowed, q.Message = true, ""
	if asset.Min != nil && q.Amount.Cmp(asset.Min) < 0 {
		q.Allowed, q.Message = false, fmt.Sprintf("Amount %s %s is below the minimum payment of %s %s on %s",
			rampway.FormatUnits(q.Amount, asset.Decimals), asset.Symbol, rampway.FormatUnits(asset.Min, asset.Decimals), asset.Symbol, net.Name)
		return q, nil
	}
	if asset.Max != nil && q.Amount.Cmp(asset.Max) > 0 {
		q.Allowed, q.Message = false, fmt.Sprintf("Amount %s %s is above the maximum payment of %s %s on %s",
			rampway.FormatUnits(q.Amount, asset.Decimals), asset.Symbol, rampway.FormatUnits(asset.Max, asset.Decimals), asset.Symbol, net.Name)
		return q, nil
	}
	q.pending = &pendingSimulation{evm: evm, calldata: calldata, custom: x.CustomGasLimit != ""}
	if p.deferSimulation {
		return q, nil
	}
	if err := s.runSimulation(ctx, q); err != nil {
		return nil, err
	}
	return q, nil
}

// runSimulation runs a quote's pending simulation: the call from the hot wallet at the gas
// limit; a call that would fail makes the quote not allowed, saying why.
func (s *Service) runSimulation(ctx context.Context, q *Quote) error {
	ps := q.pending
	if ps == nil {
		return nil
	}
	q.pending = nil
	if reason, err := s.simulate(ctx, ps.evm, q, ps.calldata); err != nil {
		return err
	} else if msg := belowIntrinsicGas(reason, q, ps.custom); msg != "" {
		q.Allowed, q.Message = false, msg
	} else if reason != "" {
		q.Allowed, q.Message = false, "The smart-contract call would fail: "+reason
	}
	return nil
}

// intrinsicGas matches a node's refusal of a gas limit below what the call costs before it
// runs: go-ethereum's "intrinsic gas too low: have 21000, want 21572" and, since Prague, the
// calldata floor's "insufficient gas for floor data gas cost: have ..., want ...".
var intrinsicGas = regexp.MustCompile(`(?:intrinsic gas too low|floor data gas cost): have \d+, want (\d+)`)

// belowIntrinsicGas says in the request's terms that its gas limit is below the call's
// intrinsic gas, when the simulation's reason is that (the node's own words, "err: ...
// (supplied gas N)", are not for merchants), or "" when it is not.
func belowIntrinsicGas(reason string, q *Quote, custom bool) string {
	want := ""
	if m := intrinsicGas.FindStringSubmatch(reason); m != nil {
		want = " " + m[1]
	} else if !strings.Contains(reason, "intrinsic gas too low") {
		return ""
	}
	if custom {
		return fmt.Sprintf("customGasLimit %d is below the%s gas the call needs before it runs", q.GasLimit, want)
	}
	return fmt.Sprintf("The gas limit %d registered for function %s is below the%s gas the call needs before it runs: give a higher customGasLimit",
		q.GasLimit, q.Function.ID, want)
}

// price fills the fees and the amount: the network fee is the gas limit (plus the approvals of
// token-paid functions: one approve, two for an ApproveReset token) at the current base fee plus tip, in the paying asset, rounded up; the
// service fee is feeBPS basis points of the value (the configured default when nil), rounded up.
func (s *Service) price(ctx context.Context, q *Quote, evm EVM, feeBPS *int64) error {
	fd, err := s.fees.get(ctx, q.Network.Name, evm, s.now())
	if err != nil {
		return unavailable(q.Network.Name, err)
	}
	perGas := new(big.Int).Add(fd.tip, fd.baseFee)
	gas := q.GasLimit
	if pa, ok := q.Network.Asset(q.Function.PayableSymbol); ok && !pa.IsNative() {
		gas += rampway.ApproveGas * uint64(len(rampway.Approvals(pa, q.Function.Contract, q.Value)))
	}
	feeWei := new(big.Int).Mul(perGas, new(big.Int).SetUint64(gas))
	if q.NetworkFee, err = pricing.Convert(ctx, s.prices, feeWei, q.Network.Native, q.Asset); err != nil {
		return &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("No price is available to convert the network fee into %s", q.Asset.Symbol), Err: err}
	}
	bps := s.cfg.ServiceFeeBPS
	if feeBPS != nil {
		bps = *feeBPS
	}
	q.ServiceFee = pricing.BPS(q.Value, bps)
	exact := new(big.Int).Add(q.Value, q.NetworkFee)
	exact.Add(exact, q.ServiceFee)
	// What a person pays by hand must be typeable: the amount is rounded up to
	// AmountDigits significant digits, and the network fee (an estimate) takes the
	// difference, so that the stated parts still add up to it.
	q.Amount = rampway.RoundUpSignificant(exact, rampway.AmountDigits)
	q.NetworkFee.Add(q.NetworkFee, new(big.Int).Sub(q.Amount, exact))
	return nil
}

// simulate runs the call from the hot wallet at the gas limit, a token-paid one after its
// approve, and returns the revert reason, or "" when it would succeed.
func (s *Service) simulate(ctx context.Context, evm EVM, q *Quote, calldata []byte) (string, error) {
	to := q.Function.Contract
	call := rampway.Call{To: to, Value: q.Value, Data: calldata, Gas: q.GasLimit}
	var calls []rampway.Call
	if pa, ok := q.Network.Asset(q.Function.PayableSymbol); ok && !pa.IsNative() {
		call.Value = new(big.Int)
		calls = rampway.Approvals(pa, to, q.Value)
	}
	reason, err := evm.Simulate(ctx, s.cfg.HotWallet, append(calls, call))
	switch {
	case errors.Is(err, rampway.ErrInsufficientFunds):
		// The operator's business, not the merchant's (the executor's pre-flight and logs
		// tell the operator).
		return fmt.Sprintf("the service's wallet on %s cannot pay the call's value and gas at the moment", q.Network.Name), nil
	case err != nil:
		return "", unavailable(q.Network.Name, err)
	}
	return reason, nil
}

func unavailable(network string, err error) error {
	return &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("Network %s is not reachable right now; try again", network), Err: err}
}

// checkContractAddress checks an asset's contract address as given in field: required and
// equal for a token, empty for the native coin.
func checkContractAddress(field, given string, a rampway.Asset) error {
	if a.IsNative() {
		if given != "" {
			return rampway.FieldErrorf(field, "%s must be empty for %s, the native coin of %s", field, a.Symbol, a.Network)
		}
		return nil
	}
	if given == "" {
		return rampway.FieldErrorf(field, "%s is required for the token %s", field, a.Symbol)
	}
	addr, err := rampway.ParseAddress(field, given)
	if err != nil {
		return err
	}
	if addr != a.Contract {
		return rampway.FieldErrorf(field, "%s %s is not the contract of %s on %s", field, given, a.Symbol, a.Network)
	}
	return nil
}
