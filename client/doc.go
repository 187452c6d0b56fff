// Package client is the Go client library for merchants of a rampway payment gateway.
//
// Today it verifies and decodes the webhooks rampway sends: [VerifyWebhook] for one secret,
// a [Verifier] for secret rotation, replay and duplicate protection, and [WebhookHandler] to
// mount a receiver on an [net/http] server. [Sign] produces the signature header, for tests.
//
// The package imports only the standard library, so a merchant can depend on it alone.
// docs/webhooks.md in the rampway repository describes the events and the signature scheme.
package client
