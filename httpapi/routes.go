package httpapi

import (
	"net/http"
	"strings"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/provider"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Route names the spec uses for its endpoints.
const (
	routeOrder          = "/merchant/hosted/nftCheckout/order"
	routeCryptoQuote    = "/merchant/hosted/nftCheckout/cryptoQuote"
	routeFiatCurrencies = "/merchant/hosted/nftCheckout/fiatCurrencies"
	routeFiatQuote      = "/merchant/hosted/nftCheckout/fiatQuote"
	routeOrders         = "/merchant/hosted/nftCheckout/orders"
	routeOnRampOrder    = "/merchant/sdk/on-ramp/order"
	routeOnRampOrders   = "/merchant/sdk/on-ramp/orders"
	// routeListen is the merchant's stream of its webhook deliveries (rampway listen).
	routeListen      = "/merchant/webhook-events/stream"
	routeDepositFiat = "/merchant/sdk/onramp-to-deposit/fiatCurrencies"
)

// routes mounts every route of the service.
func (s *Server) routes() {
	mint, ramp, dep, admin := s.cfg.BasePaths.Mint, s.cfg.BasePaths.NFTRamp, s.cfg.BasePaths.Deposit, s.cfg.BasePaths.Admin
	m := s.mux
	api := func(pattern string, h handlerFunc) {
		if strings.HasPrefix(pattern, http.MethodPost+" ") {
			m.Handle(pattern, s.merchantAuth(s.rateLimit(s.idempotent(s.handle(h)))))
			return
		}
		m.Handle(pattern, s.merchantAuth(s.rateLimit(s.handle(h))))
	}
	adm := func(pattern string, h handlerFunc) { m.Handle(pattern, s.adminAuth(s.handle(h))) }

	// The merchant's stream of its webhook deliveries (rampway listen): long-lived, so
	// outside the rate limit (a merchant has at most listenPerMerch open).
	m.Handle("GET "+routeListen, s.merchantAuth(s.handle(s.handleListen)))

	// Area A: NFT minting paid in crypto.
	api("POST "+mint+routeOrder, s.handleCreateMintOrder)
	api("POST "+mint+routeCryptoQuote, s.handleCryptoQuote)
	api("GET "+mint+routeOrder+"/{order_id}", s.handleGetOrder(rampway.AreaMint))
	api("GET "+mint+routeOrders, s.handleListOrders(rampway.AreaMint))
	api("GET "+mint+routeOrder+"/{order_id}/webhooks", s.handleDeliveries(rampway.AreaMint, false))
	api("POST "+mint+routeOrder+"/{order_id}/webhooks/{event_id}/resend", s.handleResend(rampway.AreaMint, false))
	api("POST "+mint+routeOrder+"/{order_id}/refunds/{refund_id}/address", s.handleMerchantRefundAddress)
	api("POST "+mint+routeOrder+"/{order_id}/refunds", s.handleCreateRefund(rampway.AreaMint))
	api("GET "+mint+routeOrder+"/{order_id}/refunds", s.handleOrderRefunds(rampway.AreaMint))

	// Area B: NFT checkout paid in fiat.
	api("POST "+ramp+routeOrder, s.handleCreateFiatOrder)
	api("GET "+ramp+routeFiatCurrencies, s.handleFiatCurrencies)
	api("POST "+ramp+routeFiatQuote, s.handleFiatQuote)
	api("GET "+ramp+routeOrder+"/{order_id}", s.handleGetOrder(rampway.AreaNFTRamp))
	api("GET "+ramp+routeOrders, s.handleListOrders(rampway.AreaNFTRamp))
	api("GET "+ramp+routeOrder+"/{order_id}/webhooks", s.handleDeliveries(rampway.AreaNFTRamp, false))
	api("POST "+ramp+routeOrder+"/{order_id}/webhooks/{event_id}/resend", s.handleResend(rampway.AreaNFTRamp, false))
	api("POST "+ramp+routeOrder+"/{order_id}/refunds", s.handleCreateRefund(rampway.AreaNFTRamp))
	api("GET "+ramp+routeOrder+"/{order_id}/refunds", s.handleOrderRefunds(rampway.AreaNFTRamp))

	// Area C: on-ramp to a merchant deposit.
	api("POST "+dep+routeOnRampOrder, s.handleCreateDepositOrder)
	api("GET "+dep+routeDepositFiat, s.handleFiatCurrencies) // C2 answers like B2
	api("GET "+dep+routeOnRampOrder+"/{order_id}", s.handleGetOrder(rampway.AreaDeposit))
	api("GET "+dep+routeOnRampOrders, s.handleListOrders(rampway.AreaDeposit))
	api("GET "+dep+routeOnRampOrder+"/{order_id}/webhooks", s.handleDeliveries(rampway.AreaDeposit, false))
	api("POST "+dep+routeOnRampOrder+"/{order_id}/webhooks/{event_id}/resend", s.handleResend(rampway.AreaDeposit, false))
	api("POST "+dep+routeOnRampOrder+"/{order_id}/refunds", s.handleCreateRefund(rampway.AreaDeposit))
	api("GET "+dep+routeOnRampOrder+"/{order_id}/refunds", s.handleOrderRefunds(rampway.AreaDeposit))

	// Admin API: onboarding.
	adm("POST "+admin+"/merchants", s.handleCreateMerchant)
	adm("GET "+admin+"/merchants", s.handleListMerchants)
	adm("GET "+admin+"/merchants/{merchant_id}", s.handleGetMerchant)
	adm("PATCH "+admin+"/merchants/{merchant_id}", s.handleUpdateMerchant)
	adm("POST "+admin+"/merchants/{merchant_id}/api-keys", s.handleIssueAPIKey)
	adm("GET "+admin+"/merchants/{merchant_id}/api-keys", s.handleListAPIKeys)
	adm("DELETE "+admin+"/merchants/{merchant_id}/api-keys/{key_id}", s.handleRevokeAPIKey)
	adm("POST "+admin+"/merchants/{merchant_id}/webhook-secret", s.handleSetWebhookSecret)
	adm("POST "+admin+"/merchants/{merchant_id}/contract-functions", s.handleRegisterFunction)
	adm("GET "+admin+"/merchants/{merchant_id}/contract-functions", s.handleListFunctions)
	adm("GET "+admin+"/merchants/{merchant_id}/contract-functions/{function_id}", s.handleGetFunction)
	adm("POST "+admin+"/merchants/{merchant_id}/contract-functions/{function_id}/disable", s.handleDisableFunction)
	adm("POST "+admin+"/merchants/{merchant_id}/deposit-addresses", s.handleSetDepositAddress)
	adm("GET "+admin+"/merchants/{merchant_id}/deposit-addresses", s.handleListDepositAddresses)
	adm("DELETE "+admin+"/merchants/{merchant_id}/deposit-addresses/{network}/{symbol}", s.handleDeleteDepositAddress)
	adm("GET "+admin+"/merchants/{merchant_id}/orders/{order_id}/webhooks", s.handleDeliveries("", true))
	adm("POST "+admin+"/merchants/{merchant_id}/orders/{order_id}/webhooks/{event_id}/resend", s.handleResend("", true))

	// Admin API: fiat actions a provider kept refusing (retried, or resolved by hand).
	adm("GET "+admin+"/fiat-actions", s.handleListFiatActions)
	adm("POST "+admin+"/fiat-actions/{action_id}/retry", s.handleRetryFiatAction)
	adm("POST "+admin+"/fiat-actions/{action_id}/resolve", s.handleResolveFiatAction)

	// Admin API: the ledger (docs/ledger.md).
	adm("GET "+admin+"/ledger/drifts", s.handleLedgerDrifts)
	adm("POST "+admin+"/ledger/drifts/accept", s.handleLedgerAccept)
	adm("GET "+admin+"/ledger/report", s.handleLedgerReport)
	adm("GET "+admin+"/ledger/transfers", s.handleLedgerTransfers)

	// Admin API: area A's refunds (an approval, an address).
	adm("GET "+admin+"/refunds", s.handleListRefunds)
	adm("GET "+admin+"/refunds/{refund_id}", s.handleGetRefund)
	adm("POST "+admin+"/refunds/{refund_id}/approve", s.handleApproveRefund)
	adm("POST "+admin+"/refunds/{refund_id}/reject", s.handleRejectRefund)
	adm("POST "+admin+"/refunds/{refund_id}/address", s.handleAdminRefundAddress)

	// Payment providers' notifications (signed by the provider, no merchant key).
	m.Handle("POST /providers/{provider}/webhook", s.handle(s.handleProviderWebhook))
	// The providers' own pages and operations (providerRoutes).
	s.providerRoutes(m, adm)

	// The hosted checkout page (gateway_url), on its own routes only: any other /checkout
	// request gets the envelope's 404 or 405 below; the page answers HTML.
	if s.page != nil {
		for _, p := range checkoutpage.Routes() {
			m.Handle(p, labelled(s.page))
		}
	}

	// The dashboard, on its own subtree: its pages answer HTML for people (a 404 page of
	// their own too), with their own sessions and CSRF tokens; GET /dashboard redirects.
	if s.dashboard != nil {
		m.Handle("/dashboard/", labelled(s.dashboard))
		m.Handle("GET /dashboard", labelled(s.dashboard))
	}

	if s.home != nil {
		m.Handle("GET /{$}", labelled(s.home))
		m.Handle("/demo/", labelled(s.home))
	}

	// Operations.
	m.Handle("GET /healthz", s.handle(s.handleHealth))
	m.Handle("GET /openapi.json", s.handle(s.openAPI()))
	m.Handle("GET /readyz", s.handle(s.handleReady))
	s.pprofRoutes()
	metricsHandler := promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{Registry: s.registry})
	m.Handle("GET /metrics", s.handle(func(w http.ResponseWriter, r *http.Request) error {
		metricsHandler.ServeHTTP(w, r)
		return nil
	}))

	// Everything else: 404 or 405 in the envelope.
	m.Handle("/", s.handle(s.handleUnmatched))
}

// providerRoutes mounts the payment providers' own pages (an in-process provider's 3-D Secure,
// wallet sheets, approvals: HTML for people, as a provider hosts them) and their operators'
// operations, POST {admin}/{name}/{path}.
func (s *Server) providerRoutes(m *http.ServeMux, adm func(pattern string, h handlerFunc)) {
	for _, p := range s.providers {
		if r, ok := p.(provider.Router); ok {
			h := labelled(r.Handler())
			for _, pattern := range r.Routes() {
				m.Handle(pattern, h)
			}
		}
		if ops, ok := p.(provider.AdminOps); ok {
			for _, op := range ops.AdminOps() {
				adm("POST "+s.cfg.BasePaths.Admin+"/"+p.Name()+"/"+op.Path, adminOp(op))
			}
		}
	}
}
