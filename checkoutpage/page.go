// Package checkoutpage is the hosted checkout page at gateway_url: what is bought, as a shop
// shows it (the merchant's logo and name, the item's display name and image, the price broken
// down), how much to pay and where (address, copy buttons, an EIP-681 QR code, a
// browser-wallet button), a countdown, and the order's live status over server-sent events
// (polling as a fallback), then the way back to the merchant. Server-rendered html/template
// with small embedded JS and CSS, no third-party scripts or styles, a strict
// Content-Security-Policy: the only images from elsewhere are the merchant's logo and the
// item's image, allowed by their exact origins on the page that shows them.
package checkoutpage

import (
	"bytes"
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/rampway/rampway"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Store is what the page reads and changes.
type Store interface {
	Order(ctx context.Context, id string) (*rampway.Order, error)
	Merchant(ctx context.Context, id string) (*rampway.Merchant, error)
	ContractFunction(ctx context.Context, id string) (*rampway.ContractFunction, error)
	OrderTransfers(ctx context.Context, orderID string) ([]*rampway.InboundTransfer, error)
	RecordOrderEvent(ctx context.Context, orderID string, name rampway.EventName, once bool, at time.Time) (bool, error)
	RecordVisitEvent(ctx context.Context, orderID string, name rampway.EventName, visit string, at time.Time) (bool, error)
}

// Checkout is the use cases the page calls (checkout.Service): the gateway hash check and the
// user's cancel.
type Checkout interface {
	CheckHash(orderID, hash string) bool
	// Cancel cancels an order for its user; ECONFLICT when its state no longer takes a cancel
	// (a payment came first).
	Cancel(ctx context.Context, orderID string) (*rampway.Order, error)
}

// Chains gives networks and their heads (for confirmations).
type Chains interface {
	Network(name string) (*rampway.Network, bool)
	Head(ctx context.Context, network string) (uint64, error)
}

// Config tunes the page.
type Config struct {
	// ReturnAfter is how long the page waits on a final status before returning to the
	// merchant by itself; default 5 s.
	ReturnAfter time.Duration
	// Poll is how often a live stream looks at the order; default 1 s.
	Poll time.Duration
	// StreamFor bounds one server-sent-events connection (the browser reconnects); default 5 min.
	StreamFor time.Duration
	// PublicRPCURLs gives, by network name, a JSON-RPC URL the page may hand to a browser
	// wallet that does not know the network (wallet_addEthereumChain): a public endpoint, never
	// one holding a provider's key. A network without one here is offered its own RPC URL only
	// when that is on this machine (a loopback http URL without credentials: the dev chain,
	// which only a wallet on this machine can reach anyway); otherwise the page offers none
	// and tells the user to add the network themselves.
	PublicRPCURLs map[string]string
}

// Handler serves the page, its assets, its status stream and its cancel action.
type Handler struct {
	cfg    Config
	store  Store
	hash   Checkout
	chains Chains
	log    *slog.Logger
	now    func() time.Time
	page   *template.Template
	errPg  *template.Template
	assets http.Handler
	mux    *http.ServeMux
	// fiat and fiatPg serve fiat-paid orders (Deps.Fiat); nil: none.
	fiat   FiatCheckout
	fiatPg *template.Template
	qrs    qrCache
	// widgets are the payment provider modules' widgets, by next-action kind.
	widgets map[string]*pageWidget
	// refunds shows area A's refunds and takes their addresses (Deps.Refunds); nil: none.
	refunds Refunds
}

// Deps are what the page reads and calls.
type Deps struct {
	Store    Store
	Checkout Checkout
	// Fiat serves the orders paid in fiat (areas B and C: checkout.Service); nil: the page
	// serves none of them (their page is the crypto one's).
	Fiat FiatCheckout
	// Refunds has the page show an area A order's refunds and ask for the address of those
	// that wait for one (checkout.Refunds); nil: the page shows none.
	Refunds Refunds
	Chains  Chains
	Log     *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// New returns the page handler.
func New(cfg Config, deps Deps) *Handler {
	if cfg.ReturnAfter <= 0 {
		cfg.ReturnAfter = 5 * time.Second
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.StreamFor <= 0 {
		cfg.StreamFor = 5 * time.Minute
	}
	now := deps.Now
	if now == nil {
		now = time.Now
	}
	funcs := template.FuncMap{"t": func(key string) string { return Messages[key] },
		"tr": func(key, placeholder, value string) string {
			return strings.ReplaceAll(Messages[key], placeholder, value)
		}}
	h := &Handler{cfg: cfg, store: deps.Store, hash: deps.Checkout, chains: deps.Chains, log: deps.Log, now: now, refunds: deps.Refunds,
		page:  template.Must(template.New("page.html").Funcs(funcs).ParseFS(templateFS, "templates/page.html", "templates/header.html")),
		errPg: template.Must(template.New("error.html").Funcs(funcs).ParseFS(templateFS, "templates/error.html")),
		mux:   http.NewServeMux()}
	if deps.Fiat != nil {
		h.fiat, h.fiatPg = deps.Fiat, fiatTemplate(funcs)
	}
	h.widgets = parseWidgets(funcs)
	sub, _ := fs.Sub(assetFS, "assets")
	files := http.StripPrefix("/checkout/assets/", http.FileServerFS(sub))
	h.assets = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
	for _, a := range actions {
		h.mux.HandleFunc(a.pattern, func(w http.ResponseWriter, r *http.Request) { a.serve(h, w, r) })
	}
	for _, name := range assetNames {
		h.mux.Handle(assetRoute+name, h.assets)
	}
	return h
}

// actions are the page's routes but its assets.
var actions = []struct {
	pattern string
	serve   func(*Handler, http.ResponseWriter, *http.Request)
}{
	{"GET /checkout", (*Handler).handlePage},
	{"GET /checkout/status", (*Handler).handleStatus},
	{"GET /checkout/events", (*Handler).handleEvents},
	{"POST /checkout/cancel", (*Handler).handleCancel},
	{"POST /checkout/close", (*Handler).handleClose},
	{"POST /checkout/identity", (*Handler).handleIdentity},
	{"POST /checkout/pay", (*Handler).handleStartPayment},
	{"POST /checkout/method", (*Handler).handleMethod},
	{"POST /checkout/refund-address", (*Handler).handleRefundAddress},
	{"GET /checkout/widgets/{file}", (*Handler).handleWidgetScript},
}

// assetRoute prefixes each asset file's name in its route.
const assetRoute = "GET /checkout/assets/"

// assetNames are the embedded asset files, as paths under assets/.
var assetNames = func() []string {
	var names []string
	_ = fs.WalkDir(assetFS, "assets", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(path, "assets/"))
		}
		return err
	})
	return names
}()

// MethodIcon is the URL path of a fiat payment method's icon among the page's assets (the
// B2 and C2 lists name it, absolute): its own, or a generic one for a method without one.
func MethodIcon(id string) string {
	name := "methods/" + id + ".svg"
	if !slices.Contains(assetNames, name) {
		name = "methods/default.svg"
	}
	return "/checkout/assets/" + name
}

// Routes returns the method and path patterns (http.ServeMux syntax) the page answers: the
// page, its status, its stream, its actions and each asset file. A server mounts the Handler
// on exactly these, so that any other /checkout request (another method, an unknown path or
// asset) is unmatched there and answered like its other unknown routes (httpapi: 404 or 405
// in the JSON envelope). Only an unknown order or a wrong hash on these routes gets the
// page's own HTML 404.
func Routes() []string {
	r := make([]string, 0, len(actions)+len(assetNames))
	for _, a := range actions {
		r = append(r, a.pattern)
	}
	for _, name := range assetNames {
		r = append(r, assetRoute+name)
	}
	return r
}

// ServeHTTP implements http.Handler for the requests Routes matches. Served by itself, the
// Handler answers others as http.ServeMux does (text/plain 404 or 405); a server that
// mounts it on Routes answers them its own way.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// lookup returns the order a request names with its valid hash: nil and no error for an
// unknown order and a wrong hash alike, an error when the store could not say.
func (h *Handler) lookup(r *http.Request) (*rampway.Order, error) {
	id, hash := r.FormValue("order_id"), r.FormValue("hash")
	if !rampway.ValidID(rampway.PrefixOrder, id) || hash == "" || !h.hash.CheckHash(id, hash) {
		return nil, nil
	}
	o, err := h.store.Order(r.Context(), id)
	switch {
	case rampway.ErrorCode(err) == rampway.ENOTFOUND:
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read order %s: %w", id, err)
	}
	switch {
	case o.FiatSymbol != "" && h.fiat != nil: // a fiat checkout (area B)
	case o.Area != rampway.AreaMint || o.DepositAddress == (rampway.Order{}).DepositAddress:
		return nil, nil
	}
	return o, nil
}

// order returns the order a request names, or answers (404 for an unknown order or a wrong
// hash, 503 when the store could not say: a person paying is never told a valid link is not)
// and returns nil.
func (h *Handler) order(w http.ResponseWriter, r *http.Request, asJSON bool) *rampway.Order {
	o, err := h.lookup(r)
	switch {
	case err != nil:
		h.log.Error("checkout page: read order", "error", err)
		h.unavailable(w, r, asJSON)
	case o == nil:
		h.notFound(w)
	}
	return o
}

// securityHeaders are set on every page answer: a strict CSP (only our own scripts, styles and
// connections; images from data: for the QR code, and from the origin of each of images, the
// merchant's logo and the item's image the page shows, only), no framing, no referrer (the URL
// holds the order's hash, and an image host learns nothing of it), never cached.
func securityHeaders(w http.ResponseWriter, formTarget string, images ...string) {
	form := "'self'"
	if formTarget != "" {
		form += " " + formTarget
	}
	img := "'self' data:"
	var seen []string
	for _, u := range images {
		if o := imageSource(u); o != "" && !slices.Contains(seen, o) {
			seen = append(seen, o)
			img += " " + o
		}
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src "+img+"; "+
		"connect-src 'self'; form-action "+form+"; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
}

// readForm reads a form post of at most limit bytes; past it the person gets a 413 page (not a
// 404 for the order the cut-off form no longer names) and it returns false.
func (h *Handler) readForm(w http.ResponseWriter, r *http.Request, limit int64) bool {
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			h.errorPage(w, http.StatusRequestEntityTooLarge, "too_large")
			return false
		}
		h.errorPage(w, http.StatusBadRequest, "not_found")
		return false
	}
	return true
}

// formOrder reads a form post of at most limit bytes (readForm) and the order it names (order),
// and returns them with the order's page to go back to; nil when it has answered already.
func (h *Handler) formOrder(w http.ResponseWriter, r *http.Request, limit int64) (*rampway.Order, string) {
	if !h.readForm(w, r, limit) {
		return nil, ""
	}
	o := h.order(w, r, false)
	if o == nil {
		return nil, ""
	}
	return o, "/checkout?order_id=" + url.QueryEscape(o.ID) + "&hash=" + url.QueryEscape(r.FormValue("hash"))
}

func (h *Handler) notFound(w http.ResponseWriter) {
	h.errorPage(w, http.StatusNotFound, "not_found")
}

// errorPage answers a person's browser: an HTML page with the title and text of Messages'
// key and key+"_title".
func (h *Handler) errorPage(w http.ResponseWriter, status int, key string) {
	securityHeaders(w, "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = h.errPg.Execute(w, struct{ Title, Text string }{key + "_title", key})
}

// unavailable answers a request the store or the chain could not serve now: 503 with
// Retry-After, as an HTML page on the page's own routes (a person reads it) and in the API's
// error envelope on its JSON ones (the page's script reads them).
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, asJSON bool) {
	w.Header().Set("Retry-After", "2")
	if !asJSON {
		h.errorPage(w, http.StatusServiceUnavailable, "unavailable")
		return
	}
	securityHeaders(w, "")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	_ = json.NewEncoder(w).Encode(rampway.ErrorEnvelope{StatusCode: http.StatusServiceUnavailable,
		Timestamp: h.now().UTC().Format(rampway.TimeFormat), Message: "Service unavailable: try again in a moment", Path: r.URL.Path})
}

// imageSource is the CSP source that allows an image URL: its scheme and host (with the port
// when it has one), or its scheme alone for a host CSP cannot name (an IPv6 address); "" for
// no http(s) URL. Image URLs are checked when merchants register them
// (rampway.CheckImageURL), so no ';' or space reaches the header.
func imageSource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	if strings.ContainsAny(u.Host, "[]; ,'\"") {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}

// Header is the top of a checkout page, what a shop shows: who sells (the merchant's name and
// logo) and what is bought (the function's display name, or its ABI name, and its image). A
// fiat checkout shows the same one (templates/header.html, block "header").
type Header struct {
	MerchantName string
	MerchantLogo string // "" for none
	ItemName     string
	ItemImage    string // "" for none
}

// images are the URLs of the images the header shows.
func (hd Header) images() []string { return []string{hd.MerchantLogo, hd.ItemImage} }

// header reads what the order's header shows. What cannot be read is left out rather than
// failing the page: a person paying still sees the amount and the address.
func (h *Handler) header(ctx context.Context, o *rampway.Order) Header {
	hd := Header{ItemName: Messages["title"]}
	if m, err := h.store.Merchant(ctx, o.MerchantID); err == nil {
		hd.MerchantName, hd.MerchantLogo = m.Name, m.LogoURL
	}
	if f, err := h.store.ContractFunction(ctx, o.FunctionID); err == nil {
		hd.ItemName, hd.ItemImage = f.DisplayName, f.ImageURL
		if hd.ItemName == "" {
			hd.ItemName = functionLabel(f.Signature)
		}
	}
	return hd
}

// pageData is what the template renders.
type pageData struct {
	OrderID, Hash string
	Header        Header
	Price         Summary
	Symbol        string
	Network       string
	ChainID       string
	ChainIDHex    string
	// RPCURL and ExplorerURL describe the network to a wallet that does not know it
	// (wallet_addEthereumChain); "" when there is none to give.
	RPCURL, ExplorerURL string
	NativeSymbol        string
	Address             string
	Token               string // the token contract, "" for the native coin
	// TokenURL is the token's page on the network's explorer ("" for none).
	TokenURL  string
	ExpiresAt string
	// Countdown is the time left to pay as the page first shows it (its script ticks it).
	Countdown string
	// Status holds what the page asks for (Due, DueUnits, PaymentURI, QR): what is still to
	// pay, as the live updates will.
	Status            *Status
	I18N              map[string]string
	ReturnAfterSecond int
	// Refunds are the order's refunds the page shows, each with its address form when it
	// waits for one.
	Refunds []RefundLine
	// Livemode is the order's mode: a test order's page is marked "Test mode" (block
	// "testmode").
	Livemode bool
	// Outcome is what the page says at the end: where what was bought went, and what happens
	// to a late payment (block "outcome").
	Outcome Outcome
}

// Outcome is what a checkout says at its end (templates/header.html, block "outcome"): at
// SUCCESS, who received what the order made and by which transaction; once expired, what
// happens to a payment that comes late.
type Outcome struct {
	// SentLabel and SentTo: "Sent to" and the recipient's address (the call's recipient
	// argument; area C: the merchant's deposit address), "" when not known.
	SentLabel, SentTo string
	// Late is what the expired page says of a late payment.
	Late string
}

// outcome is what order o's page says at its end.
func (h *Handler) outcome(ctx context.Context, o *rampway.Order, merchant string) Outcome {
	var out Outcome
	switch {
	case o.Area == rampway.AreaDeposit:
		out.SentLabel, out.SentTo = strings.ReplaceAll(Messages["sent_to_merchant"], "{merchant}", merchant), o.PayoutAddress.Hex()
		if merchant == "" {
			out.SentLabel = Messages["sent_to"]
		}
	default:
		if f, err := h.store.ContractFunction(ctx, o.FunctionID); err == nil {
			out.SentLabel, out.SentTo = Messages["sent_to"], recipient(f, o.FunctionArgs)
		}
	}
	switch {
	case o.FiatSymbol == "":
		out.Late = Messages["late_crypto"]
	case o.FiatMethod == "":
		out.Late = Messages["late_none"]
	case rampway.MethodFlow(o.FiatMethod) == rampway.FlowAuthorise:
		out.Late = Messages["late_authorise"]
	default:
		out.Late = Messages["late_push"]
	}
	return out
}

func (h *Handler) handlePage(w http.ResponseWriter, r *http.Request) {
	o := h.order(w, r, false)
	if o == nil {
		return
	}
	if o.FiatSymbol != "" {
		h.handleFiatPage(w, r, o, nil)
		return
	}
	h.renderPage(w, r, o, nil)
}

// renderPage renders an area A order's page; posted is a refund address the user just gave and
// why it was refused (answered 400), or nil.
func (h *Handler) renderPage(w http.ResponseWriter, r *http.Request, o *rampway.Order, posted *RefundLine) {
	ctx := r.Context()
	st, err := h.status(ctx, o)
	if err != nil {
		h.log.Error("checkout page: status", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	hd := h.header(ctx, o)
	d := pageData{OrderID: o.ID, Hash: r.FormValue("hash"), Header: hd, Price: priceLines(o), Symbol: o.Asset.Symbol,
		Network: o.Network, Address: o.DepositAddress.Hex(), ExpiresAt: o.ExpiresAt.UTC().Format(rampway.TimeFormat), Status: st,
		Countdown: humanDuration(o.ExpiresAt.Sub(h.now())), ReturnAfterSecond: int(h.cfg.ReturnAfter / time.Second), Livemode: o.Livemode,
		Outcome: h.outcome(ctx, o, hd.MerchantName)}
	n, ok := h.chains.Network(o.Network)
	if ok && n.ChainID != nil {
		d.ChainID, d.ChainIDHex = n.ChainID.String(), "0x"+n.ChainID.Text(16)
		d.RPCURL, d.ExplorerURL, d.NativeSymbol = h.publicRPC(n), explorer(n), n.Native.Symbol
	}
	if !o.Asset.IsNative() {
		d.Token = o.Asset.Contract.Hex()
		if e := explorer(n); ok && e != "" {
			d.TokenURL = e + "/token/" + d.Token
		}
	}
	d.I18N = Messages
	if d.Refunds, err = h.refundLines(ctx, o, posted); err != nil {
		h.log.Error("checkout page: refunds", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	var buf bytes.Buffer
	if err := h.page.Execute(&buf, d); err != nil {
		h.log.Error("checkout page: render", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	securityHeaders(w, origin(o.MerchantRedirectURL), d.Header.images()...)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if posted != nil {
		w.WriteHeader(http.StatusBadRequest)
	}
	_, _ = w.Write(buf.Bytes())
	// After the page is out: the merchant hears of the first opening (a write, kept off the
	// user's wait).
	if err := h.recordOpen(ctx, o); err != nil {
		h.log.Warn("checkout page: record widget open", "order_id", o.ID, "error", err)
	}
}

// functionLabel is a human label of a function signature: "mintWithToken(address,uint256)"
// -> "mint with token".
func functionLabel(sig string) string {
	name, _, _ := strings.Cut(sig, "(")
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// paymentURI is the EIP-681 request of a payment of units of the order's asset to its deposit
// address: the native coin's value ("ethereum:<deposit>@<chainId>?value=<wei>"), or the
// token's transfer ("ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<units>").
// It is built here from checked parts only (addresses as 0x hex, the chain id and the amount
// as decimal integers), so it may be typed template.URL: html/template would otherwise
// refuse the ethereum: scheme in an href ("#ZgotmplZ") and the link would open no wallet.
func paymentURI(o *rampway.Order, chainID *big.Int, units *big.Int) template.URL {
	at := ""
	if chainID != nil && chainID.Sign() > 0 {
		at = "@" + chainID.String()
	}
	if units == nil || units.Sign() < 0 {
		units = new(big.Int)
	}
	if o.Asset.IsNative() {
		return template.URL("ethereum:" + o.DepositAddress.Hex() + at + "?value=" + units.String())
	}
	return template.URL("ethereum:" + o.Asset.Contract.Hex() + at + "/transfer?address=" + o.DepositAddress.Hex() + "&uint256=" + units.String())
}

// qrSize is the side of the QR code's PNG, in pixels.
const qrSize = 256

// qrPNG is the QR code of a payment URI as a data: URL (the page's CSP allows images from
// data: and itself only), or "" if it cannot be made.
func qrPNG(uri template.URL) template.URL {
	png, err := qrcode.Encode(string(uri), qrcode.Medium, qrSize)
	if err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
}

// qrCache keeps the QR codes of the last payment URIs: a live stream builds its status every
// second, and the QR only changes with what is due.
type qrCache struct {
	mu sync.Mutex
	m  map[template.URL]template.URL
}

func (c *qrCache) get(uri template.URL) template.URL {
	c.mu.Lock()
	q, ok := c.m[uri]
	c.mu.Unlock()
	if ok {
		return q
	}
	q = qrPNG(uri)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 512 {
		c.m = map[template.URL]template.URL{}
	}
	c.m[uri] = q
	c.mu.Unlock()
	return q
}

// publicRPC is the JSON-RPC URL of a network the page may give a wallet, or "" (see
// Config.PublicRPCURLs).
func (h *Handler) publicRPC(n *rampway.Network) string {
	if u := h.cfg.PublicRPCURLs[n.Name]; u != "" {
		if p, err := url.Parse(u); err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != "" && p.User == nil {
			return u
		}
		return ""
	}
	if len(n.RPCURLs) == 0 {
		return ""
	}
	p, err := url.Parse(n.RPCURLs[0])
	if err != nil || p.Scheme != "http" || p.User != nil || p.RawQuery != "" || !rampway.IsLoopbackHost(p.Hostname()) {
		return ""
	}
	return n.RPCURLs[0]
}

// explorer is the network's block explorer (http or https), or "".
func explorer(n *rampway.Network) string {
	if n == nil || n.ExplorerURL == "" {
		return ""
	}
	if p, err := url.Parse(n.ExplorerURL); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	return strings.TrimRight(n.ExplorerURL, "/")
}

// txURL is a transaction's page on the network's explorer, or "".
func txURL(n *rampway.Network, hash string) string {
	if e := explorer(n); e != "" {
		return e + "/tx/" + hash
	}
	return ""
}

// origin is scheme://host of a URL, or "".
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func (h *Handler) at() time.Time { return h.now().UTC().Truncate(time.Microsecond) }

// Status is the order as the page shows it, and what it asks for.
type Status struct {
	Status       string `json:"status"`
	Text         string `json:"text"`
	Received     string `json:"received"`
	Missing      string `json:"missing"`
	MissingUnits string `json:"missing_units"`
	// Payable: the page asks for a payment (CREATED, or UNDERPAID: once a payment is seen, a
	// second one would only be refunded, so the payment section hides); what it asks for is Due
	// (DueUnits in base units), the whole amount or what is still missing after a partial
	// payment, as the EIP-681 PaymentURI and its QR code (a data: URL). All four are empty
	// when the page asks for nothing.
	Payable    bool         `json:"payable"`
	Partial    bool         `json:"partial"` // part of the amount has arrived: Due is the rest
	Due        string       `json:"due,omitempty"`
	DueUnits   string       `json:"due_units,omitempty"`
	PaymentURI template.URL `json:"payment_uri,omitempty"`
	QR         template.URL `json:"qr,omitempty"`
	// Payments are the transfers seen for the order (not those a reorganisation dropped).
	Payments      []Payment `json:"payments,omitempty"`
	Confirmations int       `json:"confirmations"`
	Required      int       `json:"required"`
	TxHash        string    `json:"tx_hash,omitempty"`
	TxURL         string    `json:"tx_url,omitempty"`
	Final         bool      `json:"final"`
	Cancellable   bool      `json:"cancellable"`
	ReturnURL     string    `json:"return_url"`
	// RefundAddress: a refund of the order waits for the user's address; the page shows its
	// form and does not return to the merchant by itself.
	RefundAddress bool `json:"refund_address"`
}

// Payment is one transfer to the order's deposit address.
type Payment struct {
	Amount    string `json:"amount"`
	TxHash    string `json:"tx_hash"`
	TxURL     string `json:"tx_url,omitempty"`
	Confirmed bool   `json:"confirmed"`
}

func (h *Handler) status(ctx context.Context, o *rampway.Order) (*Status, error) {
	d := o.Asset.Decimals
	received := o.CryptoReceived
	if received == nil {
		received = new(big.Int)
	}
	missing := new(big.Int).Sub(o.CryptoAmount, received)
	if missing.Sign() < 0 {
		missing.SetInt64(0)
	}
	st := &Status{Status: string(o.Status), Received: rampway.FormatUnits(received, d), Missing: rampway.FormatUnits(missing, d),
		MissingUnits: missing.String(), Final: o.Status.Decided(), Cancellable: rampway.Takes(o, rampway.CauseCancelled), ReturnURL: returnURL(o.MerchantRedirectURL, o.ID, o.Status)}
	net, _ := h.chains.Network(o.Network)
	if net != nil {
		st.Required = max(net.Confirmations, 1)
	}
	// What the page asks for: what is still missing, never more (a reload or a live update
	// after a partial payment asks for the rest, everywhere: text, copy, QR, link, wallet).
	if rampway.AwaitsPayment(o.Area, o.Status) && missing.Sign() > 0 {
		var chainID *big.Int
		if net != nil {
			chainID = net.ChainID
		}
		st.Payable, st.Partial = true, received.Sign() > 0
		st.Due, st.DueUnits = st.Missing, st.MissingUnits
		st.PaymentURI = paymentURI(o, chainID, missing)
		st.QR = h.qrs.get(st.PaymentURI)
	}
	if o.Status != rampway.StatusCreated || received.Sign() > 0 {
		ts, err := h.store.OrderTransfers(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if t.Status == rampway.TransferDropped {
				continue
			}
			st.Payments = append(st.Payments, Payment{Amount: rampway.FormatUnits(t.Amount, d), TxHash: t.TxHash.Hex(),
				TxURL: txURL(net, t.TxHash.Hex()), Confirmed: t.Status == rampway.TransferConfirmed})
		}
		if o.Status == rampway.StatusDepositProcessing && net != nil {
			head, err := h.chains.Head(ctx, o.Network)
			if err == nil {
				st.Confirmations = st.Required
				for _, t := range ts {
					if t.Status == rampway.TransferSeen && head >= t.BlockNumber {
						st.Confirmations = min(st.Confirmations, int(head-t.BlockNumber+1))
					}
				}
			}
		}
	}
	if o.ExecutionTxHash != "" {
		st.TxHash, st.TxURL = o.ExecutionTxHash, txURL(net, o.ExecutionTxHash)
	}
	reason := o.FailureReason
	if reason == "" {
		reason = "it could not be completed"
	}
	st.Text = strings.NewReplacer("{n}", strconv.Itoa(st.Confirmations), "{N}", strconv.Itoa(st.Required), "{missing}", st.Missing,
		"{symbol}", o.Asset.Symbol, "{reason}", reason).Replace(Messages["st_"+string(o.Status)])
	ask, err := h.awaitsRefundAddress(ctx, o)
	if err != nil {
		return nil, err
	}
	st.RefundAddress = ask
	return st, nil
}

// returnURL is the merchant's redirect URL with the order id and status added.
func returnURL(raw, orderID string, status rampway.OrderStatus) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	q.Set("order_id", orderID)
	q.Set("status", string(status))
	u.RawQuery = q.Encode()
	return u.String()
}

func (h *Handler) handleStatus(w http.ResponseWriter, r *http.Request) {
	o := h.order(w, r, true)
	if o == nil {
		return
	}
	st, err := h.status(r.Context(), o)
	if err != nil {
		h.log.Error("checkout page: status", "order_id", o.ID, "error", err)
		h.unavailable(w, r, true)
		return
	}
	securityHeaders(w, "")
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}

// handleEvents streams the order's status as server-sent events: one "status" event each time
// it changes, a comment every 15 s to keep proxies from closing the stream, and the end of the
// stream at a final status (or after StreamFor: the browser reconnects).
func (h *Handler) handleEvents(w http.ResponseWriter, r *http.Request) {
	o := h.order(w, r, true)
	if o == nil {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's write timeout
	securityHeaders(w, "")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	ctx := r.Context()
	end := time.NewTimer(h.cfg.StreamFor)
	defer end.Stop()
	tick := time.NewTicker(h.cfg.Poll)
	defer tick.Stop()
	last, beat := "", time.Now()
	for {
		o, err := h.store.Order(ctx, o.ID)
		if err == nil {
			st, err := h.status(ctx, o)
			if err == nil {
				b, _ := json.Marshal(st)
				if string(b) != last {
					last = string(b)
					if _, err := fmt.Fprintf(w, "event: status\ndata: %s\n\n", b); err != nil {
						return
					}
					_ = rc.Flush()
				}
				if st.Final {
					return
				}
			}
		}
		if time.Since(beat) > 15*time.Second {
			beat = time.Now()
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		}
		select {
		case <-ctx.Done():
			return
		case <-end.C:
			return
		case <-tick.C:
		}
	}
}

// handleCancel cancels an unpaid order (CREATED -> CANCELLED) and returns to the merchant.
func (h *Handler) handleCancel(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r, 4096) {
		return
	}
	o := h.order(w, r, false)
	if o == nil {
		return
	}
	if rampway.Takes(o, rampway.CauseCancelled) {
		got, err := h.hash.Cancel(r.Context(), o.ID)
		switch {
		case err == nil:
			o = got
		case rampway.ErrorCode(err) == rampway.ECONFLICT: // a payment came first: the page shows it
			id := o.ID
			if o, err = h.store.Order(r.Context(), id); err != nil {
				h.log.Error("checkout page: cancel", "order_id", id, "error", err)
				h.unavailable(w, r, false)
				return
			}
		default:
			h.log.Error("checkout page: cancel", "order_id", o.ID, "error", err)
			h.unavailable(w, r, false)
			return
		}
	}
	if o.Status != rampway.StatusCancelled {
		// Too late to cancel (paid meanwhile): back to the page, which shows where it is.
		http.Redirect(w, r, "/checkout?order_id="+url.QueryEscape(o.ID)+"&hash="+url.QueryEscape(r.FormValue("hash")), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, returnURL(o.MerchantRedirectURL, o.ID, o.Status), http.StatusSeeOther)
}

// recordOpen records user.widget.open, once per order, after the page is out: a write kept off
// the user's wait, and done even when the browser has gone on (a page left at once, a link
// previewer that reads the start of it), within eventTimeout.
func (h *Handler) recordOpen(ctx context.Context, o *rampway.Order) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventTimeout)
	defer cancel()
	_, err := h.store.RecordOrderEvent(ctx, o.ID, rampway.EventWidgetOpen, true, h.at())
	return err
}

// eventTimeout bounds the recording of a page event.
const eventTimeout = 10 * time.Second

// handleClose records user.widget.close once per visit: the page sends it (best effort, as it
// goes away) with the id it made for its visit, one stay of one browser tab, which reloads and
// the checkout's own steps keep. A beacon without a valid visit records nothing.
func (h *Handler) handleClose(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if o, _ := h.lookup(r); o != nil && validVisit(r.FormValue("visit")) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), eventTimeout)
		defer cancel()
		if _, err := h.store.RecordVisitEvent(ctx, o.ID, rampway.EventWidgetClose, r.FormValue("visit"), h.at()); err != nil {
			h.log.Warn("checkout page: record widget close", "order_id", o.ID, "error", err)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// validVisit reports whether v is a visit id as the page makes them: letters, digits, '-' and
// '_', at most rampway.MaxVisitLength.
func validVisit(v string) bool {
	if v == "" || len(v) > rampway.MaxVisitLength {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
