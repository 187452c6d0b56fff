-- +goose Up
-- A rotated webhook secret stays valid until previous_secret_expires_at: deliveries carry one
-- signature per valid secret, so merchants switch without missing an event.
ALTER TABLE merchants ADD COLUMN previous_webhook_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE merchants ADD COLUMN previous_secret_expires_at INTEGER;

-- +goose Down
ALTER TABLE merchants DROP COLUMN previous_secret_expires_at;
ALTER TABLE merchants DROP COLUMN previous_webhook_secret;
