package checkout

import (
	"context"
	"math/big"
	"sync"
	"time"
)

// feeTTL is how long a network's fee data serves quotes: about a block on a fast chain, so a
// burst of quotes costs two RPC calls per network per second instead of two each.
const feeTTL = time.Second

// feeData is a network's fee estimate: the base fee of the head and the node's suggested tip.
type feeData struct {
	baseFee, tip *big.Int
	at           time.Time
}

// feeCache keeps each network's fee data for feeTTL. Concurrent quotes of a network wait for
// one refresh rather than each asking the node.
type feeCache struct {
	mu   sync.Mutex
	nets map[string]*netFees
}

type netFees struct {
	mu   sync.Mutex
	data feeData
}

// get returns the network's fee data, asking evm when what it holds is older than feeTTL.
func (c *feeCache) get(ctx context.Context, network string, evm EVM, now time.Time) (feeData, error) {
	c.mu.Lock()
	if c.nets == nil {
		c.nets = map[string]*netFees{}
	}
	n, ok := c.nets[network]
	if !ok {
		n = &netFees{}
		c.nets[network] = n
	}
	c.mu.Unlock()

	n.mu.Lock()
	defer n.mu.Unlock()
	if n.data.tip != nil && now.Sub(n.data.at) < feeTTL && now.Sub(n.data.at) >= 0 {
		return n.data, nil
	}
	head, err := evm.HeaderByNumber(ctx, nil)
	if err != nil {
		return feeData{}, err
	}
	tip, err := evm.SuggestGasTipCap(ctx)
	if err != nil {
		return feeData{}, err
	}
	base := new(big.Int)
	if head.BaseFee != nil {
		base.Set(head.BaseFee)
	}
	n.data = feeData{baseFee: base, tip: tip, at: now}
	return n.data, nil
}
