package chainwork

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// pendingOnly is a store that has only its pending transactions to give.
type pendingOnly struct {
	rampway.ExecutionStore
	pending []*rampway.ChainTx
}

func (s pendingOnly) PendingTxs(context.Context, string) ([]*rampway.ChainTx, error) {
	return slices.Clone(s.pending), nil
}

// The follower's memory of what it sent, and of what a node refused for its fees, holds the
// transactions still pending only: a long-running process does not keep every hash it ever
// broadcast.
func TestFollowerForgetsWhatIsNoLongerPending(t *testing.T) {
	h := func(b byte) common.Hash { return common.Hash{b} }
	still := &rampway.ChainTx{Hash: h(1), Kind: rampway.TxSweep} // another kind's: still pending all the same
	x := &txFollower{net: &rampway.Network{Name: "devnet"}, store: pendingOnly{pending: []*rampway.ChainTx{still}}, kinds: []rampway.TxKind{rampway.TxCall},
		sent: map[common.Hash]bool{h(1): true, h(2): true, h(3): true}, underpriced: map[common.Hash]bool{h(1): true, h(3): true}}
	x.forget([]*rampway.ChainTx{still})
	if got := slices.Collect(maps.Keys(x.sent)); len(got) != 1 || got[0] != h(1) || len(x.underpriced) != 1 || !x.underpriced[h(1)] {
		t.Fatalf("sent %v, underpriced %v: want only the pending %s", x.sent, x.underpriced, h(1))
	}
	// A step's follow forgets too: here nothing is pending any more.
	x.store = pendingOnly{}
	if err := x.follow(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	if len(x.sent) != 0 || len(x.underpriced) != 0 {
		t.Fatalf("sent %v, underpriced %v after a step with nothing pending", x.sent, x.underpriced)
	}
}
