-- +goose Up
-- Whether an order's events are never sent: set when it was created with a
-- merchant_webhook_url while its merchant had no webhook secret of its mode, as its creation
-- answer's info said ("no webhook events will be sent for this order", the spec's Events 4).
-- A secret set later does not change it.
ALTER TABLE orders ADD COLUMN webhooks_off BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE orders DROP COLUMN webhooks_off;
