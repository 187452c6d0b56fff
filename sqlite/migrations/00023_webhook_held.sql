-- +goose Up
-- Deliveries of a disabled merchant are held: not attempted, their retry clock stopped, until the
-- merchant is enabled again. held_at is when a pending delivery was held (NULL: not held);
-- retry_from is when its give-up clock started (NULL: created_at), moved on by the time it was
-- held; backoff_from is how many attempts were made before its backoff started over.
ALTER TABLE webhook_deliveries ADD COLUMN held_at INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN retry_from INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN backoff_from INTEGER NOT NULL DEFAULT 0;
-- The claim walks the pending deliveries that are not held: a disabled merchant's backlog is
-- out of its way. The held ones have an index of their own, by merchant, for the release.
DROP INDEX webhook_deliveries_pending;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, event_seq, merchant_id, lease_until, order_id, event_id, held_at)
    WHERE status = 'pending' AND held_at IS NULL;
CREATE INDEX webhook_deliveries_held ON webhook_deliveries (merchant_id, event_seq) WHERE status = 'pending' AND held_at IS NOT NULL;
-- /metrics counts pending deliveries apart from held ones (and the oldest pending one not held).
DROP INDEX webhook_deliveries_status;
CREATE INDEX webhook_deliveries_status ON webhook_deliveries (status, held_at, created_at);
-- The claim leaves out the disabled merchants' deliveries (those written as it was disabled
-- too): one read of this index per claim.
CREATE INDEX merchants_disabled ON merchants (id) WHERE status = 'disabled';

-- +goose Down
DROP INDEX merchants_disabled;
DROP INDEX webhook_deliveries_status;
CREATE INDEX webhook_deliveries_status ON webhook_deliveries (status, created_at);
DROP INDEX webhook_deliveries_held;
DROP INDEX webhook_deliveries_pending;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, event_seq, merchant_id, lease_until, order_id, event_id)
    WHERE status = 'pending';
ALTER TABLE webhook_deliveries DROP COLUMN backoff_from;
ALTER TABLE webhook_deliveries DROP COLUMN retry_from;
ALTER TABLE webhook_deliveries DROP COLUMN held_at;
