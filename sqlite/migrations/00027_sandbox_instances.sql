-- +goose Up
-- The sandbox provider module may be configured more than once (fiat.providers, each under a
-- name of its own): each instance keeps its own payments and sends its own notifications. The
-- rows before this were the one instance's, named after its module.
ALTER TABLE sandbox_payments ADD COLUMN provider TEXT NOT NULL DEFAULT 'sandbox';
ALTER TABLE sandbox_events ADD COLUMN provider TEXT NOT NULL DEFAULT 'sandbox';

-- +goose Down
ALTER TABLE sandbox_events DROP COLUMN provider;
ALTER TABLE sandbox_payments DROP COLUMN provider;
