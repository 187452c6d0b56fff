-- +goose Up
-- The dashboard's overview counts a merchant's webhook deliveries given up on (of a mode, in a
-- period): found among the failed ones only, so that a read stays small whatever the other
-- merchants' and statuses' deliveries hold.
CREATE INDEX webhook_deliveries_merchant_failed ON webhook_deliveries (merchant_id, livemode, created_at) WHERE status = 'failed';

-- +goose Down
DROP INDEX webhook_deliveries_merchant_failed;
