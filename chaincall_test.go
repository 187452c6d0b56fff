package rampway

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// A token-paid call is preceded by an approve of its value, and by an approve of 0 before
// that for a token that refuses to change a non-zero allowance.
func TestApprovals(t *testing.T) {
	spender := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	amount := big.NewInt(1_500_000)
	usdc := Asset{Symbol: "USDC", Contract: common.HexToAddress("0x01"), Decimals: 6}
	usdt := Asset{Symbol: "USDT", Contract: common.HexToAddress("0x02"), Decimals: 6, ApproveReset: true}
	for _, tt := range []struct {
		token Asset
		want  []*big.Int // the approved amounts, in order
	}{
		{usdc, []*big.Int{amount}},
		{usdt, []*big.Int{new(big.Int), amount}},
	} {
		calls := Approvals(tt.token, spender, amount)
		if len(calls) != len(tt.want) {
			t.Fatalf("%s: %d calls, want %d", tt.token.Symbol, len(calls), len(tt.want))
		}
		for i, c := range calls {
			if want := ERC20Call(SelApprove, spender, tt.want[i]); c.To != tt.token.Contract || !bytes.Equal(c.Data, want) || c.Value.Sign() != 0 || c.Gas != ApproveGas {
				t.Fatalf("%s call %d: to %s data %x value %s gas %d; want approve(%s, %s) to the token", tt.token.Symbol, i, c.To, c.Data, c.Value, c.Gas, spender, tt.want[i])
			}
		}
	}
}
