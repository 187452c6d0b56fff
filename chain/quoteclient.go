package chain

import (
	"context"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
)

// QuoteNode is what a quote asks of a node: fee data, eth_call and eth_simulateV1.
// *ethclient.Client is one, and so is a CallBatcher's client.
type QuoteNode interface {
	SimulateClient
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
}

// QuoteClient is a node as the quotes ask it (checkout.EVM): its fee data, and Simulate, which
// reads the node's answers so that the use cases never do.
type QuoteClient struct{ Node QuoteNode }

// HeaderByNumber is the node's.
func (q QuoteClient) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	return q.Node.HeaderByNumber(ctx, number)
}

// SuggestGasTipCap is the node's.
func (q QuoteClient) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return q.Node.SuggestGasTipCap(ctx)
}

// Simulate runs calls in order from `from` on the latest state, sending nothing, and returns the
// reason the first failing call fails ("" when none does). One call is an eth_call, which
// answers rampway.ErrInsufficientFunds when from cannot pay its value and gas (the node's
// message, naming the account and its balance, is the operator's business); several are one
// eth_simulateV1, and a node without it answers "" (the executor's pre-flight has the last
// word). Any other failure of the node is an error.
func (q QuoteClient) Simulate(ctx context.Context, from common.Address, calls []rampway.Call) (string, error) {
	if len(calls) != 1 {
		reason, _, err := Simulate(ctx, q.Node, from, calls)
		if errors.Is(err, ErrSimulateUnsupported) {
			return "", nil
		}
		return reason, err
	}
	c := calls[0]
	_, err := q.Node.CallContract(ctx, ethereum.CallMsg{From: from, To: &c.To, Gas: c.Gas, Value: c.Value, Data: c.Data}, nil)
	switch {
	case err == nil:
		return "", nil
	case strings.Contains(err.Error(), "insufficient funds"):
		return "", rampway.ErrInsufficientFunds
	}
	if reason, reverted := RevertOf(err); reverted {
		return reason, nil
	}
	return "", err
}
