-- +goose Up
-- Test and live mode. An order's mode is the mode of the key that created it; until now a
-- deployment issued keys of one mode only (rw_live_ in production, rw_test_ in dev), so an
-- existing order is live exactly when its merchant's keys are.
ALTER TABLE orders ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT false;
UPDATE orders SET livemode = true WHERE merchant_id IN (SELECT merchant_id FROM api_keys WHERE prefix LIKE 'rw\_live\_%' ESCAPE '\');
-- A merchant's key lists its own mode's orders, newest first.
DROP INDEX orders_merchant_created;
CREATE INDEX orders_merchant_created ON orders (merchant_id, livemode, created_at DESC, id DESC);
-- A delivery is signed with the merchant's secret of its order's mode.
ALTER TABLE webhook_deliveries ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT false;
UPDATE webhook_deliveries SET livemode = true WHERE merchant_id IN (SELECT merchant_id FROM api_keys WHERE prefix LIKE 'rw\_live\_%' ESCAPE '\');
-- Webhook secrets per mode: webhook_secret (and its previous one) sign test-mode events, these
-- live-mode ones. The secret a merchant had signs both until it rotates either.
ALTER TABLE merchants ADD COLUMN live_webhook_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE merchants ADD COLUMN live_webhook_secret_set_at TIMESTAMPTZ;
ALTER TABLE merchants ADD COLUMN previous_live_webhook_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE merchants ADD COLUMN previous_live_secret_expires_at TIMESTAMPTZ;
UPDATE merchants SET live_webhook_secret = webhook_secret, live_webhook_secret_set_at = webhook_secret_set_at,
    previous_live_webhook_secret = previous_webhook_secret, previous_live_secret_expires_at = previous_secret_expires_at;

-- +goose Down
ALTER TABLE merchants DROP COLUMN previous_live_secret_expires_at;
ALTER TABLE merchants DROP COLUMN previous_live_webhook_secret;
ALTER TABLE merchants DROP COLUMN live_webhook_secret_set_at;
ALTER TABLE merchants DROP COLUMN live_webhook_secret;
ALTER TABLE webhook_deliveries DROP COLUMN livemode;
DROP INDEX orders_merchant_created;
CREATE INDEX orders_merchant_created ON orders (merchant_id, created_at DESC, id DESC);
ALTER TABLE orders DROP COLUMN livemode;
