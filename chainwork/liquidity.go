package chainwork

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
)

// liquidity is what the hot wallet can still spend in a step: its balances at the head
// less what its transactions signed and not yet mined there may still take, less what the
// step has signed since.
type liquidity struct {
	native *big.Int
	// tokens are the token balances read so far (tokenBalance), committed already taken out.
	tokens map[common.Address]*big.Int
	// committed is what of each token the wallet's unmined transactions may still move.
	committed map[common.Address]*big.Int
	// at is the block the balances are read at.
	at *big.Int
}

// walletTxs is what reads the transactions a store holds signed: those not yet settled, and
// an execution's whatever their state.
type walletTxs interface {
	PendingTxs(ctx context.Context, network string) ([]*rampway.ChainTx, error)
	Execution(ctx context.Context, orderID string) (*rampway.Execution, []*rampway.ChainTx, error)
}

// spendable reads what wallet can still spend: its balance at the head less what its stored
// transactions not yet mined there may still cost (committed). The node's balance knows
// nothing of a transaction still in the pool, or not yet broadcast: without this, steps one
// after another sign more than the wallet holds, the node refuses the one that overdraws
// ("insufficient funds") and every later nonce of the wallet waits behind it.
//
// The stored transactions are read first, the head then: one settled (and so gone from the
// list) in between was mined at that head or below, and the balance there has paid for it.
// It is a reading, not a reservation: two steps reading at once (the executor's and the
// sweeper's, or two instances') can still promise the same funds; the node then refuses the
// one that overdraws until the wallet is funded.
func spendable(ctx context.Context, client ExecClient, store walletTxs, network string, wallet common.Address) (*liquidity, error) {
	pending, err := store.PendingTxs(ctx, network)
	if err != nil {
		return nil, err
	}
	head, err := client.BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	at := new(big.Int).SetUint64(head)
	var (
		bal        *big.Int
		mined      uint64
		bErr, nErr error
		wg         sync.WaitGroup
	)
	wg.Go(func() { bal, bErr = client.BalanceAt(ctx, wallet, at) })
	wg.Go(func() { mined, nErr = client.NonceAt(ctx, wallet, at) })
	wg.Wait()
	switch {
	case bErr != nil:
		return nil, fmt.Errorf("balance of %s: %w", wallet.Hex(), bErr)
	case nErr != nil:
		return nil, fmt.Errorf("mined nonce of %s: %w", wallet.Hex(), nErr)
	}
	// The call next to be mined may have its approval mined and settled already (out of the
	// list): the tokens it approved are still the call's to take. Only that one can be so: a
	// later approval is mined after this call.
	for _, t := range pending {
		if t.Wallet == wallet && t.Nonce == mined && t.Kind == rampway.TxCall {
			_, txs, err := store.Execution(ctx, t.Ref)
			if err != nil {
				return nil, fmt.Errorf("execution of %s: %w", t.Ref, err)
			}
			pending = append(pending, txs...)
			break
		}
	}
	native, tokens, err := committed(pending, wallet, mined)
	if err != nil {
		return nil, err
	}
	return &liquidity{native: floorSub(bal, native), tokens: map[common.Address]*big.Int{}, committed: tokens, at: at}, nil
}

// committed is what wallet's stored transactions not yet mined (a nonce of mined or above)
// may still spend once they are: the native coin at each nonce's dearest version (its gas at
// its fee cap, and its value: a re-priced nonce is mined at one of its versions), and the
// tokens they move: a transfer's amount while it is not mined, an approval's while a
// transaction of what it serves is not (its call spends what it approved). A transaction
// listed twice counts once.
func committed(pending []*rampway.ChainTx, wallet common.Address, mined uint64) (*big.Int, map[common.Address]*big.Int, error) {
	open := map[string]bool{} // what has a transaction not yet mined
	for _, t := range pending {
		if t.Wallet == wallet && t.Nonce >= mined {
			open[t.Ref] = true
		}
	}
	dearest := map[uint64]*big.Int{}
	moved := map[uint64]bool{}
	tokens := map[common.Address]*big.Int{}
	for _, t := range pending {
		if t.Wallet != wallet || !open[t.Ref] {
			continue
		}
		var tx types.Transaction
		if err := tx.UnmarshalBinary(t.Raw); err != nil {
			return nil, nil, fmt.Errorf("stored transaction %s: %w", t.Hash.Hex(), err)
		}
		unmined := t.Nonce >= mined
		if c := tx.Cost(); unmined && (dearest[t.Nonce] == nil || c.Cmp(dearest[t.Nonce]) > 0) {
			dearest[t.Nonce] = c
		}
		// A nonce's versions move the same tokens (a re-price changes only the fees).
		sel, amount, ok := erc20Move(tx.Data())
		if !ok || tx.To() == nil || moved[t.Nonce] || (sel == rampway.SelTransfer && !unmined) {
			continue
		}
		moved[t.Nonce] = true
		if tokens[*tx.To()] == nil {
			tokens[*tx.To()] = new(big.Int)
		}
		tokens[*tx.To()].Add(tokens[*tx.To()], amount)
	}
	native := new(big.Int)
	for _, c := range dearest {
		native.Add(native, c)
	}
	return native, tokens, nil
}

// erc20Move decodes an ERC-20 transfer(to, amount) or approve(spender, amount).
func erc20Move(data []byte) ([4]byte, *big.Int, bool) {
	if len(data) != 4+32+32 {
		return [4]byte{}, nil, false
	}
	sel := [4]byte(data[:4])
	if sel != rampway.SelTransfer && sel != rampway.SelApprove {
		return [4]byte{}, nil, false
	}
	return sel, new(big.Int).SetBytes(data[36:]), true
}

// floorSub is a-b, or 0 when b is more.
func floorSub(a, b *big.Int) *big.Int {
	d := new(big.Int).Sub(a, b)
	if d.Sign() < 0 {
		d.SetInt64(0)
	}
	return d
}
