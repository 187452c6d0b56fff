package chainwork

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/pricing"
)

// Refunds are paid by the executor, from the hot wallet, with the same nonces and the same
// transaction follower as executions: a refund's transaction is signed, stored with the
// refund marked sent, then broadcast; a crash anywhere leaves either nothing or a stored
// transaction that the follower sends again and settles. A refund is paid at most once.

// plainTransferGas is the gas of a native transfer to an account on Ethereum.
const plainTransferGas = 21_000

// gasMargin is added to an estimated gas limit (percent): the fee charged is the estimate's,
// the limit leaves room for a state (or an L1 data price) that changed meanwhile.
const gasMargin = 25

// estimateGas is the gas of msg and the limit to sign it with, for a transaction a caller
// would otherwise sign with floor gas: the node's estimate, and a limit of the larger of
// floor and the estimate with gasMargin (a network charging its L1 data in gas, such as
// Arbitrum, a receiver whose code runs, a dear token). An estimate of at most 21,000 is a
// plain transfer's, exact: floor, no margin. One that fails (a node's error; a sender that
// cannot pay what msg sends) leaves floor: the caller goes on as it would without one (a
// shortfall is then told as such by its liquidity check).
func estimateGas(ctx context.Context, client interface {
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
}, msg ethereum.CallMsg, floor uint64) (gas, limit uint64) {
	est, err := client.EstimateGas(ctx, msg)
	if err != nil || est <= plainTransferGas {
		return floor, floor
	}
	return est, max(floor, est+est*gasMargin/100)
}

// transferGas is estimateGas of a native transfer from one account to another (21,000 on
// Ethereum), estimated for 1 wei: what the sender holds is not the estimate's business.
func transferGas(ctx context.Context, client interface {
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
}, from, to common.Address) (gas, limit uint64) {
	return estimateGas(ctx, client, ethereum.CallMsg{From: from, To: &to, Value: big.NewInt(1)}, plainTransferGas)
}

// delegationPrefix starts the code of an account that delegates to a contract (EIP-7702):
// its key holder controls it, so it is an account that can take its refund back.
var delegationPrefix = []byte{0xef, 0x01, 0x00}

// payRefunds pays the network's pending refunds, oldest first, while the hot wallet can.
func (x *Executor) payRefunds(ctx context.Context, head uint64) (int, error) {
	refunds, err := x.store.ListRefunds(ctx, rampway.RefundFilter{Status: rampway.RefundPending, Network: x.net.Name, Limit: x.cfg.Batch})
	if err != nil || len(refunds) == 0 {
		return 0, err
	}
	w, err := x.wallet(ctx)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, r := range refunds {
		ok, err := x.payRefund(ctx, head, r, w.tip, w.feeCap, w.chainNonce, w.liq)
		if errors.Is(err, errNoLiquidity) {
			return sent, nil // logged; the next step tries again
		}
		if err != nil {
			return sent, err
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}

// refundAsset is the asset a refund pays back.
func (x *Executor) refundAsset(r *rampway.Refund) (rampway.Asset, bool) {
	if r.Token == (common.Address{}) {
		return x.net.Native, true
	}
	for _, t := range x.net.Tokens {
		if t.Contract == r.Token {
			return t, true
		}
	}
	return rampway.Asset{}, false
}

// payRefund pays one refund, or holds it (an address or an approval to wait for), or settles
// it as dust; it reports whether it sent it. Only errors that should end the step are returned.
func (x *Executor) payRefund(ctx context.Context, head uint64, r *rampway.Refund, tip, feeCap *big.Int, chainNonce uint64, liq *liquidity) (bool, error) {
	log := x.log.With("refund_id", r.ID, "order_id", r.OrderID)
	asset, ok := x.refundAsset(r)
	if !ok {
		log.Error("refund of a token no longer configured: left pending", "token", r.Token.Hex())
		return false, nil
	}
	hold := func(status rampway.RefundStatus, why string) (bool, error) {
		if _, err := x.store.HoldRefund(ctx, r.ID, status, why, x.at()); err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT {
			return false, fmt.Errorf("hold refund %s: %w", r.ID, err)
		}
		log.Info("refund waits", "status", status, "why", why)
		return false, nil
	}
	// Refunds move money too: only for an order of the network's mode.
	o, err := x.store.Order(ctx, r.OrderID)
	if err != nil {
		log.Warn("refund's order not readable; will retry", "error", err)
		return false, nil
	}
	if err := rampway.ModeMatches("network "+x.net.Name, o.Livemode, x.net.Livemode); err != nil {
		log.Error("refund refused: its order's mode is not the network's", "order_livemode", o.Livemode, "network_livemode", x.net.Livemode)
		return hold(rampway.RefundAwaitingApproval, rampway.ErrorMessage(err)+": nothing is sent")
	}
	if r.To == (common.Address{}) {
		return hold(rampway.RefundAwaitingAddress, "the payment's sender is not known (it arrived through a contract's internal transfer): an address to refund is needed")
	}
	code, err := x.client.CodeAt(ctx, r.To, nil)
	if err != nil {
		log.Warn("refund address not readable; will retry", "error", err)
		return false, nil
	}
	contract := len(code) > 0 && !bytes.HasPrefix(code, delegationPrefix)
	if contract && (r.ToSource == rampway.RefundToPayer || r.ToSource == "") {
		return hold(rampway.RefundAwaitingAddress, fmt.Sprintf("the payment came from a contract (%s), which may not be able to take it back: an address to refund is needed", r.To.Hex()))
	}

	// The network fee, estimated as quotes do (gas x (base fee + tip)), comes out of the refund.
	var gas, limit uint64
	if contract || !asset.IsNative() {
		c := rampway.PayoutCall(asset, r.To, r.Amount, 0)
		est, err := x.client.EstimateGas(ctx, ethereum.CallMsg{From: x.signer.Address(), To: &c.To, Value: c.Value, Data: c.Data})
		if err != nil {
			// A transfer the node says cannot be made: the hot wallet lacks the token, or the
			// address refuses it. Tried again each step; logged for the operator.
			log.Warn("refund transfer cannot be estimated; will retry", "to", r.To.Hex(), "error", err)
			return false, nil
		}
		gas, limit = est, est+est*gasMargin/100
	} else {
		gas, limit = transferGas(ctx, x.client, x.signer.Address(), r.To)
	}
	price := new(big.Int).Add(tip, new(big.Int).Div(new(big.Int).Sub(feeCap, tip), big.NewInt(2))) // base fee + tip
	feeWei := new(big.Int).Mul(price, new(big.Int).SetUint64(gas))
	fee, err := feeWei, error(nil)
	if !asset.IsNative() {
		if x.cfg.Prices == nil {
			log.Error("no prices to convert a token refund's network fee: left pending")
			return false, nil
		}
		fee, err = pricing.Convert(ctx, x.cfg.Prices, feeWei, x.net.Native, asset)
	}
	if err != nil {
		log.Warn("no price converts the refund's network fee; will retry", "error", err)
		return false, nil
	}
	out := new(big.Int).Sub(r.Amount, fee)
	policy := x.cfg.RefundPolicies[x.net.Name+"/"+asset.Symbol]
	if policy.IsDust(out) {
		why := fmt.Sprintf("%s %s does not cover the network fee of sending it (%s %s)", rampway.FormatUnits(r.Amount, asset.Decimals), asset.Symbol,
			rampway.FormatUnits(fee, asset.Decimals), asset.Symbol)
		if out.Sign() > 0 {
			why = fmt.Sprintf("%s %s after the network fee is at most the dust threshold of %s %s: nothing is sent",
				rampway.FormatUnits(out, asset.Decimals), asset.Symbol, rampway.FormatUnits(policy.Dust, asset.Decimals), asset.Symbol)
		}
		if err := x.store.DustRefund(ctx, r.ID, fee, why, x.at()); err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT {
			return false, fmt.Errorf("dust refund %s: %w", r.ID, err)
		}
		log.Info("refund is dust: not sent", "why", why)
		return false, nil
	}
	if policy.NeedsApproval(r.Amount) && r.ApprovedAt.IsZero() {
		return hold(rampway.RefundAwaitingApproval, fmt.Sprintf("%s %s is above the automatic refund limit of %s %s: an operator approves it (rampway admin refunds approve %s)",
			rampway.FormatUnits(r.Amount, asset.Decimals), asset.Symbol, rampway.FormatUnits(policy.AutoMax, asset.Decimals), asset.Symbol, r.ID))
	}

	call := rampway.PayoutCall(asset, r.To, out, limit)
	cost := new(big.Int).Add(call.Value, new(big.Int).Mul(feeCap, new(big.Int).SetUint64(limit)))
	if liq.native.Cmp(cost) < 0 {
		log.Error("hot wallet cannot pay the refund: waiting for funds", "wallet", x.signer.Address().Hex(), "balance_wei", liq.native.String(), "needed_wei", cost.String())
		return false, x.lacking("refund "+r.ID, x.net.Native, liq.native, cost)
	}
	if !asset.IsNative() {
		have, err := x.tokenBalance(ctx, asset.Contract, liq)
		if err != nil {
			return false, err
		}
		if have.Cmp(out) < 0 {
			log.Error("hot wallet cannot pay the refund: waiting for funds", "wallet", x.signer.Address().Hex(), "token", asset.Symbol,
				"balance", have.String(), "needed", out.String())
			return false, x.lacking("refund "+r.ID, asset, have, out)
		}
	}
	var signed *rampway.ChainTx
	_, err = x.store.StartRefund(ctx, r.ID, x.signer.Address(), chainNonce, fee, out, func(first uint64) (*rampway.ChainTx, error) {
		tx, err := x.signer.SignTx(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: x.net.ChainID, Nonce: first, GasTipCap: tip, GasFeeCap: feeCap,
			Gas: call.Gas, To: &call.To, Value: call.Value, Data: call.Data}), x.net.ChainID)
		if err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			return nil, err
		}
		signed = &rampway.ChainTx{Hash: tx.Hash(), Network: x.net.Name, Wallet: x.signer.Address(), Nonce: first, Raw: raw, SentBlock: head}
		return signed, nil
	}, x.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return false, nil // another instance sent it, or it changed meanwhile
	}
	if err != nil {
		return false, fmt.Errorf("start refund %s: %w", r.ID, err)
	}
	liq.native.Sub(liq.native, cost)
	if !asset.IsNative() {
		liq.tokens[asset.Contract].Sub(liq.tokens[asset.Contract], out)
	}
	// Stored first, broadcast second: a crash in between is mended by the next step.
	x.txs.broadcast(ctx, signed)
	log.Info("refund sent", "tx", signed.Hash.Hex(), "nonce", signed.Nonce, "to", r.To.Hex(), "amount", out.String(), "fee", fee.String())
	return true, nil
}

// settleRefund records a refund's transaction mined deep enough: paid, or reverted.
func (x *Executor) settleRefund(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error {
	m, err := mined(x.net, t, rec)
	if err != nil {
		return err
	}
	ok := m.OK
	why := ""
	if !ok {
		why = strings.Replace(x.revertReason(ctx, t, rec), "the smart-contract call", "the refund's transfer", 1)
	}
	if err := x.store.FinishRefund(ctx, t.Ref, m, why, x.at()); err != nil {
		return fmt.Errorf("finish refund %s: %w", t.Ref, err)
	}
	if ok {
		x.log.Info("refund paid", "refund_id", t.Ref, "tx", t.Hash.Hex(), "block", rec.BlockNumber.Uint64())
	} else {
		x.log.Error("refund reverted: an operator may set another address or approve sending it again", "refund_id", t.Ref, "tx", t.Hash.Hex(), "reason", why)
	}
	return nil
}
