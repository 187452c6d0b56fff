package chain

import (
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
)

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
// allowance (rampway.Asset.ApproveReset; a call that reverted leaves its allowance behind).
// The hot wallet's transactions run in nonce order, so the 0 never cuts short an earlier
// order's allowance: that order's call has run by then.
func Approvals(token rampway.Asset, spender common.Address, amount *big.Int) []Call {
	var out []Call
	if token.ApproveReset {
		out = append(out, Call{To: token.Contract, Value: new(big.Int), Data: ERC20Call(SelApprove, spender, new(big.Int)), Gas: ApproveGas})
	}
	return append(out, Call{To: token.Contract, Value: new(big.Int), Data: ERC20Call(SelApprove, spender, amount), Gas: ApproveGas})
}

// RevertOf tells a call that the EVM refused (a revert, with its reason, or out of gas) from a
// node that could not be asked.
func RevertOf(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	var de rpc.DataError
	msg := err.Error()
	if errors.As(err, &de) || strings.HasPrefix(msg, "execution reverted") || strings.Contains(msg, "out of gas") ||
		strings.Contains(msg, "gas required exceeds") {
		return msg, true
	}
	return "", false
}
