package rampway

import (
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

var hexAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// ParseAddress parses a 0x-prefixed hex address given in field. All-lower and all-upper hex
// are accepted; mixed case must be a valid EIP-55 checksum. Errors are EINVALID naming field.
func ParseAddress(field, s string) (common.Address, error) {
	if !hexAddress.MatchString(s) {
		return common.Address{}, FieldErrorf(field, "%s must be a 0x-prefixed 20-byte hex address", field)
	}
	a := common.HexToAddress(s)
	body := s[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && a.Hex() != s {
		return common.Address{}, FieldErrorf(field, "%s has a wrong EIP-55 checksum", field)
	}
	return a, nil
}
