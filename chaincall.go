package rampway

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// This file is what rampway sends to chains, as the use cases and the workers name it; the
// chain package adapts it to nodes.

// Signer signs the transactions of one account: the hot wallet or a deposit address, with a
// key in memory, a keystore, or a remote signer or KMS (which is why it takes a context).
type Signer interface {
	Address() common.Address
	SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

// Call is one contract call: of a quote's simulation, an execution's pre-flight or its
// transactions.
type Call struct {
	To common.Address
	// Value is the native coin sent with the call, in wei; nil sends none.
	Value *big.Int
	Data  []byte
	// Gas is the call's gas limit; 0 lets the node choose (the rest of the simulated block's
	// gas limit, capped by the node's RPC gas cap). Set it to check that a transaction with
	// that gas limit would not run out of gas.
	Gas uint64
}

// ErrInsufficientFunds is a simulation's answer when the account it runs from cannot pay the
// call's value and gas.
var ErrInsufficientFunds = errors.New("the account cannot pay the call's value and gas")

// ApproveGas is what the approve before a token-paid call costs at most.
const ApproveGas = 60_000

// ERC-20 selectors.
var (
	SelApprove   = [4]byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
	SelTransfer  = [4]byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	SelBalanceOf = [4]byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
)

// ERC20Call is the calldata of an ERC-20 (address, uint256) function.
func ERC20Call(sel [4]byte, addr common.Address, amount *big.Int) []byte {
	out := make([]byte, 0, 68)
	out = append(out, sel[:]...)
	out = append(out, common.LeftPadBytes(addr.Bytes(), 32)...)
	return append(out, common.LeftPadBytes(amount.Bytes(), 32)...)
}

// Approvals are the calls that let spender take amount of token from the hot wallet: an
// approve, preceded by an approve of 0 for a token that refuses to change a non-zero
// allowance (Asset.ApproveReset; a call that reverted leaves its allowance behind). The hot
// wallet's transactions run in nonce order, so the 0 never cuts short an earlier order's
// allowance: that order's call has run by then.
func Approvals(token Asset, spender common.Address, amount *big.Int) []Call {
	var out []Call
	if token.ApproveReset {
		out = append(out, Call{To: token.Contract, Value: new(big.Int), Data: ERC20Call(SelApprove, spender, new(big.Int)), Gas: ApproveGas})
	}
	return append(out, Call{To: token.Contract, Value: new(big.Int), Data: ERC20Call(SelApprove, spender, amount), Gas: ApproveGas})
}

// PayoutCall is the transfer of amount of asset from the hot wallet to `to` with gas (area C's
// delivery to a merchant): the amount as the call's value for the native coin, an ERC-20
// transfer for a token.
func PayoutCall(asset Asset, to common.Address, amount *big.Int, gas uint64) Call {
	if asset.IsNative() {
		return Call{To: to, Value: new(big.Int).Set(amount), Gas: gas}
	}
	return Call{To: asset.Contract, Value: new(big.Int), Data: ERC20Call(SelTransfer, to, amount), Gas: gas}
}
