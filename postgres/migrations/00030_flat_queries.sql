-- +goose Up
-- Every statement finds its rows through an index, so that its cost stays flat as the
-- database grows (sqlite's TestNoStatementScansAGrowingTable reads every statement's plan).

-- A merchant's orders, listed by area (each area's base URL lists its own) and by status,
-- newest first: a page read in order, whatever the merchant's other areas and statuses hold.
DROP INDEX orders_merchant_created;
CREATE INDEX orders_merchant_area ON orders (merchant_id, livemode, area, created_at DESC, id DESC);
CREATE INDEX orders_merchant_status ON orders (merchant_id, livemode, area, status, created_at DESC, id DESC);

-- The sandbox's notifications still to send, per instance, in order.
DROP INDEX sandbox_events_due;
CREATE INDEX sandbox_events_due ON sandbox_events (provider, seq) WHERE delivered_at IS NULL;

-- The operator's queues: signed transactions not yet settled (metrics), fiat actions by
-- status, refunds newest last, a failed sweep's transfers given back.
CREATE INDEX chain_txs_unsettled ON chain_txs (network) WHERE status = 'pending';
DROP INDEX fiat_actions_operator;
CREATE INDEX fiat_actions_status ON fiat_actions (status, updated_at, id);
CREATE INDEX refunds_created ON refunds (created_at, id);
CREATE INDEX inbound_transfers_sweep ON inbound_transfers (sweep_id) WHERE sweep_id != '';

-- +goose Down
DROP INDEX inbound_transfers_sweep;
DROP INDEX refunds_created;
DROP INDEX fiat_actions_status;
CREATE INDEX fiat_actions_operator ON fiat_actions (updated_at, id) WHERE status = 'needs_operator';
DROP INDEX chain_txs_unsettled;
DROP INDEX sandbox_events_due;
CREATE INDEX sandbox_events_due ON sandbox_events (next_attempt_at) WHERE delivered_at IS NULL;
DROP INDEX orders_merchant_status;
DROP INDEX orders_merchant_area;
CREATE INDEX orders_merchant_created ON orders (merchant_id, livemode, created_at DESC, id DESC);
