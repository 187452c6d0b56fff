package main

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/url"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/provider/sandbox"
)

// This file makes the fill's orders: each is created and moved through its life by the domain's
// own rules (rampway.Apply, rampway.ApplyRefund, rampway.ApplyFiatEvent), as the store would
// have done cause by cause, and what each step decided (the order, its events with their
// webhook bodies, refunds, fiat actions) becomes rows, with the records the workers and the
// sandbox provider would have written beside them (transfers, sweeps, executions, chain
// transactions, fiat payments, provider events, webhook deliveries and their attempts).

// fillMerchant is a merchant the fill gives orders to.
type fillMerchant struct {
	ID            string    `json:"merchant_id"`
	Name          string    `json:"name"`
	APIKey        string    `json:"api_key"`
	WebhookSecret string    `json:"webhook_secret"`
	WebhookURL    string    `json:"webhook_url"`
	Status        string    `json:"status"`
	DisabledAt    time.Time `json:"disabled_at,omitzero"`
	ServiceFeeBPS int64     `json:"service_fee_bps"`
	// Functions are its demo functions by ABI name (mint, mintWithToken, freeMint).
	Functions map[string]string `json:"functions"`
	// Payouts are its deposit addresses (area C) by asset symbol.
	Payouts map[string]common.Address `json:"deposit_addresses"`
	weight  float64
}

// fillSpec is what every chunk of orders is made from (read only once the fill starts).
type fillSpec struct {
	seed                     uint64
	now                      time.Time
	start, closedEnd         time.Time // the closed orders' creation times, oldest to newest
	closed, inFlight, open   int       // orders of each kind; inFlight is per in-flight state
	chunkSize                int
	merchants                []*fillMerchant // active ones, orders shared by weight
	cumWeights               []float64
	disabled                 *fillMerchant // nil: none
	eth, dusd                rampway.Asset
	deriver                  *hd.Deriver // nil: synthetic deposit addresses
	depositBase              uint32      // deposit index of order number 0
	box                      *secretbox.Box
	hashSecret               []byte
	publicURL                string
	orderExpiry, bankExpiry  time.Duration
	openFor                  time.Duration
	retired                  common.Address // the history's hot wallet
	hotKey                   *ecdsa.PrivateKey
	hot                      common.Address
	hotNonce                 uint64 // the first nonce of the in-flight transactions
	chainID                  *big.Int
	nft                      common.Address                // the demo NFT
	nftFunctions             map[string]*contract.Function // by demo name, for calldata
	failedDeliveryOlderThan  time.Duration
	failedDeliveryPerMillion int
}

// The chunks: closed orders, then one chunk of in-flight orders, then the open ones (a chunk
// never mixes kinds).
type chunkKind int

const (
	kindClosed chunkKind = iota
	kindInFlight
	kindOpen
)

type chunkSpec struct {
	index int
	kind  chunkKind
	first int64 // global number of its first order
	n     int
}

func (s *fillSpec) chunks() []chunkSpec {
	var out []chunkSpec
	num := int64(0)
	add := func(kind chunkKind, total, size int) {
		for left := total; left > 0; {
			n := min(left, size)
			out = append(out, chunkSpec{index: len(out), kind: kind, first: num, n: n})
			num += int64(n)
			left -= n
		}
	}
	add(kindClosed, s.closed, s.chunkSize)
	add(kindInFlight, s.inFlight*len(inFlightStates), 1<<30)
	add(kindOpen, s.open, s.chunkSize)
	return out
}

// inFlightStates are the orders a worker is about to move on, made --in-flight of each.
var inFlightStates = []struct {
	area   rampway.Area
	status rampway.OrderStatus
	tx     bool // holds a pending transaction of the hot wallet
}{
	{rampway.AreaMint, rampway.StatusDepositProcessing, false},
	{rampway.AreaMint, rampway.StatusDepositSuccess, false},
	{rampway.AreaNFTRamp, rampway.StatusOnrampSuccess, false},
	{rampway.AreaMint, rampway.StatusSmartContractProcessing, true},
	{rampway.AreaNFTRamp, rampway.StatusSmartContractProcessing, true},
	{rampway.AreaDeposit, rampway.StatusDepositProcessing, true},
	{rampway.AreaMint, rampway.StatusRefundPending, true},
}

// gen makes one chunk.
type gen struct {
	s       *fillSpec
	r       *rand.Rand
	c       *chunk
	seq     int64  // the chunk's events so far
	txNonce uint64 // in-flight chunk: the hot wallet's next nonce
}

// makeChunk makes the rows of the chunk cs.
func (s *fillSpec) makeChunk(cs chunkSpec) (c *chunk) {
	c = newChunk(cs.index)
	// The chunk's random numbers follow from the seed, the chunk and where the fill's deposit
	// indexes start: a second fill of the same database makes other hashes.
	g := &gen{s: s, r: rand.New(rand.NewPCG(s.seed, uint64(cs.index)<<32|uint64(s.depositBase))), c: c, txNonce: s.hotNonce}
	defer func() {
		if p := recover(); p != nil {
			c.err = fmt.Errorf("chunk %d: %v", cs.index, p)
		}
	}()
	for i := range cs.n {
		num := cs.first + int64(i)
		var err error
		switch cs.kind {
		case kindClosed:
			err = g.closedOrder(num, s.closedAt(num))
		case kindInFlight:
			err = g.inFlightOrder(num, i)
		case kindOpen:
			err = g.openOrder(num)
		}
		if err != nil {
			c.err = fmt.Errorf("order %d: %w", num, err)
			return c
		}
	}
	c.events, c.nextHot = g.seq, g.txNonce
	return c
}

// closedAt spreads the closed orders' creation evenly from start to closedEnd.
func (s *fillSpec) closedAt(num int64) time.Time {
	if s.closed <= 1 {
		return s.start
	}
	span := s.closedEnd.Sub(s.start)
	return s.start.Add(time.Duration(float64(span) * float64(num) / float64(s.closed-1))).Truncate(time.Microsecond)
}

// blockAt is the block of the history's chain at t: 12-second blocks since 200 days before the
// fill, far above a dev chain's head (so that no watcher's scan of recent blocks meets them).
func (s *fillSpec) blockAt(t time.Time) uint64 {
	return uint64(t.Sub(s.now.Add(-200*24*time.Hour))/(12*time.Second)) + 1
}

// pick returns a merchant by weight (the disabled one only for orders made before it was).
func (g *gen) pick(at time.Time) *fillMerchant {
	if d := g.s.disabled; d != nil && at.Before(d.DisabledAt) && g.r.IntN(100) < 2 {
		return d
	}
	x := g.r.Float64() * g.s.cumWeights[len(g.s.cumWeights)-1]
	i, _ := slices.BinarySearch(g.s.cumWeights, x)
	return g.s.merchants[min(i, len(g.s.merchants)-1)]
}

func (g *gen) hash() common.Hash {
	var h common.Hash
	for i := 0; i < 32; i += 8 {
		binary.BigEndian.PutUint64(h[i:], g.r.Uint64())
	}
	return h
}

func (g *gen) address() common.Address {
	var h [24]byte
	for i := 0; i < 24; i += 8 {
		binary.BigEndian.PutUint64(h[i:], g.r.Uint64())
	}
	return common.BytesToAddress(h[:20])
}

// dur is a random duration between lo and hi.
func (g *gen) dur(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return (lo + time.Duration(g.r.Int64N(int64(hi-lo)))).Truncate(time.Microsecond)
}

func (g *gen) chance(percent float64) bool { return g.r.Float64()*100 < percent }

// sim is one order's life, step by step.
type sim struct {
	g    *gen
	num  int64
	m    *fillMerchant
	o    *rampway.Order
	f    rampway.Facts
	at   time.Time
	fn   string // the demo function (areas A and B)
	err  error
	used bool // the user opened the hosted page

	events    []*rampway.RenderedEvent
	transfers []*fillTransfer
	exec      *fillExecution
	txs       []*fillTx
	payments  []*fillPayment
	pay       *fillPayment // the payment in progress
	actions   map[string]*actionEnd
	payer     common.Address
}

type fillTransfer struct {
	t       *rampway.InboundTransfer
	updated time.Time
	sweepID string
}

type fillExecution struct {
	e    rampway.Execution
	call *fillTx
}

type fillTx struct {
	tx      rampway.ChainTx
	updated time.Time
}

// fillPayment is a fiat payment and the sandbox's record of it.
type fillPayment struct {
	p                            *rampway.FiatPayment
	sbStatus                     rampway.FiatPaymentStatus
	received, captured, refunded *big.Int
	sbCreated, sbUpdated         time.Time
	events                       []sbEvent
	calls                        []sbCall
}

type sbEvent struct {
	id, typ string
	body    []byte
	at      time.Time
}

type sbCall struct {
	key, kind, result string
	at                time.Time
}

// actionEnd is how a fiat action ended, by action id.
type actionEnd struct {
	status      rampway.FiatActionStatus
	providerRef string
	attempts    int
	lastError   string
	at          time.Time
}

func (s *sim) after(d time.Duration) { s.at = s.at.Add(d).Truncate(time.Microsecond) }

// apply applies a cause as the store does: the order's facts as they are, rampway.Apply's
// outcome kept.
func (s *sim) apply(c rampway.Cause) {
	if s.err != nil {
		return
	}
	out, err := rampway.Apply(s.o, s.f, c, s.at)
	if err != nil {
		s.err = fmt.Errorf("%s in %s: %w", c.Kind(), s.o.Status, err)
		return
	}
	s.f.FiatActions = append(s.f.FiatActions, out.FiatActions...)
	if out.Order != nil {
		s.o = out.Order
		s.f.Refunds = append(s.f.Refunds, out.Refunds...)
		s.events = append(s.events, out.Events...)
	}
}

// pageEvent records the hosted page's user.widget.open, as RecordOrderEvent does.
func (s *sim) pageEvent() {
	if s.err != nil {
		return
	}
	e := &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, s.at), OrderID: s.o.ID, MerchantID: s.o.MerchantID,
		Name: rampway.EventWidgetOpen, From: s.o.Status, To: s.o.Status, CreatedAt: s.at}
	body, err := rampway.EventBody(e, s.o, depositTxs(s.f.Transfers), s.f.Refunds)
	if err != nil {
		s.err = err
		return
	}
	s.events = append(s.events, &rampway.RenderedEvent{OrderEvent: e, Body: body})
	s.used = true
}

func depositTxs(ts []*rampway.InboundTransfer) []string {
	var out []string
	for _, t := range ts {
		if t.Status != rampway.TransferDropped {
			out = append(out, t.TxHash.Hex())
		}
	}
	return out
}

// newSim creates order num of area at created, for merchant m, in status CREATED with its
// order.created event.
func (g *gen) newSim(num int64, area rampway.Area, created time.Time, m *fillMerchant) *sim {
	s := &sim{g: g, num: num, m: m, at: created, actions: map[string]*actionEnd{}, payer: g.payer()}
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, created), MerchantID: m.ID, Area: area, Status: rampway.StatusCreated,
		MerchantUserID: fmt.Sprintf("user-%d", g.r.IntN(200_000)), MerchantTxnID: fmt.Sprintf("txn-%d", num),
		MerchantRedirectURL: "https://" + shopHost(m) + "/orders/return", Network: devworld.Network, CryptoReceived: new(big.Int),
		CreatedAt: created, UpdatedAt: created}
	if g.chance(60) {
		o.User = map[string]string{"user_email_id": fmt.Sprintf("buyer%d@example.com", g.r.IntN(200_000))}
	}
	if area == rampway.AreaNFTRamp && g.chance(40) {
		if o.User == nil {
			o.User = map[string]string{}
		}
		o.User["user_country"] = []string{"DE", "FR", "NL", "GB", "US"}[g.r.IntN(5)]
	}
	s.o = o
	return s
}

func shopHost(m *fillMerchant) string { return "shop-" + m.ID[len(m.ID)-6:] + ".example" }

func (g *gen) payer() common.Address { return g.address() }

// created records the order.created event, as the store does when it writes a new order.
func (s *sim) created() {
	e := &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, s.o.CreatedAt), OrderID: s.o.ID, MerchantID: s.o.MerchantID,
		Name: rampway.EventCreated, From: "", To: s.o.Status, CreatedAt: s.o.CreatedAt}
	body, err := rampway.EventBody(e, s.o, nil, nil)
	if err != nil {
		s.err = err
		return
	}
	s.events = append(s.events, &rampway.RenderedEvent{OrderEvent: e, Body: body})
}

// Prices of the dev world (USD): ETH 3000, DUSD 1; EUR 1.08, GBP 1.27, USD 1.
var (
	usdPrice = map[string]*big.Rat{"ETH": big.NewRat(3000, 1), "DUSD": big.NewRat(1, 1)}
	fxUSD    = map[string]*big.Rat{"EUR": big.NewRat(108, 100), "GBP": big.NewRat(127, 100), "USD": big.NewRat(1, 1)}
)

const spreadBPS = 100

// gasPrice is a network's gas price at some moment: 0.1 to 2 gwei.
func (g *gen) gasPrice() *big.Int { return big.NewInt(int64(1+g.r.IntN(20)) * 100_000_000) }

// feeIn converts a fee of gas at price (wei) into asset a's base units.
func feeIn(a rampway.Asset, gas uint64, price *big.Int) *big.Int {
	wei := new(big.Int).Mul(new(big.Int).SetUint64(gas), price)
	if a.Symbol == "ETH" {
		return wei
	}
	// wei * 3000 USD/ETH / 1e18 * 10^decimals, rounded up.
	r := new(big.Rat).SetFrac(wei, pow10(18))
	r.Mul(r, usdPrice["ETH"])
	r.Quo(r, usdPrice[a.Symbol])
	r.Mul(r, new(big.Rat).SetInt(pow10(int(a.Decimals))))
	return ceilRat(r)
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func floorRat(r *big.Rat) *big.Int { return new(big.Int).Quo(r.Num(), r.Denom()) }

// bpsUp is v * bps / 10000, rounded up.
func bpsUp(v *big.Int, bps int64) *big.Int {
	return ceilRat(new(big.Rat).SetFrac(new(big.Int).Mul(v, big.NewInt(bps)), big.NewInt(10_000)))
}

// mintQuote sets the order's smart-contract call (areas A and B): one of the demo functions,
// 1 to 3 tokens, its network and service fees in the paying asset.
func (s *sim) mintQuote(fn string) {
	g, o := s.g, s.o
	qty := int64(1 + g.r.IntN(3))
	if g.chance(70) {
		qty = 1
	}
	s.fn = fn
	o.FunctionID = s.m.Functions[fn]
	o.FunctionArgs = json.RawMessage(fmt.Sprintf(`{"to":%q,"quantity":"%d"}`, s.payer.Hex(), qty))
	o.GasLimit = 300_000
	switch fn {
	case "mintWithToken":
		o.Asset = g.s.dusd
		o.PaymentValue = big.NewInt(qty * 10_000_000)
	case "freeMint":
		o.Asset = g.s.eth
		o.PaymentValue = new(big.Int)
	default:
		o.Asset = g.s.eth
		o.PaymentValue = new(big.Int).Mul(big.NewInt(qty), big.NewInt(10_000_000_000_000_000))
	}
	o.NetworkFee = feeIn(o.Asset, o.GasLimit, g.gasPrice())
	o.ServiceFee = bpsUp(o.PaymentValue, s.m.ServiceFeeBPS)
	o.CryptoAmount = new(big.Int).Add(o.PaymentValue, o.NetworkFee)
	o.CryptoAmount.Add(o.CryptoAmount, o.ServiceFee)
}

// pickFn picks a demo function: the ETH mint most often.
func (g *gen) pickFn() string {
	switch x := g.r.IntN(100); {
	case x < 60:
		return "mint"
	case x < 85:
		return "mintWithToken"
	}
	return "freeMint"
}

// fiatMethods are the sandbox's methods of each default currency, with their share.
var fiatMethods = map[string][]struct {
	id     string
	weight int
	bps    int64
	fixed  int64 // minor units
}{
	"EUR": {{rampway.MethodCard, 70, 290, 25}, {rampway.MethodApplePay, 8, 290, 25}, {rampway.MethodGooglePay, 6, 290, 25},
		{rampway.MethodSEPABankTransfer, 10, 0, 0}, {rampway.MethodOpenBanking, 6, 100, 0}},
	"GBP": {{rampway.MethodCard, 80, 290, 25}, {rampway.MethodGBPBankTransfer, 12, 0, 0}, {rampway.MethodOpenBanking, 8, 100, 0}},
	"USD": {{rampway.MethodCard, 75, 290, 25}, {rampway.MethodApplePay, 10, 290, 25}, {rampway.MethodGooglePay, 8, 290, 25},
		{rampway.MethodCashApp, 7, 150, 0}},
}

// methodNames are the default configuration's names of the methods.
var methodNames = map[string]string{rampway.MethodCard: "Card", rampway.MethodApplePay: "Apple Pay", rampway.MethodGooglePay: "Google Pay",
	rampway.MethodSEPABankTransfer: "SEPA bank transfer", rampway.MethodGBPBankTransfer: "Bank transfer (Faster Payments)",
	rampway.MethodOpenBanking: "Open banking", rampway.MethodCashApp: "Cash App"}

func (g *gen) currency() string {
	switch x := g.r.IntN(100); {
	case x < 60:
		return "EUR"
	case x < 80:
		return "GBP"
	}
	return "USD"
}

func (g *gen) method(cur string) string {
	ms := fiatMethods[cur]
	total := 0
	for _, m := range ms {
		total += m.weight
	}
	x := g.r.IntN(total)
	for _, m := range ms {
		if x < m.weight {
			return m.id
		}
		x -= m.weight
	}
	return ms[0].id
}

func methodFee(cur, method string, amount *big.Int) *big.Int {
	for _, m := range fiatMethods[cur] {
		if m.id == method {
			return new(big.Int).Add(bpsUp(amount, m.bps), big.NewInt(m.fixed))
		}
	}
	return new(big.Int)
}

// fiatPrice sets an area B order's fiat side: what its crypto costs in the currency, with the
// spread and the method's fee, in minor units.
func (s *sim) fiatPrice(cur, method string) {
	o := s.o
	usd := new(big.Rat).SetFrac(o.CryptoAmount, pow10(int(o.Asset.Decimals)))
	usd.Mul(usd, usdPrice[o.Asset.Symbol])
	v := new(big.Rat).Quo(usd, fxUSD[cur])
	v.Mul(v, big.NewRat(100*(10_000+spreadBPS), 10_000))
	amount := ceilRat(v)
	amount.Add(amount, methodFee(cur, method, amount))
	o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = cur, method, amount, 2
}

// depositQuote is what an area C order of fiat minor units delivers with method.
func (s *sim) depositQuote(fiat *big.Int, cur, method string) rampway.MethodQuote {
	o := s.o
	fee := methodFee(cur, method, fiat)
	net := new(big.Rat).SetFrac(new(big.Int).Sub(fiat, fee), big.NewInt(100))
	net.Mul(net, fxUSD[cur])
	net.Mul(net, big.NewRat(10_000, 10_000+spreadBPS))
	net.Quo(net, usdPrice[o.Asset.Symbol])
	net.Mul(net, new(big.Rat).SetInt(pow10(int(o.Asset.Decimals))))
	gross := floorRat(net)
	netFee := feeIn(o.Asset, o.GasLimit, s.g.gasPrice())
	crypto := new(big.Int).Sub(gross, netFee)
	if crypto.Sign() <= 0 {
		crypto = big.NewInt(1)
	}
	return rampway.MethodQuote{Method: method, CryptoAmount: crypto, NetworkFee: netFee, ServiceFee: new(big.Int), MethodFee: fee}
}

// orderOpts narrow what newOrder picks at random.
type orderOpts struct {
	noMethod bool   // an area C order made without a payment method
	fn       string // the demo function ("": at random)
	authOnly bool   // a card or wallet (a method whose payment is authorised), not pushed money
}

// newOrder makes a new order of area for merchant m at created: its quote, its deposit address
// (area A) or its fiat side (B, C), its expiry, and its order.created event.
func (g *gen) newOrder(num int64, area rampway.Area, created time.Time, m *fillMerchant, opt orderOpts) *sim {
	s := g.newSim(num, area, created, m)
	o := s.o
	expiry := g.s.orderExpiry
	fn := opt.fn
	if fn == "" {
		fn = g.pickFn()
	}
	method := func(cur string) string {
		if opt.authOnly {
			return rampway.MethodCard
		}
		return g.method(cur)
	}
	switch area {
	case rampway.AreaMint:
		s.mintQuote(fn)
		o.DepositIndex = g.s.depositBase + uint32(num)
		if g.s.deriver != nil {
			addr, err := g.s.deriver.Address(o.DepositIndex)
			if err != nil {
				s.err = err
				return s
			}
			o.DepositAddress = addr
		} else {
			o.DepositAddress = common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("rampway-bench fill %d", o.DepositIndex)))[12:])
		}
	case rampway.AreaNFTRamp:
		s.mintQuote(fn)
		cur := g.currency()
		s.fiatPrice(cur, method(cur))
		if rampway.SettlesLate(o.FiatMethod) {
			expiry = g.s.bankExpiry
		}
	case rampway.AreaDeposit:
		cur := g.currency()
		o.Asset = g.s.eth
		o.GasLimit = 21_000
		if g.chance(50) {
			o.Asset, o.GasLimit = g.s.dusd, 65_000
		}
		o.PayoutAddress = m.Payouts[o.Asset.Symbol]
		o.FunctionArgs = json.RawMessage("{}")
		o.PaymentValue = new(big.Int)
		fiat := big.NewInt(int64(20+g.r.IntN(480)) * 100)
		o.FiatSymbol, o.FiatAmount, o.FiatDecimals = cur, fiat, 2
		if opt.noMethod {
			for _, mm := range fiatMethods[cur][:2] {
				q := s.depositQuote(fiat, cur, mm.id)
				q.Name = methodNames[mm.id]
				o.MethodQuotes = append(o.MethodQuotes, q)
			}
		} else {
			o.FiatMethod = method(cur)
			q := s.depositQuote(fiat, cur, o.FiatMethod)
			o.CryptoAmount, o.NetworkFee, o.ServiceFee = q.CryptoAmount, q.NetworkFee, q.ServiceFee
			if rampway.SettlesLate(o.FiatMethod) {
				expiry = g.s.bankExpiry
			}
		}
		if o.CryptoAmount == nil {
			o.CryptoAmount, o.NetworkFee, o.ServiceFee = new(big.Int), new(big.Int), new(big.Int)
		}
	}
	o.ExpiresAt = created.Add(expiry)
	s.created()
	return s
}

// chooseMethod is the page's quote screen's choice for an area C order made without a method.
func (s *sim) chooseMethod() {
	q := s.o.MethodQuotes[s.g.r.IntN(len(s.o.MethodQuotes))]
	if rampway.SettlesLate(q.Method) && s.at.Add(s.g.s.bankExpiry+24*time.Hour).After(s.g.s.now) {
		q = s.o.MethodQuotes[0] // the card: an order of the last days is not left waiting for a transfer
	}
	exp := s.o.ExpiresAt
	if rampway.SettlesLate(q.Method) {
		exp = s.at.Add(s.g.s.bankExpiry)
	}
	s.apply(rampway.FiatMethodChosen{Method: q.Method, CryptoAmount: q.CryptoAmount, NetworkFee: q.NetworkFee, ServiceFee: q.ServiceFee, ExpiresAt: exp})
}

// --- crypto payments (area A) ---

// payCrypto has the user pay amount to the order's deposit address: seen, then (confirm)
// confirmed some blocks later.
func (s *sim) payCrypto(amount *big.Int, confirm bool) *rampway.InboundTransfer {
	if s.err != nil {
		return nil
	}
	g, o := s.g, s.o
	t := &rampway.InboundTransfer{Network: o.Network, TxHash: g.hash(), OrderID: o.ID, Token: o.Asset.Contract, From: s.payer,
		To: o.DepositAddress, Amount: amount, BlockNumber: g.s.blockAt(s.at), BlockHash: g.hash(), Status: rampway.TransferSeen, CreatedAt: s.at}
	if !o.Asset.IsNative() {
		t.LogIndex = int64(g.r.IntN(8))
	}
	s.f.Transfers = append(s.f.Transfers, t)
	ft := &fillTransfer{t: t, updated: s.at}
	s.transfers = append(s.transfers, ft)
	s.apply(rampway.PaymentSeen{Transfer: t})
	if confirm {
		s.after(g.dur(12*time.Second, 40*time.Second))
		t.Status = rampway.TransferConfirmed
		ft.updated = s.at
		s.apply(rampway.PaymentConfirmed{Transfer: t})
	}
	return t
}

// sweep moves the confirmed transfers of the order's deposit address to the treasury some
// minutes after the last: a sweep done, its transactions mined (a token's gas first).
func (s *sim) sweep() {
	if s.err != nil || s.o.DepositAddress == (common.Address{}) {
		return
	}
	var total *big.Int
	last := time.Time{}
	var ts []*fillTransfer
	for _, ft := range s.transfers {
		if ft.t.Status == rampway.TransferConfirmed {
			ts = append(ts, ft)
			total = addBig(total, ft.t.Amount)
			last = maxTime(last, ft.updated)
		}
	}
	if len(ts) == 0 {
		return
	}
	at := last.Add(s.g.dur(time.Minute, 10*time.Minute)).Truncate(time.Microsecond)
	if at.After(s.g.s.now) {
		at = s.g.s.now.Add(-time.Second).Truncate(time.Microsecond)
	}
	g, o := s.g, s.o
	w := rampway.Sweep{ID: rampway.NewID(rampway.PrefixSweep, at), Network: o.Network, Address: o.DepositAddress, Index: o.DepositIndex,
		Token: o.Asset.Contract, Status: rampway.SweepDone, CreatedAt: at, UpdatedAt: at.Add(g.dur(15*time.Second, 2*time.Minute))}
	price := g.gasPrice()
	if o.Asset.IsNative() {
		w.Amount = new(big.Int).Sub(total, new(big.Int).Mul(big.NewInt(21_000), price))
		if w.Amount.Sign() <= 0 {
			w.Amount, w.Status = new(big.Int), rampway.SweepSkipped
		}
	} else {
		w.Amount = total
		s.txs = append(s.txs, s.historyTx(rampway.TxGas, w.ID, g.s.retired, uint64(s.num)*4+3, o.DepositAddress, at, w.UpdatedAt))
	}
	if w.Status == rampway.SweepDone {
		s.txs = append(s.txs, s.historyTx(rampway.TxSweep, w.ID, o.DepositAddress, 0, common.Address{}, at, w.UpdatedAt))
	}
	for _, ft := range ts {
		ft.sweepID, ft.updated = w.ID, at
	}
	s.g.c.add(tSweeps, w.ID, w.Network, w.Address.Hex(), int64(w.Index), tokenText(w.Token), w.Amount.String(), string(w.Status), w.CreatedAt, w.UpdatedAt)
}

func addBig(a, b *big.Int) *big.Int {
	if a == nil {
		return new(big.Int).Set(b)
	}
	return a.Add(a, b)
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func tokenText(a common.Address) string {
	if a == (common.Address{}) {
		return ""
	}
	return a.Hex()
}

// historyTx is a transaction of the history, mined: signed with a placeholder signature (the
// chain it was mined on is not this one; its hash is its bytes'), from wallet at nonce.
func (s *sim) historyTx(kind rampway.TxKind, ref string, wallet common.Address, nonce uint64, to common.Address, sent, mined time.Time) *fillTx {
	g := s.g
	inner := &types.DynamicFeeTx{ChainID: g.s.chainID, Nonce: nonce, GasTipCap: big.NewInt(1_000_000_000), GasFeeCap: big.NewInt(3_000_000_000),
		Gas: 300_000, To: &to, Value: new(big.Int), V: big.NewInt(int64(g.r.IntN(2))),
		R: new(big.Int).SetBytes(g.hash().Bytes()), S: new(big.Int).SetBytes(g.hash().Bytes()[1:])}
	tx := types.NewTx(inner)
	raw, err := tx.MarshalBinary()
	if err != nil {
		s.err = err
	}
	return &fillTx{tx: rampway.ChainTx{Hash: tx.Hash(), Network: s.o.Network, Wallet: wallet, Nonce: nonce, Kind: kind, Ref: ref, Raw: raw,
		SentBlock: g.s.blockAt(sent), Status: rampway.TxMined, CreatedAt: sent}, updated: mined}
}

// hotTx is a transaction in flight, signed by the hot wallet at its next nonce (the in-flight
// orders' executions and refunds): the workers broadcast it and follow it to its receipt.
func (s *sim) hotTx(kind rampway.TxKind, ref string, to common.Address, value *big.Int, data []byte, gas uint64) *fillTx {
	g := s.g
	nonce := g.txNonce
	g.txNonce++
	tx, err := types.SignNewTx(g.s.hotKey, types.LatestSignerForChainID(g.s.chainID), &types.DynamicFeeTx{ChainID: g.s.chainID,
		Nonce: nonce, GasTipCap: big.NewInt(1_000_000_000), GasFeeCap: big.NewInt(20_000_000_000), Gas: gas, To: &to, Value: value, Data: data})
	if err != nil {
		s.err = err
		return nil
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		s.err = err
		return nil
	}
	return &fillTx{tx: rampway.ChainTx{Hash: tx.Hash(), Network: s.o.Network, Wallet: g.s.hot, Nonce: nonce, Kind: kind, Ref: ref, Raw: raw,
		Status: rampway.TxPending, CreatedAt: s.at}, updated: s.at}
}

// --- executions ---

// execute starts the order's call (or, area C, its transfer to the merchant) and, unless
// inFlight, has it mined (ok) or reverted some blocks later.
func (s *sim) execute(outcome string, inFlight bool) {
	if s.err != nil {
		return
	}
	g, o := s.g, s.o
	s.after(g.dur(2*time.Second, 20*time.Second))
	var call *fillTx
	nonce := uint64(s.num)*4 + 1
	wallet := g.s.retired
	if inFlight {
		to, value, data, gas := s.callOf()
		if call = s.hotTx(rampway.TxCall, o.ID, to, value, data, gas); call == nil {
			return
		}
		wallet, nonce = g.s.hot, call.tx.Nonce
	} else {
		to := g.s.nft
		if o.Area == rampway.AreaDeposit {
			to = o.PayoutAddress
			if !o.Asset.IsNative() {
				to = o.Asset.Contract
			}
		}
		if !o.Asset.IsNative() && o.PaymentValue.Sign() > 0 {
			s.txs = append(s.txs, s.historyTx(rampway.TxApprove, o.ID, wallet, nonce-1, o.Asset.Contract, s.at, s.at))
		}
		call = s.historyTx(rampway.TxCall, o.ID, wallet, nonce, to, s.at, s.at)
	}
	s.txs = append(s.txs, call)
	s.exec = &fillExecution{e: rampway.Execution{OrderID: o.ID, Network: o.Network, Wallet: wallet, Nonce: nonce, TxHash: call.tx.Hash,
		Status: rampway.ExecutionSent, CreatedAt: s.at, UpdatedAt: s.at}, call: call}
	s.apply(rampway.ExecutionStarted{TxHash: call.tx.Hash})
	if inFlight {
		return
	}
	s.after(g.dur(5*time.Second, 45*time.Second))
	s.exec.e.UpdatedAt, call.updated = s.at, s.at
	for _, t := range s.txs {
		if t.tx.Ref == o.ID {
			t.updated = s.at
		}
	}
	switch outcome {
	case "reverted":
		s.exec.e.Status = rampway.ExecutionFailed
		s.apply(rampway.ExecutionReverted{TxHash: call.tx.Hash, Reason: "execution reverted: " + []string{"sold out", "paused", "out of gas"}[g.r.IntN(3)]})
	default:
		s.exec.e.Status = rampway.ExecutionSucceeded
		s.apply(rampway.ExecutionMined{TxHash: call.tx.Hash})
	}
}

// callOf is the order's call as the executor makes it: the function with its arguments and
// value (areas A and B), or the transfer to the merchant's deposit address (area C).
func (s *sim) callOf() (to common.Address, value *big.Int, data []byte, gas uint64) {
	o := s.o
	if o.Area == rampway.AreaDeposit {
		if o.Asset.IsNative() {
			return o.PayoutAddress, new(big.Int).Set(o.CryptoAmount), nil, 21_000
		}
		return o.Asset.Contract, new(big.Int), rampway.ERC20Call(rampway.SelTransfer, o.PayoutAddress, o.CryptoAmount), 65_000
	}
	fn := s.g.s.nftFunctions[s.fn]
	if fn != nil {
		data, _ = fn.Encode(o.FunctionArgs)
	}
	value = new(big.Int)
	if o.Asset.IsNative() {
		value.Set(o.PaymentValue)
	}
	return s.g.s.nftAddress(), value, data, o.GasLimit
}

// --- refunds (area A) ---

// refund moves refund id by c (rampway.ApplyRefund) and applies what it brings to the order.
func (s *sim) refund(id string, c rampway.RefundCause) {
	if s.err != nil {
		return
	}
	i := slices.IndexFunc(s.f.Refunds, func(r *rampway.Refund) bool { return r.ID == id })
	if i < 0 {
		s.err = fmt.Errorf("no refund %s", id)
		return
	}
	n, oc, err := rampway.ApplyRefund(s.f.Refunds[i], c, s.at)
	if err != nil {
		s.err = err
		return
	}
	s.f.Refunds = slices.Clone(s.f.Refunds)
	s.f.Refunds[i] = n
	if oc != nil {
		s.apply(oc)
	}
}

// payRefunds pays the order's pending refunds, as the executor does: sent (a transaction of
// the hot wallet), then mined; dust is not sent. inFlight leaves them sent, their transaction
// pending.
func (s *sim) payRefunds(inFlight bool) {
	for _, r := range slices.Clone(s.f.Refunds) {
		if s.err != nil || r.Status != rampway.RefundPending {
			continue
		}
		s.after(s.g.dur(3*time.Second, 30*time.Second))
		fee := feeIn(s.o.Asset, 60_000, s.g.gasPrice())
		if s.o.Asset.IsNative() {
			fee = feeIn(s.o.Asset, 21_000, s.g.gasPrice())
		}
		sent := new(big.Int).Sub(r.Amount, fee)
		if sent.Sign() <= 0 || (s.o.Asset.IsNative() && sent.Cmp(big.NewInt(10_000_000_000_000)) <= 0) {
			s.refund(r.ID, rampway.RefundIsDust{Fee: fee, Why: "the refund does not cover its network fee"})
			continue
		}
		var tx *fillTx
		if inFlight {
			to, value, data := r.To, new(big.Int).Set(sent), []byte(nil)
			if !s.o.Asset.IsNative() {
				to, value, data = s.o.Asset.Contract, new(big.Int), rampway.ERC20Call(rampway.SelTransfer, r.To, sent)
			}
			if tx = s.hotTx(rampway.TxRefund, r.ID, to, value, data, 65_000); tx == nil {
				return
			}
		} else {
			tx = s.historyTx(rampway.TxRefund, r.ID, s.g.s.retired, uint64(s.num)*4+2, r.To, s.at, s.at)
		}
		s.txs = append(s.txs, tx)
		s.refund(r.ID, rampway.RefundSigned{TxHash: tx.tx.Hash, To: r.To, Fee: fee, Sent: sent})
		if inFlight {
			continue
		}
		s.after(s.g.dur(10*time.Second, 60*time.Second))
		tx.updated = s.at
		s.refund(r.ID, rampway.RefundMined{TxHash: tx.tx.Hash})
	}
}

// holdRefunds holds the order's pending refunds for an operator: an approval (above the
// automatic limit) or an address (the payer is a contract).
func (s *sim) holdRefunds(status rampway.RefundStatus) {
	why := "above the automatic limit of 1 ETH: an operator approves it"
	if status == rampway.RefundAwaitingAddress {
		why = "the payer is a contract: the refund waits for an address"
	}
	for _, r := range slices.Clone(s.f.Refunds) {
		if r.Status == rampway.RefundPending {
			s.after(s.g.dur(time.Second, 10*time.Second))
			s.refund(r.ID, rampway.RefundHeld{Status: status, Why: why})
		}
	}
}

// --- fiat payments (areas B and C), through the sandbox ---

// startPayment starts a fiat payment of the order with the sandbox, as the checkout page does
// when the user chooses to pay: stored pending, started at the provider.
func (s *sim) startPayment() {
	if s.err != nil {
		return
	}
	o := s.o
	s.after(s.g.dur(5*time.Second, 90*time.Second))
	p := &rampway.FiatPayment{ID: rampway.NewID(rampway.PrefixFiatPayment, s.at), OrderID: o.ID, Provider: "sandbox", Method: o.FiatMethod,
		Currency: o.FiatSymbol, Amount: new(big.Int).Set(o.FiatAmount), Received: new(big.Int), Decimals: o.FiatDecimals, Status: rampway.FiatPending,
		CreatedAt: s.at, UpdatedAt: s.at}
	p.ProviderRef = rampway.NewID("sbp", s.at)
	if rampway.IsBankTransfer(p.Method) {
		p.Reference = s.bankReference()
	}
	p.Next = s.g.s.sandboxNext(p)
	fp := &fillPayment{p: p, sbStatus: rampway.FiatPending, received: new(big.Int), captured: new(big.Int), refunded: new(big.Int), sbCreated: s.at, sbUpdated: s.at}
	s.payments = append(s.payments, fp)
	s.pay = fp
}

// bankReference is the text a bank transfer's payment asks the user to write, unique in the
// sandbox's books (a unique index): the sandbox's form, RW- and letters, from the order's
// deposit index (reserved for this fill, unique) and its payment's place; seven letters where
// the sandbox's own have five.
func (s *sim) bankReference() string {
	const letters = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	v := (uint64(s.g.s.depositBase)+uint64(s.num))*4 + uint64(len(s.payments)%4)
	b := make([]byte, 7)
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = letters[v%32]
		v /= 32
	}
	return "RW-" + string(b)
}

// sandboxNext is what a new sandbox payment asks of the user (the sandbox's own answer).
func (s *fillSpec) sandboxNext(p *rampway.FiatPayment) *rampway.NextAction {
	return sandbox.NextAction(s.publicURL+"/providers/sandbox", p.ProviderRef, p.Method, p.Reference)
}

// sandboxEvent is a notification as the sandbox sends it (its eventBody).
type sandboxEvent struct {
	ID      string           `json:"id"`
	Type    string           `json:"type"`
	Created int64            `json:"created"`
	Data    sandboxEventData `json:"data"`
}

type sandboxEventData struct {
	Payment   sandboxPaymentJSON `json:"payment"`
	Credit    string             `json:"credit,omitempty"`
	Amount    string             `json:"amount,omitempty"`
	ActionKey string             `json:"action_key,omitempty"`
	Reason    string             `json:"failure_reason,omitempty"`
	NextURL   string             `json:"next_url,omitempty"`
}

type sandboxPaymentJSON struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Method    string `json:"method"`
	Currency  string `json:"currency"`
	Amount    string `json:"amount"`
	Received  string `json:"received"`
	Captured  string `json:"captured"`
	Refunded  string `json:"refunded"`
	CardBrand string `json:"card_brand,omitempty"`
	CardLast4 string `json:"card_last4,omitempty"`
	OrderID   string `json:"order_id"`
}

// notify is the sandbox moving the payment in progress (change) and notifying rampway, which
// applies the notification (rampway.ApplyFiatEvent) and the cause it brings to the order.
func (s *sim) notify(typ string, change func(fp *fillPayment), d sandboxEventData) {
	if s.err != nil || s.pay == nil {
		return
	}
	fp := s.pay
	change(fp)
	fp.sbUpdated = s.at
	p := fp.p
	if d.Reason == "" && fp.sbStatus == rampway.FiatFailed {
		d.Reason = "card declined"
	}
	brand, last4 := "", ""
	if rampway.MethodFlow(p.Method) == rampway.FlowAuthorise && fp.sbStatus != rampway.FiatPending && fp.sbStatus != rampway.FiatFailed {
		brand, last4 = "visa", "4242"
	}
	id := rampway.NewID("sbe", s.at)
	d.Payment = sandboxPaymentJSON{ID: p.ProviderRef, Status: string(fp.sbStatus), Method: p.Method, Currency: p.Currency, Amount: p.Amount.String(),
		Received: fp.received.String(), Captured: fp.captured.String(), Refunded: fp.refunded.String(), CardBrand: brand, CardLast4: last4, OrderID: p.OrderID}
	body, err := json.Marshal(sandboxEvent{ID: id, Type: typ, Created: s.at.Unix(), Data: d})
	if err != nil {
		s.err = err
		return
	}
	fp.events = append(fp.events, sbEvent{id: id, typ: typ, body: body, at: s.at})
	ev := &rampway.ProviderEvent{ID: id, Type: typ, PaymentRef: p.ProviderRef, Status: fp.sbStatus, Credit: d.Credit, CardBrand: brand, CardLast4: last4,
		FailureReason: d.Reason, ActionKey: d.ActionKey, NextURL: d.NextURL, Received: new(big.Int).Set(fp.received)}
	if d.Amount != "" {
		ev.Amount, _ = new(big.Int).SetString(d.Amount, 10)
	}
	s.after(time.Duration(20+s.g.r.IntN(200)) * time.Millisecond) // the notification's way
	n, cause := rampway.ApplyFiatEvent(p, ev, s.at)
	fp.p = n
	if cause != nil {
		s.apply(cause)
	}
}

// payFiat has the user pay the order's payment: a card or wallet authorised (after a 3-D
// Secure challenge, threeDS), or pushed money credited.
func (s *sim) payFiat(threeDS bool) {
	if s.err != nil {
		return
	}
	if rampway.MethodFlow(s.o.FiatMethod) == rampway.FlowAuthorise {
		if threeDS {
			s.after(s.g.dur(10*time.Second, 60*time.Second))
			s.notify(rampway.ProviderPaymentProcessing, func(fp *fillPayment) { fp.sbStatus = rampway.FiatProcessing },
				sandboxEventData{NextURL: s.g.s.publicURL + "/providers/sandbox/pay/" + s.pay.p.ProviderRef + "/3ds"})
		}
		s.after(s.g.dur(5*time.Second, 60*time.Second))
		s.notify(rampway.ProviderPaymentAuthorized, func(fp *fillPayment) { fp.sbStatus = rampway.FiatAuthorized }, sandboxEventData{})
		return
	}
	wait := s.g.dur(30*time.Second, 5*time.Minute)
	if rampway.IsBankTransfer(s.o.FiatMethod) {
		wait = s.g.dur(20*time.Minute, 20*time.Hour)
	}
	s.after(wait)
	amount := new(big.Int).Set(s.pay.p.Amount)
	s.notify(rampway.ProviderPaymentCredited, func(fp *fillPayment) {
		fp.received.Add(fp.received, amount)
		fp.sbStatus = rampway.FiatSucceeded
	}, sandboxEventData{Credit: rampway.NewID("sbc", s.at), Amount: amount.String()})
}

// decline is a card declined: the user may try again.
func (s *sim) decline() {
	s.after(s.g.dur(10*time.Second, 60*time.Second))
	s.notify(rampway.ProviderPaymentFailed, func(fp *fillPayment) { fp.sbStatus = rampway.FiatFailed }, sandboxEventData{Reason: "card declined"})
}

// doActions has the fiat worker do the order's pending fiat actions (capture, void, refund)
// with the sandbox, and the sandbox notify what it did; stuck leaves them needing an operator.
func (s *sim) doActions(stuck bool) {
	for _, a := range s.f.FiatActions {
		if s.err != nil || s.actions[a.ID] != nil {
			continue
		}
		s.after(s.g.dur(500*time.Millisecond, 5*time.Second))
		fp := s.paymentOf(a.PaymentID)
		if fp == nil {
			s.err = fmt.Errorf("fiat action %s of an unknown payment %s", a.ID, a.PaymentID)
			return
		}
		if stuck {
			s.actions[a.ID] = &actionEnd{status: rampway.ActionNeedsOperator, attempts: 18, at: a.CreatedAt.Add(24 * time.Hour),
				lastError: fmt.Sprintf("sandbox: payment %s is %s: it cannot be voided", fp.p.ProviderRef, fp.sbStatus)}
			continue
		}
		end := &actionEnd{status: rampway.ActionDone, attempts: 1, at: s.at}
		s.actions[a.ID] = end
		prev := s.pay
		s.pay = fp
		switch a.Kind {
		case rampway.ActionCapture:
			fp.calls = append(fp.calls, sbCall{key: a.ID, kind: "capture", at: s.at})
			amount := new(big.Int).Set(a.Amount)
			s.notify(rampway.ProviderPaymentCaptured, func(fp *fillPayment) { fp.sbStatus, fp.captured = rampway.FiatSucceeded, amount },
				sandboxEventData{ActionKey: a.ID})
		case rampway.ActionVoid:
			fp.calls = append(fp.calls, sbCall{key: a.ID, kind: "void", at: s.at})
			s.notify(rampway.ProviderPaymentVoided, func(fp *fillPayment) { fp.sbStatus = rampway.FiatVoided }, sandboxEventData{ActionKey: a.ID})
		case rampway.ActionRefund:
			ref := rampway.NewID("sbr", s.at)
			end.providerRef = ref
			fp.calls = append(fp.calls, sbCall{key: a.ID, kind: "refund", result: ref, at: s.at})
			amount := new(big.Int).Set(a.Amount)
			s.notify(rampway.ProviderPaymentRefunded, func(fp *fillPayment) {
				fp.refunded.Add(fp.refunded, amount)
				if fp.refunded.Cmp(new(big.Int).Add(fp.received, fp.captured)) >= 0 {
					fp.sbStatus = rampway.FiatRefunded
				}
			}, sandboxEventData{ActionKey: a.ID, Amount: amount.String()})
		}
		s.pay = prev
	}
}

func (s *sim) paymentOf(id string) *fillPayment {
	for _, fp := range s.payments {
		if fp.p.ID == id {
			return fp
		}
	}
	return nil
}

// --- the orders ---

// closedOrder makes an order of the history created at created: one of the paths an order
// takes to where it stays.
func (g *gen) closedOrder(num int64, created time.Time) error {
	m := g.pick(created)
	var s *sim
	switch x := g.r.Float64() * 100; {
	case x < 50:
		s = g.closedMint(num, created, m)
	case x < 80:
		s = g.closedFiat(num, rampway.AreaNFTRamp, created, m)
	default:
		s = g.closedFiat(num, rampway.AreaDeposit, created, m)
	}
	return g.emit(s)
}

// closedMint is an area A order of the history.
func (g *gen) closedMint(num int64, created time.Time, m *fillMerchant) *sim {
	s := g.newOrder(num, rampway.AreaMint, created, m, orderOpts{})
	o := s.o
	page := func() {
		s.after(g.dur(2*time.Second, 40*time.Second))
		s.pageEvent()
		s.after(g.dur(10*time.Second, 5*time.Minute))
	}
	part := func(pct int64) *big.Int {
		return new(big.Int).Div(new(big.Int).Mul(o.CryptoAmount, big.NewInt(pct)), big.NewInt(100))
	}
	expire := func() {
		s.at = maxTime(s.at, o.ExpiresAt.Add(g.dur(0, 5*time.Second)))
		s.apply(rampway.Expired{})
	}
	switch x := g.r.Float64() * 100; {
	case x < 70: // paid and minted
		page()
		s.payCrypto(o.CryptoAmount, true)
		s.execute("mined", false)
	case x < 73: // paid too much: minted, the excess refunded (or dust)
		page()
		s.payCrypto(part(100+int64(5+g.r.IntN(60))), true)
		s.execute("mined", false)
		s.payRefunds(false)
	case x < 90: // never paid
		if g.chance(40) {
			page()
		}
		expire()
	case x < 93: // cancelled on the page
		page()
		s.apply(rampway.Cancelled{})
	case x < 96: // paid short, expired: failed, what came in refunded
		page()
		s.payCrypto(part(int64(30+g.r.IntN(60))), true)
		expire()
		s.payRefunds(false)
	case x < 97.5: // the call reverted: failed, refunded
		page()
		s.payCrypto(o.CryptoAmount, true)
		s.execute("reverted", false)
		s.payRefunds(false)
	case x < 98: // the call was refused before it was sent: failed, its refund waits for an operator
		page()
		s.payCrypto(o.CryptoAmount, true)
		s.after(g.dur(time.Second, 10*time.Second))
		s.apply(rampway.ExecutionRefused{Reason: "the function is disabled"})
		s.holdRefunds(rampway.RefundAwaitingApproval)
	case x < 98.5: // paid a dust amount, expired: failed, nothing worth sending back
		page()
		dust := big.NewInt(1_000_000_000)
		if !o.Asset.IsNative() {
			dust = big.NewInt(1)
		}
		s.payCrypto(dust, true)
		expire()
		s.payRefunds(false)
	case x < 99: // paid after it expired: the late payment waits for an address
		expire()
		s.after(g.dur(time.Minute, time.Hour))
		s.payCrypto(o.CryptoAmount, true)
		s.holdRefunds(rampway.RefundAwaitingAddress)
	default: // paid after it expired: refunded
		expire()
		s.after(g.dur(time.Minute, time.Hour))
		s.payCrypto(o.CryptoAmount, true)
		s.payRefunds(false)
	}
	s.sweep()
	return s
}

// closedFiat is an area B or C order of the history.
func (g *gen) closedFiat(num int64, area rampway.Area, created time.Time, m *fillMerchant) *sim {
	noMethod := area == rampway.AreaDeposit && g.chance(10)
	// An order of the last days is paid by card: one paid by bank transfer would still be
	// waiting for its money.
	recent := created.Add(g.s.bankExpiry + 24*time.Hour).After(g.s.now)
	s := g.newOrder(num, area, created, m, orderOpts{noMethod: noMethod, authOnly: recent})
	o := s.o
	page := func() {
		s.after(g.dur(2*time.Second, 40*time.Second))
		s.pageEvent()
		if noMethod && s.err == nil {
			s.after(g.dur(5*time.Second, time.Minute))
			s.chooseMethod()
		}
	}
	expire := func() {
		s.at = maxTime(s.at, s.o.ExpiresAt.Add(g.dur(0, 5*time.Second)))
		s.apply(rampway.Expired{})
	}
	threeDS := g.chance(20)
	switch x := g.r.Float64() * 100; {
	case x < 72: // paid and executed (a card's authorisation captured)
		page()
		s.startPayment()
		if g.chance(5) && rampway.MethodFlow(o.FiatMethod) == rampway.FlowAuthorise {
			s.decline()
			s.startPayment()
		}
		s.payFiat(threeDS)
		s.execute("mined", false)
		s.doActions(false)
	case x < 87: // never paid (or declined), expired
		if g.chance(50) {
			page()
			s.startPayment()
			if g.chance(40) && rampway.MethodFlow(s.o.FiatMethod) == rampway.FlowAuthorise {
				s.decline()
			}
		}
		expire()
	case x < 92: // cancelled on the page
		page()
		s.apply(rampway.Cancelled{})
	case x < 99: // executed and reverted (or the wallet could not pay): failed, given back
		page()
		s.startPayment()
		s.payFiat(threeDS)
		if g.chance(30) {
			s.after(time.Hour + g.dur(time.Minute, 10*time.Minute))
			s.apply(rampway.WalletShort{Patience: time.Hour})
		} else {
			s.execute("reverted", false)
		}
		s.doActions(false)
	default: // refused before it was sent; the provider keeps refusing to give it back
		page()
		s.startPayment()
		s.payFiat(threeDS)
		s.after(g.dur(time.Second, 10*time.Second))
		s.apply(rampway.ExecutionRefused{Reason: "the function is disabled"})
		s.doActions(true)
	}
	return s
}

// inFlightOrder is order i of the in-flight chunk: --in-flight orders of each of
// inFlightStates, made in the last minutes, expiring long after the fill.
func (g *gen) inFlightOrder(num int64, i int) error {
	st := inFlightStates[i/g.s.inFlight]
	created := g.s.now.Add(-g.dur(2*time.Minute, 10*time.Minute)).Truncate(time.Microsecond)
	m := g.pick(g.s.now)
	// Paid by card, and (a transaction in flight) the ETH mint: a token-paid call needs an
	// approve first.
	opt := orderOpts{authOnly: true}
	if st.tx {
		opt.fn = "mint"
	}
	s := g.newOrder(num, st.area, created, m, opt)
	s.o.ExpiresAt = g.s.now.Add(g.s.openFor + g.dur(0, time.Hour))
	s.after(g.dur(2*time.Second, 20*time.Second))
	s.pageEvent()
	switch {
	case st.area == rampway.AreaMint && st.status == rampway.StatusDepositProcessing:
		// Seen in block 1 of the chain, whose hash the watcher will not find: dropped, the
		// order back to CREATED.
		t := s.payCrypto(s.o.CryptoAmount, false)
		if t != nil {
			t.BlockNumber = 1
		}
	case st.area == rampway.AreaMint && st.status == rampway.StatusDepositSuccess:
		s.payCrypto(s.o.CryptoAmount, true)
	case st.area == rampway.AreaMint && st.status == rampway.StatusSmartContractProcessing:
		s.payCrypto(s.o.CryptoAmount, true)
		s.execute("", true)
	case st.area == rampway.AreaMint && st.status == rampway.StatusRefundPending:
		s.payCrypto(s.o.CryptoAmount, true)
		s.after(g.dur(time.Second, 10*time.Second))
		s.apply(rampway.ExecutionRefused{Reason: "the function is disabled"})
		s.payRefunds(true)
	case st.area == rampway.AreaNFTRamp && st.status == rampway.StatusOnrampSuccess:
		s.startPayment()
		s.payFiat(false)
	case st.area == rampway.AreaNFTRamp && st.status == rampway.StatusSmartContractProcessing,
		st.area == rampway.AreaDeposit && st.status == rampway.StatusDepositProcessing:
		s.startPayment()
		s.payFiat(false)
		s.execute("", true)
	}
	if s.err == nil && s.o.Status != st.status {
		return fmt.Errorf("in-flight order ended %s, not %s", s.o.Status, st.status)
	}
	// Its deposit swept already: the sweeper has nothing of the fill's to do (the chain holds
	// none of it).
	s.sweep()
	return g.emit(s)
}

// openOrder is an order awaiting its payment, made in the hour before the fill and expiring
// --open-for after it: CREATED most, some UNDERPAID (area A) or ONRAMP_PROCESSING (a 3-D
// Secure challenge under way, areas B and C).
func (g *gen) openOrder(num int64) error {
	created := g.s.now.Add(-g.dur(10*time.Minute, 70*time.Minute)).Truncate(time.Microsecond)
	m := g.pick(g.s.now)
	var s *sim
	switch x := g.r.Float64() * 100; {
	case x < 50:
		s = g.newOrder(num, rampway.AreaMint, created, m, orderOpts{})
		s.o.ExpiresAt = g.s.now.Add(g.s.openFor + g.dur(0, time.Hour))
		if g.chance(30) {
			s.after(g.dur(2*time.Second, 40*time.Second))
			s.pageEvent()
		}
		if g.chance(6) {
			s.after(g.dur(10*time.Second, 5*time.Minute))
			s.payCrypto(new(big.Int).Div(new(big.Int).Mul(s.o.CryptoAmount, big.NewInt(int64(30+g.r.IntN(60)))), big.NewInt(100)), true)
			s.sweep()
		}
	default:
		area := rampway.AreaNFTRamp
		if x >= 80 {
			area = rampway.AreaDeposit
		}
		noMethod := area == rampway.AreaDeposit && g.chance(10)
		s = g.newOrder(num, area, created, m, orderOpts{noMethod: noMethod})
		s.o.ExpiresAt = g.s.now.Add(g.s.openFor + g.dur(0, time.Hour))
		if g.chance(50) && !noMethod {
			s.after(g.dur(2*time.Second, 40*time.Second))
			s.pageEvent()
			s.startPayment()
			card := rampway.MethodFlow(s.o.FiatMethod) == rampway.FlowAuthorise
			switch y := g.r.IntN(100); {
			case y < 10 && card:
				s.decline()
			case y < 30 && card:
				s.after(g.dur(10*time.Second, 60*time.Second))
				s.notify(rampway.ProviderPaymentProcessing, func(fp *fillPayment) { fp.sbStatus = rampway.FiatProcessing },
					sandboxEventData{NextURL: g.s.publicURL + "/providers/sandbox/pay/" + s.pay.p.ProviderRef + "/3ds"})
			}
		}
	}
	if s.at.After(g.s.now) {
		s.at = g.s.now
	}
	return g.emit(s)
}

// --- rows ---

// emit writes the order's rows into the chunk.
func (g *gen) emit(s *sim) error {
	if s.err != nil {
		return s.err
	}
	c, o, sp := g.c, s.o, g.s
	if o.UpdatedAt.After(sp.now) {
		return fmt.Errorf("order %s changes after the fill's time (%s)", o.ID, o.UpdatedAt)
	}
	c.counts[string(o.Status)]++
	if err := g.orderRow(o); err != nil {
		return err
	}
	for _, e := range s.events {
		g.seq++
		e.Seq = g.seq
		c.add(tEvents, g.seq, e.ID, e.OrderID, e.MerchantID, string(e.Name), string(e.From), string(e.To), e.CreatedAt)
		g.delivery(s, e)
	}
	for _, ft := range s.transfers {
		t := ft.t
		c.add(tTransfers, t.Network, t.TxHash.Hex(), t.LogIndex, t.OrderID, tokenText(t.Token), t.From.Hex(), t.To.Hex(), t.Amount.String(),
			int64(t.BlockNumber), t.BlockHash.Hex(), string(t.Status), t.CreatedAt, ft.updated, ft.sweepID)
	}
	if e := s.exec; e != nil {
		c.add(tExecutions, e.e.OrderID, e.e.Network, e.e.Wallet.Hex(), int64(e.e.Nonce), e.e.TxHash.Hex(), string(e.e.Status), e.e.CreatedAt, e.e.UpdatedAt)
	}
	for _, t := range s.txs {
		c.add(tChainTxs, t.tx.Hash.Hex(), t.tx.Network, t.tx.Wallet.Hex(), int64(t.tx.Nonce), string(t.tx.Kind), t.tx.Ref, t.tx.Raw,
			int64(t.tx.SentBlock), string(t.tx.Status), t.tx.CreatedAt, t.updated)
	}
	for _, r := range s.f.Refunds {
		to, source := "", ""
		if r.To != (common.Address{}) {
			to, source = r.To.Hex(), r.ToSource
			if source == "" {
				source = rampway.RefundToPayer
			}
		}
		hash := ""
		if r.TxHash != (common.Hash{}) {
			hash = r.TxHash.Hex()
		}
		var approved any
		if !r.ApprovedAt.IsZero() {
			approved = r.ApprovedAt
		}
		c.add(tRefunds, r.ID, r.OrderID, r.Cause, r.Network, tokenText(r.Token), to, source, r.Amount.String(), optText(r.Fee), optText(r.Sent),
			r.Reason, string(r.Status), r.StatusReason, hash, r.ApprovedBy, approved, r.CreatedAt, maxTime(r.CreatedAt, r.UpdatedAt))
	}
	for _, fp := range s.payments {
		p := fp.p
		next := ""
		if p.Next != nil {
			b, err := json.Marshal(p.Next)
			if err != nil {
				return err
			}
			next = string(b)
		}
		c.add(tFiatPayments, p.ID, p.OrderID, p.Provider, p.ProviderRef, p.Method, p.Currency, p.Amount.String(), p.Received.String(),
			int64(p.Decimals), string(p.Status), p.Reference, p.CardBrand, p.CardLast4, next, p.FailureReason, p.CreatedAt, p.UpdatedAt)
		c.add(tSandboxPayments, p.ProviderRef, p.ID, p.OrderID, p.Method, p.Currency, int64(p.Decimals), p.Amount.String(), fp.received.String(),
			fp.captured.String(), fp.refunded.String(), string(fp.sbStatus), p.Reference, cardOf(fp, 0), cardOf(fp, 1), sbFailure(fp),
			sp.publicURL+"/checkout?order_id="+url.QueryEscape(o.ID)+"&hash="+sp.gatewayHash(o.ID), fp.sbCreated, fp.sbUpdated, "sandbox")
		for _, e := range fp.events {
			c.add(tProviderEvents, "sandbox", e.id, e.typ, p.ProviderRef, e.at)
			c.add(tSandboxEvents, e.id, string(e.body), int64(1), e.at, e.at.Add(15*time.Millisecond), e.at, "sandbox")
		}
		for _, call := range fp.calls {
			c.add(tSandboxCalls, call.key, p.ProviderRef, call.kind, call.result, call.at)
		}
	}
	for _, a := range s.f.FiatActions {
		status, ref, attempts, lastErr, updated, next := rampway.ActionPending, "", int64(0), "", a.UpdatedAt, a.NextAttemptAt
		if end := s.actions[a.ID]; end != nil {
			status, ref, attempts, lastErr, updated, next = end.status, end.providerRef, int64(end.attempts), end.lastError, end.at, end.at
		}
		c.add(tFiatActions, a.ID, a.OrderID, a.PaymentID, string(a.Kind), a.Amount.String(), a.Currency, a.Cause, a.Reason, string(status), ref,
			attempts, lastErr, next, a.CreatedAt, updated, "")
	}
	return nil
}

func optText(v *big.Int) string {
	if v == nil {
		return ""
	}
	return v.String()
}

func cardOf(fp *fillPayment, i int) string {
	if rampway.MethodFlow(fp.p.Method) != rampway.FlowAuthorise || fp.p.CardBrand == "" {
		return ""
	}
	return []string{fp.p.CardBrand, fp.p.CardLast4}[i]
}

func sbFailure(fp *fillPayment) string {
	if fp.sbStatus == rampway.FiatFailed {
		return "card declined"
	}
	return ""
}

// gatewayHash is checkout's Service.Hash of an order (the checkout page's URL).
func (s *fillSpec) gatewayHash(orderID string) string {
	m := hmac.New(sha256.New, s.hashSecret)
	m.Write([]byte("checkout:" + orderID))
	return hex.EncodeToString(m.Sum(nil))
}

// orderRow writes the order's columns as the store does (sqlstore's orderArgs).
func (g *gen) orderRow(o *rampway.Order) error {
	user := []byte("{}")
	if len(o.User) > 0 {
		b, err := json.Marshal(o.User)
		if err != nil {
			return err
		}
		user = []byte(g.s.box.Seal(string(b)))
	}
	args := o.FunctionArgs
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var depAddr, depIndex any
	if o.DepositAddress != (common.Address{}) {
		depAddr, depIndex = o.DepositAddress.Hex(), int64(o.DepositIndex)
	}
	payout := ""
	if o.PayoutAddress != (common.Address{}) {
		payout = o.PayoutAddress.Hex()
	}
	quotes := ""
	if len(o.MethodQuotes) > 0 {
		b, err := json.Marshal(o.MethodQuotes)
		if err != nil {
			return err
		}
		quotes = string(b)
	}
	g.c.add(tOrders, o.ID, o.MerchantID, string(o.Area), string(o.Status), o.MerchantUserID, o.MerchantTxnID, o.MerchantRedirectURL,
		o.MerchantWebhookURL, string(user), o.Network, o.Asset.Symbol, tokenText(o.Asset.Contract), int64(o.Asset.Decimals), bigText(o.CryptoAmount),
		bigText(o.CryptoReceived), o.FunctionID, string(args), bigText(o.PaymentValue), int64(o.GasLimit), bigText(o.NetworkFee),
		bigText(o.ServiceFee), depAddr, depIndex, o.ExecutionTxHash, o.FailureReason, o.ExpiresAt, o.CreatedAt, o.UpdatedAt,
		o.FiatSymbol, o.FiatMethod, bigText(o.FiatAmount), int64(o.FiatDecimals), o.FiatPaymentID, payout, quotes, o.Livemode)
	return nil
}

func bigText(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

// delivery writes an event's webhook delivery and its attempts: delivered at the first attempt
// mostly, at the second sometimes; failed after its retry period now and then (of events
// older than that); held when its merchant is disabled.
func (g *gen) delivery(s *sim, e *rampway.RenderedEvent) {
	url := s.o.MerchantWebhookURL
	if url == "" {
		url = s.m.WebhookURL
	}
	if url == "" || s.m.WebhookSecret == "" {
		return
	}
	c, at := g.c, e.CreatedAt
	if s.m.Status == string(rampway.MerchantDisabled) && !at.Before(s.m.DisabledAt) {
		c.add(tDeliveries, e.ID, e.Seq, string(e.Name), e.OrderID, e.MerchantID, url, e.Body, string(rampway.DeliveryPending), int64(0),
			at, int64(0), "", at, at, nil, at, s.o.Livemode)
		return
	}
	if at.Before(g.s.now.Add(-g.s.failedDeliveryOlderThan)) && g.r.IntN(1_000_000) < g.s.failedDeliveryPerMillion {
		next := at
		wait := 10 * time.Second
		for n := 1; n <= 15; n++ {
			c.add(tAttempts, e.ID, int64(n), next, int64(0), int64(10_000_000), "Post \""+url+"\": context deadline exceeded")
			next = next.Add(10 * time.Second).Add(wait)
			wait = min(2*wait, time.Hour)
		}
		end := at.Add(72 * time.Hour)
		c.add(tDeliveries, e.ID, e.Seq, string(e.Name), e.OrderID, e.MerchantID, url, e.Body, string(rampway.DeliveryFailed), int64(15),
			end, int64(0), "Post \""+url+"\": context deadline exceeded", at, end, nil, nil, s.o.Livemode)
		return
	}
	start := at.Add(time.Duration(1+g.r.IntN(50)) * time.Millisecond)
	attempts := int64(1)
	if g.r.IntN(100) < 2 {
		lat := time.Duration(80+g.r.IntN(400)) * time.Millisecond
		c.add(tAttempts, e.ID, int64(1), start, int64(503), lat.Microseconds(), "503 Service Unavailable")
		start = start.Add(lat + g.dur(8*time.Second, 12*time.Second))
		attempts = 2
	}
	lat := time.Duration(5+g.r.IntN(300)) * time.Millisecond
	c.add(tAttempts, e.ID, attempts, start, int64(200), lat.Microseconds(), "")
	done := start.Add(lat).Truncate(time.Microsecond)
	if done.After(g.s.now) {
		done = g.s.now
	}
	c.add(tDeliveries, e.ID, e.Seq, string(e.Name), e.OrderID, e.MerchantID, url, e.Body, string(rampway.DeliveryDelivered), attempts,
		done, int64(200), "", at, done, done, nil, s.o.Livemode)
}

// nftAddress is the demo NFT's address (the functions' contract).
func (s *fillSpec) nftAddress() common.Address { return s.nft }
