-- +goose Up
-- The claim walks the pending deliveries in due order and skips those leased or of merchants
-- whose share of attempts is taken (a dead endpoint's backlog): the columns it reads are in the
-- index. The check for an earlier pending event of the same order has its own pending index:
-- without it the planner combined the status index (every pending row) with the order index
-- for each candidate, 38 ms for a claim among 1,200 pending deliveries.
DROP INDEX webhook_deliveries_pending;
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, event_seq) INCLUDE (merchant_id, lease_until, order_id)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_order_pending ON webhook_deliveries (order_id, event_seq) WHERE status = 'pending';
-- Counts by status for /metrics (and the oldest pending one).
CREATE INDEX webhook_deliveries_status ON webhook_deliveries (status, created_at);

-- +goose Down
DROP INDEX webhook_deliveries_status;
DROP INDEX webhook_deliveries_order_pending;
DROP INDEX webhook_deliveries_pending;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, event_seq) WHERE status = 'pending';
