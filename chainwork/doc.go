// Package chainwork holds the chain workers, one of each per network, that run in the
// background beside the request-time use cases of package checkout: the deposit watcher
// (payments seen, confirmed, dropped by reorganisations), the executor (paid orders' calls:
// pre-flight, signing, broadcast), the transaction follower (receipts, re-pricing stuck
// transactions) and the sweeper (deposits to the treasury). What they observe goes to the
// store as causes (rampway.Apply decides what each does to an order).
package chainwork
