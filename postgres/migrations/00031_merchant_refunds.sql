-- +goose Up
-- Refunds a merchant asks for (whole or partial, every area): a refund record knows the
-- merchant that asked (merchant_id, '' for the refunds rampway owes on its own), its order's
-- mode, its currency, where a fiat refund goes (destination) and the provider's id of it.
-- refunds_merchant_day finds what a merchant refunded today (its daily cap).
ALTER TABLE refunds ADD COLUMN merchant_id TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE refunds ADD COLUMN currency TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN destination TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN provider_ref TEXT NOT NULL DEFAULT '';
CREATE INDEX refunds_merchant_day ON refunds (merchant_id, livemode, currency, created_at) WHERE merchant_id != '';

-- A merchant's refund policy per currency (JSON: {"EUR": {"approval_above": "100", "daily_cap": "1000"}}).
ALTER TABLE merchants ADD COLUMN refund_policy TEXT NOT NULL DEFAULT '';

-- A fiat action that pays a merchant's refund ends 'failed' when the provider refuses it for
-- good (the refund failed; the merchant asks for another): never retried.
ALTER TABLE fiat_actions DROP CONSTRAINT fiat_actions_status_check;
ALTER TABLE fiat_actions ADD CONSTRAINT fiat_actions_status_check CHECK (status IN ('pending', 'done', 'needs_operator', 'resolved', 'failed'));

-- +goose Down
UPDATE fiat_actions SET status = 'resolved', resolved_note = 'failed: ' || last_error WHERE status = 'failed';
ALTER TABLE fiat_actions DROP CONSTRAINT fiat_actions_status_check;
ALTER TABLE fiat_actions ADD CONSTRAINT fiat_actions_status_check CHECK (status IN ('pending', 'done', 'needs_operator', 'resolved'));
DROP INDEX refunds_merchant_day;
ALTER TABLE merchants DROP COLUMN refund_policy;
ALTER TABLE refunds DROP COLUMN provider_ref;
ALTER TABLE refunds DROP COLUMN destination;
ALTER TABLE refunds DROP COLUMN currency;
ALTER TABLE refunds DROP COLUMN livemode;
ALTER TABLE refunds DROP COLUMN merchant_id;
