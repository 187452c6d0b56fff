-- +goose Up
-- The dashboard's event log reads a merchant's deliveries of a mode, the newest event first, a
-- page at a time (keyset on event_seq). The mode leads, so that the statements that read a
-- merchant's deliveries of any mode (pending, held) keep the indexes made for them.
CREATE INDEX webhook_deliveries_merchant_log ON webhook_deliveries (livemode, merchant_id, event_seq);

-- +goose Down
DROP INDEX webhook_deliveries_merchant_log;
