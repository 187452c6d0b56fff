package chain

import (
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/rpc"
)

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
