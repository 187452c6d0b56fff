package chain

import "strings"

// NonceUsed reports whether a node's refusal of a transaction means the node has it already or
// its nonce is used: by it, by one of its replacements, or by another transaction of the same
// wallet pending or mined (go-ethereum's "already known", "nonce too low", "replacement
// transaction underpriced"; other clients' "known transaction", "already imported"). Over
// JSON-RPC only the message is left of the node's error.
func NonceUsed(err error) bool {
	return says(err, "already known", "known transaction", "nonce too low", "already imported", "replacement transaction underpriced")
}

// Underpriced reports whether a node refused a transaction for its fees, which a re-pricing
// can mend: its pool wants a higher tip (go-ethereum's "transaction underpriced", "gas tip cap
// …, minimum needed …"), or its fee cap is under the base fee ("max fee per gas less than block
// base fee"; others' "fee cap less than block base fee", "fee too low"). A replacement's
// "replacement transaction underpriced" is NonceUsed's, not this.
func Underpriced(err error) bool {
	return !NonceUsed(err) && says(err, "underpriced", "minimum needed", "less than block base fee", "fee too low", "tip too low")
}

// says reports whether err's message holds one of phrases, in any case.
func says(err error, phrases ...string) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
