package checkoutpage

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func TestPaymentURI(t *testing.T) {
	dep := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	token := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	native := &rampway.Order{DepositAddress: dep, CryptoAmount: big.NewInt(10262800000000000), Asset: rampway.Asset{Symbol: "ETH", Decimals: 18}}
	tok := &rampway.Order{DepositAddress: dep, CryptoAmount: big.NewInt(10_050_000), Asset: rampway.Asset{Symbol: "DUSD", Decimals: 6, Contract: token}}
	for _, tc := range []struct {
		o     *rampway.Order
		chain string
		want  string
	}{
		{native, "1337", "ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8@1337?value=10262800000000000"},
		{tok, "1337", "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@1337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=10050000"},
		{native, "", "ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8?value=10262800000000000"},
	} {
		if got := paymentURI(tc.o, tc.chain); got != tc.want {
			t.Errorf("paymentURI = %s, want %s", got, tc.want)
		}
	}
}

func TestReturnURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://shop.example/done":          "https://shop.example/done?order_id=ord_1&status=SUCCESS",
		"https://shop.example/done?cart=7":   "https://shop.example/done?cart=7&order_id=ord_1&status=SUCCESS",
		"https://shop.example/done?status=x": "https://shop.example/done?order_id=ord_1&status=SUCCESS", // ours wins
		"https://shop.example/done#fragment": "https://shop.example/done?order_id=ord_1&status=SUCCESS#fragment",
	} {
		if got := returnURL(raw, "ord_1", rampway.StatusSuccess); got != want {
			t.Errorf("returnURL(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestFunctionLabel(t *testing.T) {
	for sig, want := range map[string]string{"mint(address,uint256)": "mint", "mintWithToken(address,uint256)": "mint with token", "freeMint()": "free mint"} {
		if got := functionLabel(sig); got != want {
			t.Errorf("functionLabel(%s) = %q, want %q", sig, got, want)
		}
	}
}

func TestEveryStatusHasAText(t *testing.T) {
	for _, s := range rampway.OrderStatuses {
		if s == rampway.StatusOnrampProcessing || s == rampway.StatusOnrampSuccess {
			continue // fiat areas: their page comes with the fiat provider
		}
		if Messages["st_"+string(s)] == "" {
			t.Errorf("no text for %s", s)
		}
	}
}
