-- +goose Up
-- The webhook claim goes merchant by merchant: for each merchant with something due, its first
-- due deliveries in this index's order. It replaced one walk of every pending delivery in due
-- order, which had to step over the whole backlog of a merchant already at its share of
-- workers to find another's: with one busy merchant every claim read its whole backlog, and
-- a backlog drained in quadratic time while holding SQLite's one writer.
CREATE INDEX webhook_deliveries_merchant_due ON webhook_deliveries (merchant_id, next_attempt_at, event_seq, lease_until, order_id, event_id, held_at)
    WHERE status = 'pending' AND held_at IS NULL;
DROP INDEX webhook_deliveries_pending;

-- +goose Down
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, event_seq, merchant_id, lease_until, order_id, event_id, held_at)
    WHERE status = 'pending' AND held_at IS NULL;
DROP INDEX webhook_deliveries_merchant_due;
