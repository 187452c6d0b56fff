package chain_test

import (
	"errors"
	"testing"

	"github.com/rampway/rampway/chain"
)

// The nodes' refusals, as JSON-RPC leaves them (the message only): which mean the nonce is
// used, which a re-pricing mends, which neither.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		msg                string
		nonceUsed, reprice bool
	}{
		{"already known", true, false},
		{"nonce too low: next nonce 5, tx nonce 4", true, false},
		{"replacement transaction underpriced", true, false},
		{"Known transaction", true, false},
		{"transaction underpriced", false, true},
		{"transaction underpriced: gas tip cap 1, minimum needed 2", false, true},
		{"transaction gas price below minimum: gas tip cap 1, minimum needed 2", false, true},
		{"max fee per gas less than block base fee: address 0x1, maxFeePerGas: 7, baseFee: 8", false, true},
		{"insufficient funds for gas * price + value", false, false},
		{"tx fee (1.20 ether) exceeds the configured cap (1.00 ether)", false, false},
		{"intrinsic gas too low", false, false},
	} {
		err := errors.New(c.msg)
		if got := chain.NonceUsed(err); got != c.nonceUsed {
			t.Errorf("NonceUsed(%q) = %v", c.msg, got)
		}
		if got := chain.Underpriced(err); got != c.reprice {
			t.Errorf("Underpriced(%q) = %v", c.msg, got)
		}
	}
	if chain.NonceUsed(nil) || chain.Underpriced(nil) {
		t.Error("a nil error is a refusal")
	}
}
