package checkoutpage

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// PriceLine is one line of a checkout's price breakdown (templates/header.html, block
// "summary"): its label, its amount with the unit (rounded for people where it is not what the
// user sends), and what it is worth in the order's currency ("≈ 27.78 EUR") where the order
// knows its rate.
type PriceLine struct {
	Label, Amount string
	// Exact is the amount as the order states it, when Amount rounds it ("" otherwise).
	Exact string
	Fiat  string
	// Total marks the line of the whole amount.
	Total bool
}

// Summary is a checkout's order summary: the lines, the total last, and the rate a fiat order
// was priced at ("1 ETH = 2777.78 EUR", "" for none).
type Summary struct {
	Lines []PriceLine
	Rate  string
	// Note says what the total includes when the lines do not show it ("" for none).
	Note string
}

// cryptoLine is a line of an amount of the order's asset, rounded for people.
func cryptoLine(label string, v *big.Int, a rampway.Asset) PriceLine {
	l := PriceLine{Label: label, Amount: forPeople(v, a.Decimals) + " " + a.Symbol}
	if exact := rampway.FormatUnits(v, a.Decimals) + " " + a.Symbol; exact != l.Amount {
		l.Exact = exact
	}
	return l
}

// priceLines breaks an area A order's amount down in its paying asset: the value paid to the
// function (totalValue), the network fee, the service fee (these three rounded for people)
// and the total, exact: it is what the user sends. An order without its parts gets the total
// alone.
func priceLines(o *rampway.Order) Summary {
	var out []PriceLine
	if o.PaymentValue != nil && o.NetworkFee != nil && o.ServiceFee != nil {
		out = append(out, cryptoLine(Messages["price_value"], o.PaymentValue, o.Asset), cryptoLine(Messages["price_network_fee"], o.NetworkFee, o.Asset),
			cryptoLine(Messages["price_service_fee"], o.ServiceFee, o.Asset))
	}
	return Summary{Lines: append(out, PriceLine{Label: Messages["price_total"], Amount: rampway.FormatUnits(o.CryptoAmount, o.Asset.Decimals) + " " + o.Asset.Symbol,
		Total: true})}
}

// fiatPriceLines breaks a fiat order's price down. Area B: what the call costs in crypto
// (value, network fee, service fee), each with its worth in the currency, then the exchange
// spread and the payment method's fee, and what the user pays. Area C: what the merchant
// receives and the fees that came off it in crypto, then the spread and the method's fee, and
// what the user pays. The currency's figures add up to what the user pays (the rounding to the
// minor unit goes to the largest crypto line, which reads "≈"), and the rate used closes it.
// An order kept without its pricing shows the crypto lines and the amount, and says what it
// includes.
func fiatPriceLines(o *rampway.Order, merchant string) Summary {
	pay := PriceLine{Label: Messages["fiat_amount"], Amount: rampway.FormatFixed(o.FiatAmount, o.FiatDecimals) + " " + o.FiatSymbol, Total: true}
	if o.Area == rampway.AreaDeposit && o.FiatMethod == "" {
		return Summary{Lines: []PriceLine{pay}}
	}
	var lines []PriceLine
	var crypto []*big.Int
	if o.Area == rampway.AreaDeposit {
		lines = []PriceLine{cryptoLine(strings.ReplaceAll(Messages["price_delivered"], "{merchant}", merchant), o.CryptoAmount, o.Asset)}
		crypto = []*big.Int{o.CryptoAmount}
	} else {
		lines = []PriceLine{cryptoLine(Messages["price_value"], o.PaymentValue, o.Asset)}
		crypto = []*big.Int{o.PaymentValue}
	}
	lines = append(lines, cryptoLine(Messages["price_network_fee"], o.NetworkFee, o.Asset), cryptoLine(Messages["price_service_fee"], o.ServiceFee, o.Asset))
	crypto = append(crypto, o.NetworkFee, o.ServiceFee)
	p := o.FiatPricing
	spread, err1 := decimal.NewFromString(pricingField(p, func(p *rampway.FiatPricing) string { return p.Spread }))
	fee, err2 := decimal.NewFromString(pricingField(p, func(p *rampway.FiatPricing) string { return p.MethodFee }))
	if p == nil || err1 != nil || err2 != nil {
		if o.Area != rampway.AreaDeposit {
			lines = append(lines, PriceLine{Label: Messages["price_total"] + " (" + o.Asset.Symbol + ")",
				Amount: rampway.FormatUnits(o.CryptoAmount, o.Asset.Decimals) + " " + o.Asset.Symbol})
		}
		return Summary{Lines: append(lines, pay), Note: Messages["fiat_includes"]}
	}
	// The currency's parts: each crypto line at the rate, rounded to the minor unit, and the
	// spread and the method's fee as the quote made them, rounded; the largest crypto line
	// takes what the roundings (and the total's rounding up) leave, so that they add up.
	places := int32(o.FiatDecimals)
	shown, exact := make([]decimal.Decimal, len(crypto)), make([]decimal.Decimal, len(crypto))
	largest := 0
	for i, v := range crypto {
		exact[i], _ = fiatOf(v, o.Asset.Decimals, p)
		shown[i] = exact[i].Round(places)
		if exact[i].GreaterThan(exact[largest]) {
			largest = i
		}
	}
	spread, fee = spread.Round(places), fee.Round(places)
	rest := decimal.NewFromBigInt(o.FiatAmount, -places).Sub(spread).Sub(fee)
	for i := range crypto {
		if i != largest {
			rest = rest.Sub(shown[i])
		}
	}
	shown[largest] = rest
	for i := range crypto {
		lines[i].Fiat = about(shown[i], o.FiatDecimals, o.FiatSymbol)
	}
	if spread.Sign() > 0 || p.SpreadBPS > 0 {
		lines = append(lines, PriceLine{Label: strings.ReplaceAll(Messages["price_spread"], "{rate}", percent(p.SpreadBPS)),
			Amount: fiatText(spread, o.FiatDecimals, o.FiatSymbol)})
	}
	if fee.Sign() > 0 {
		lines = append(lines, PriceLine{Label: methodFeeLabel(o, p), Amount: fiatText(fee, o.FiatDecimals, o.FiatSymbol)})
	}
	return Summary{Lines: append(lines, pay), Rate: strings.ReplaceAll(Messages["price_rate"], "{rate}",
		rateText(p, o.Asset.Symbol, o.FiatDecimals, o.FiatSymbol))}
}

func pricingField(p *rampway.FiatPricing, f func(*rampway.FiatPricing) string) string {
	if p == nil {
		return ""
	}
	return f(p)
}

// methodFeeLabel names the payment method's fee with its rates: "Card fee (2.9% + 0.25 EUR)".
func methodFeeLabel(o *rampway.Order, p *rampway.FiatPricing) string {
	name := methodNames[o.FiatMethod]
	if name == "" {
		name = o.FiatMethod
	}
	var rates []string
	if p.MethodFeeBPS > 0 {
		rates = append(rates, percent(p.MethodFeeBPS))
	}
	if f, err := decimal.NewFromString(p.MethodFeeFixed); err == nil && f.Sign() > 0 {
		rates = append(rates, p.MethodFeeFixed+" "+o.FiatSymbol)
	}
	label := strings.ReplaceAll(Messages["price_method_fee"], "{method}", methodLabel(name))
	if len(rates) > 0 {
		label += " (" + strings.Join(rates, " + ") + ")"
	}
	return label
}

// recipientNames are the names an address argument has when it says who receives what the call
// makes (an NFT's "to"), in the order they are looked for.
var recipientNames = []string{"to", "recipient", "receiver", "beneficiary", "_to", "account", "owner"}

// recipient is the address an area A or B order's call sends what it makes to: the argument of
// the function named as recipientNames says, or its only address argument; "" when the
// function's arguments do not say.
func recipient(f *rampway.ContractFunction, args json.RawMessage) string {
	if f == nil {
		return ""
	}
	var abi struct {
		Inputs []struct{ Name, Type string } `json:"inputs"`
	}
	var values map[string]json.RawMessage
	if json.Unmarshal([]byte(f.ABI), &abi) != nil || json.Unmarshal(args, &values) != nil {
		return ""
	}
	var addresses []string
	for _, in := range abi.Inputs {
		if in.Type == "address" {
			addresses = append(addresses, in.Name)
		}
	}
	pick := ""
	for _, n := range recipientNames {
		for _, a := range addresses {
			if strings.EqualFold(a, n) && pick == "" {
				pick = a
			}
		}
	}
	if pick == "" && len(addresses) == 1 {
		pick = addresses[0]
	}
	var v string
	if pick == "" || json.Unmarshal(values[pick], &v) != nil || !common.IsHexAddress(v) {
		return ""
	}
	return common.HexToAddress(v).Hex()
}
