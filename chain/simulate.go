package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/rampway/rampway"
)

// ErrSimulateUnsupported is returned (wrapped: test with errors.Is) by Simulate when the node
// does not serve eth_simulateV1, so that callers can fall back to eth_call.
var ErrSimulateUnsupported = errors.New("the node does not support eth_simulateV1")

// SimulateClient is the part of a node client that Simulate needs. *ethclient.Client is one.
type SimulateClient interface {
	SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

var _ SimulateClient = (*ethclient.Client)(nil)

// codeMethodNotFound is the JSON-RPC error code of a method the node does not serve.
const codeMethodNotFound = -32601

// JSON-RPC error codes of eth_simulateV1 (ethereum/execution-apis) that say one of the calls
// is not a valid transaction: the node then answers the whole request with that error, without
// saying which call it was.
const (
	codeNonceTooLow           = -38010
	codeNonceTooHigh          = -38011
	codeBaseFeeTooLow         = -38012
	codeIntrinsicGas          = -38013
	codeInsufficientFunds     = -38014
	codeBlockGasLimitReached  = -38015
	codeSenderIsNotEOA        = -38024
	codeMaxInitCodeSizeExceed = -38025
)

// Simulate runs calls in order from `from`, in one simulated block on top of the latest block
// (eth_simulateV1), each call seeing the state the previous ones left. It returns "" and -1
// when every call would succeed; otherwise the reason of the first call that would fail and
// its index. Nothing is sent: no signature, no transaction, no state change.
//
// A revert reason reads like go-ethereum's eth_call errors: "execution reverted: <reason>"
// for Error(string), "execution reverted: <panic description>" for Panic(uint256),
// "execution reverted: custom error 0x<selector>" for any other revert data and "execution
// reverted" for none. Other failures give the node's message ("out of gas", "insufficient
// funds for gas * price + value: address 0x... have X want Y", "intrinsic gas too low: have X,
// want Y").
//
// The simulation runs without validation (eth_simulateV1 "validation": false): the block's
// base fee is 0 and no fee is charged, nonces are not checked, so neither the gas price nor
// the account's pending transactions make a call fail. The account's balance still counts for
// the value it sends: a call sending more than `from` has (after the calls before it) fails,
// with go-ethereum's "insufficient funds" message. Whether `from` can also pay the network
// fee is not checked: callers check that themselves. (With validation on, the node would
// require fee fields at least the next block's base fee and charge gas limit * fee cap against
// the balance, the gas limit defaulting to the node's whole RPC gas cap.)
//
// Each call's Gas must fit what is left of the simulated block's gas limit, or the call fails
// with "block gas limit reached".
//
// err is only for transport and node problems; it wraps ErrSimulateUnsupported when the node
// does not serve eth_simulateV1.
func Simulate(ctx context.Context, c SimulateClient, from common.Address, calls []rampway.Call) (reason string, failed int, err error) {
	if len(calls) == 0 {
		return "", -1, nil
	}
	latest := rpc.BlockNumberOrHashWithNumber(rpc.LatestBlockNumber)
	results, invalid, err := simulate(ctx, c, &latest, from, calls)
	if err != nil {
		return "", -1, err
	}
	if invalid == nil {
		reason, failed = firstFailure(results)
		return reason, failed, nil
	}
	return findInvalid(ctx, c, from, calls)
}

// simulate runs calls in one simulated block on top of block. A node answer saying that a call
// is not a valid transaction comes back as invalid, not as err.
func simulate(ctx context.Context, c SimulateClient, block *rpc.BlockNumberOrHash, from common.Address, calls []rampway.Call) (results []ethclient.SimulateCallResult, invalid rpc.Error, err error) {
	msgs := make([]ethereum.CallMsg, len(calls))
	for i, call := range calls {
		msgs[i] = ethereum.CallMsg{From: from, To: &call.To, Value: call.Value, Data: call.Data, Gas: call.Gas}
	}
	blocks, err := c.SimulateV1(ctx, ethclient.SimulateOptions{
		BlockStateCalls: []ethclient.SimulateBlock{{Calls: msgs}},
		Validation:      false,
	}, block)
	if err != nil {
		var rerr rpc.Error
		switch {
		case unsupported(err):
			return nil, nil, fmt.Errorf("simulate calls: %w: %w", ErrSimulateUnsupported, err)
		case errors.As(err, &rerr) && invalidCallCode(rerr.ErrorCode()):
			return nil, rerr, nil
		}
		return nil, nil, fmt.Errorf("simulate calls: %w", err)
	}
	if len(blocks) != 1 || len(blocks[0].Calls) != len(calls) {
		n := 0
		for _, b := range blocks {
			n += len(b.Calls)
		}
		return nil, nil, fmt.Errorf("simulate calls: the node answered %d blocks and %d call results for 1 block and %d calls", len(blocks), n, len(calls))
	}
	return blocks[0].Calls, nil, nil
}

// findInvalid finds which call made the node refuse the whole sequence as invalid, by
// simulating ever shorter prefixes of it (a prefix is refused if and only if it holds the
// call), all on the same block. A call that reverts before that call is reported instead.
func findInvalid(ctx context.Context, c SimulateClient, from common.Address, calls []rampway.Call) (string, int, error) {
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return "", -1, fmt.Errorf("simulate calls: read the latest block: %w", err)
	}
	block := rpc.BlockNumberOrHashWithHash(head.Hash(), false)
	type outcome struct {
		results []ethclient.SimulateCallResult
		invalid rpc.Error
	}
	seen := map[int]outcome{}
	run := func(n int) (outcome, error) {
		if o, ok := seen[n]; ok {
			return o, nil
		}
		if n == 0 {
			return outcome{}, nil
		}
		results, invalid, err := simulate(ctx, c, &block, from, calls[:n])
		if err != nil {
			return outcome{}, err
		}
		seen[n] = outcome{results, invalid}
		return seen[n], nil
	}
	// The head may have moved since the first attempt: start again from the whole sequence.
	all, err := run(len(calls))
	if err != nil {
		return "", -1, err
	}
	if all.invalid == nil {
		reason, failed := firstFailure(all.results)
		return reason, failed, nil
	}
	// Smallest n such that calls[:n] is refused: lo is accepted (or empty), hi is refused.
	lo, hi := 0, len(calls)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		o, err := run(mid)
		if err != nil {
			return "", -1, err
		}
		if o.invalid != nil {
			hi = mid
		} else {
			lo = mid
		}
	}
	before, err := run(lo)
	if err != nil {
		return "", -1, err
	}
	if reason, failed := firstFailure(before.results); failed >= 0 {
		return reason, failed, nil
	}
	refused, _ := run(hi)
	return invalidReason(refused.invalid.Error()), hi - 1, nil
}

// invalidReason trims go-ethereum's wrapping of a transaction validation error, "err: <reason>
// (supplied gas N)", down to the reason.
func invalidReason(msg string) string {
	msg = strings.TrimPrefix(msg, "err: ")
	if i := strings.LastIndex(msg, " (supplied gas "); i >= 0 && strings.HasSuffix(msg, ")") {
		msg = msg[:i]
	}
	return msg
}

// firstFailure returns the reason and index of the first failed call, or "" and -1.
func firstFailure(results []ethclient.SimulateCallResult) (string, int) {
	for i, r := range results {
		if r.Status == types.ReceiptStatusSuccessful && r.Error == nil {
			continue
		}
		return failureReason(r), i
	}
	return "", -1
}

// failureReason says why a simulated call failed.
func failureReason(r ethclient.SimulateCallResult) string {
	e := r.Error
	if e == nil {
		// No error object: the return data is the revert data.
		return revertReason(r.ReturnValue)
	}
	// A revert: code 3 with the revert data in data (go-ethereum; some nodes put it in
	// returnData instead).
	if e.Code == 3 || strings.HasPrefix(e.Message, "execution reverted") {
		if data, err := hexutil.Decode(e.Data); err == nil && len(data) > 0 {
			return revertReason(data)
		}
		if len(r.ReturnValue) > 0 {
			return revertReason(r.ReturnValue)
		}
		if e.Message != "" {
			return e.Message
		}
		return revertReason(nil)
	}
	if e.Message != "" {
		return e.Message // out of gas, invalid opcode, ...
	}
	return fmt.Sprintf("call failed (error code %d)", e.Code)
}

// revertReason formats revert data like go-ethereum's eth_call errors, with the selector of a
// custom error (which needs the contract's ABI to be decoded further).
func revertReason(data []byte) string {
	const prefix = "execution reverted"
	if len(data) == 0 {
		return prefix
	}
	if reason, err := abi.UnpackRevert(data); err == nil {
		return prefix + ": " + reason
	}
	if len(data) >= 4 {
		return prefix + ": custom error " + hexutil.Encode(data[:4])
	}
	return prefix + ": " + hexutil.Encode(data)
}

// invalidCallCode reports whether code is a JSON-RPC error code by which eth_simulateV1 says
// that one of the calls is not a valid transaction.
func invalidCallCode(code int) bool {
	switch code {
	case codeNonceTooLow, codeNonceTooHigh, codeBaseFeeTooLow, codeIntrinsicGas, codeInsufficientFunds,
		codeBlockGasLimitReached, codeSenderIsNotEOA, codeMaxInitCodeSizeExceed:
		return true
	}
	return false
}

// unsupported reports whether err says that the node does not serve eth_simulateV1: JSON-RPC
// "method not found" (go-ethereum: "the method eth_simulateV1 does not exist/is not
// available"), or a provider's own wording of it.
func unsupported(err error) bool {
	var rerr rpc.Error
	if errors.As(err, &rerr) && rerr.ErrorCode() == codeMethodNotFound {
		return true
	}
	msg := strings.ToLower(err.Error())
	if strings.Contains(msg, "method not found") || strings.Contains(msg, "unsupported method") || strings.Contains(msg, "method not supported") {
		return true
	}
	if !strings.Contains(msg, "eth_simulatev1") {
		return false
	}
	for _, s := range []string{"does not exist", "not supported", "unsupported", "not available", "not found", "not allowed", "disabled"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
