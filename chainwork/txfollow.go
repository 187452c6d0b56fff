package chainwork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
)

// txFollower sees the transactions rampway signed of some kinds through to the confirmation
// depth: a pending one this process has not sent (stored by a process that crashed before or
// after sending it) is broadcast again, one waiting too long is re-priced, and the one mined
// deep enough for its nonce is handed to settle.
type txFollower struct {
	net    *rampway.Network
	client ExecClient
	store  rampway.ExecutionStore
	kinds  []string
	// signer returns the key of a wallet, or nil when it is not here (no re-pricing then).
	signer       func(common.Address) rampway.Signer
	settle       func(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error
	repriceAfter uint64
	log          *slog.Logger
	now          func() time.Time
	// sent holds the hashes this process broadcast.
	sent map[common.Hash]bool
	// followed is the head the pending transactions were last looked at.
	followed uint64
}

// follow looks at every pending transaction once per block: a nonce mined deep enough is
// settled (an order's call finishes it), one not yet mined is broadcast again when this
// process has not sent it, and re-priced when it has waited RepriceAfter blocks.
func (x *txFollower) follow(ctx context.Context, head uint64) error {
	all, err := x.store.PendingTxs(ctx, x.net.Name)
	if err != nil {
		return err
	}
	txs := all[:0]
	for _, t := range all {
		if slices.Contains(x.kinds, t.Kind) {
			txs = append(txs, t)
		}
	}
	newBlock := head != x.followed
	for len(txs) > 0 {
		n := 1
		for n < len(txs) && txs[n].Wallet == txs[0].Wallet && txs[n].Nonce == txs[0].Nonce {
			n++
		}
		group := txs[:n]
		txs = txs[n:]
		latest := group[len(group)-1]
		resent := !x.sent[latest.Hash]
		if resent {
			x.broadcast(ctx, latest) // stored by a process that may not have sent it
		}
		if !newBlock && !resent {
			continue
		}
		if err := x.followNonce(ctx, head, group, !resent); err != nil {
			return err
		}
	}
	x.followed = head
	return nil
}

// followNonce handles the transactions of one nonce, latest last: settles the one mined deep
// enough, or re-prices the latest when it has waited too long (and was not just sent again).
func (x *txFollower) followNonce(ctx context.Context, head uint64, group []*rampway.ChainTx, mayReprice bool) error {
	for _, t := range group {
		rec, err := x.client.TransactionReceipt(ctx, t.Hash)
		if errors.Is(err, ethereum.NotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("receipt of %s: %w", t.Hash.Hex(), err)
		}
		if head+1 < rec.BlockNumber.Uint64()+uint64(max(x.net.Confirmations, 1)) {
			return nil // mined, not deep enough yet
		}
		return x.settle(ctx, t, rec)
	}
	latest := group[len(group)-1]
	if !mayReprice || head < latest.SentBlock+x.repriceAfter {
		return nil
	}
	return x.reprice(ctx, head, latest)
}

// broadcast sends a stored transaction. A node that knows it already, or has mined its nonce,
// is fine: receipts tell the rest.
func (x *txFollower) broadcast(ctx context.Context, t *rampway.ChainTx) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(t.Raw); err != nil {
		x.log.Error("stored transaction does not decode", "tx", t.Hash.Hex(), "error", err)
		return
	}
	err := x.client.SendTransaction(ctx, &tx)
	if err != nil && !alreadySent(err) {
		x.log.Warn("broadcast failed; will retry", "ref", t.Ref, "tx", t.Hash.Hex(), "nonce", t.Nonce, "error", err)
		return
	}
	x.sent[t.Hash] = true
}

// alreadySent reports whether a node's refusal means it has the transaction or its nonce is
// used (by it or by one of its replacements).
func alreadySent(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"already known", "known transaction", "nonce too low", "already imported", "replacement transaction underpriced"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// reprice replaces a stuck transaction with the same one at fees 12.5% higher (both caps; at
// least the current estimate), stores it, then broadcasts it. Both stay tracked: whichever
// is mined settles the nonce.
func (x *txFollower) reprice(ctx context.Context, head uint64, t *rampway.ChainTx) error {
	var old types.Transaction
	if err := old.UnmarshalBinary(t.Raw); err != nil {
		return fmt.Errorf("stored transaction %s: %w", t.Hash.Hex(), err)
	}
	tip, feeCap, err := fees(ctx, x.client)
	if err != nil {
		return err
	}
	tip = maxBig(tip, bump(old.GasTipCap()))
	feeCap = maxBig(feeCap, bump(old.GasFeeCap()))
	if feeCap.Cmp(tip) < 0 {
		feeCap = new(big.Int).Set(tip)
	}
	signer := x.signer(t.Wallet)
	if signer == nil {
		x.log.Warn("transaction stuck, and its wallet's key is not here to re-price it", "wallet", t.Wallet.Hex(), "tx", t.Hash.Hex(), "nonce", t.Nonce)
		return nil
	}
	signed, err := signer.SignTx(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: x.net.ChainID, Nonce: old.Nonce(), GasTipCap: tip, GasFeeCap: feeCap,
		Gas: old.Gas(), To: old.To(), Value: old.Value(), Data: old.Data()}), x.net.ChainID)
	if err != nil {
		return fmt.Errorf("sign replacement: %w", err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return err
	}
	r := &rampway.ChainTx{Hash: signed.Hash(), Network: t.Network, Wallet: t.Wallet, Nonce: t.Nonce, Kind: t.Kind, Ref: t.Ref,
		Raw: raw, SentBlock: head, CreatedAt: x.now()}
	if err := x.store.AddTx(ctx, r); err != nil {
		return fmt.Errorf("store replacement of %s: %w", t.Hash.Hex(), err)
	}
	x.log.Warn("transaction stuck: re-priced", "ref", t.Ref, "nonce", t.Nonce, "old_tx", t.Hash.Hex(), "new_tx", r.Hash.Hex(),
		"tip", tip.String(), "fee_cap", feeCap.String())
	x.broadcast(ctx, r)
	return nil
}

// bump is v + 12.5%, rounded up (nodes want at least 10% more to replace a transaction).
func bump(v *big.Int) *big.Int {
	b := new(big.Int).Mul(v, big.NewInt(1125))
	b.Add(b, big.NewInt(999))
	return b.Div(b, big.NewInt(1000))
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// fees is the EIP-1559 estimate: the node's suggested tip, and a fee cap of twice the base
// fee plus the tip (room for six full blocks of base-fee rises).
func fees(ctx context.Context, client ExecClient) (tip, feeCap *big.Int, err error) {
	h, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("head: %w", err)
	}
	if tip, err = client.SuggestGasTipCap(ctx); err != nil {
		return nil, nil, fmt.Errorf("tip: %w", err)
	}
	feeCap = new(big.Int).Set(tip)
	if h.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(h.BaseFee, big.NewInt(2)))
	}
	return tip, feeCap, nil
}
