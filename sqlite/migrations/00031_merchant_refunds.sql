-- +goose Up
-- Refunds a merchant asks for (whole or partial, every area): a refund record knows the
-- merchant that asked (merchant_id, '' for the refunds rampway owes on its own), its order's
-- mode, its currency, where a fiat refund goes (destination) and the provider's id of it.
-- refunds_merchant_day finds what a merchant refunded today (its daily cap).
ALTER TABLE refunds ADD COLUMN merchant_id TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN livemode INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refunds ADD COLUMN currency TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN destination TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN provider_ref TEXT NOT NULL DEFAULT '';
CREATE INDEX refunds_merchant_day ON refunds (merchant_id, livemode, currency, created_at) WHERE merchant_id != '';

-- A merchant's refund policy per currency (JSON: {"EUR": {"approval_above": "100", "daily_cap": "1000"}}).
ALTER TABLE merchants ADD COLUMN refund_policy TEXT NOT NULL DEFAULT '';

-- A fiat action that pays a merchant's refund ends 'failed' when the provider refuses it for
-- good (the refund failed; the merchant asks for another): never retried. SQLite cannot
-- change a CHECK: the table is made again.
CREATE TABLE fiat_actions_new (
    id              TEXT PRIMARY KEY,
    order_id        TEXT NOT NULL REFERENCES orders (id),
    payment_id      TEXT NOT NULL REFERENCES fiat_payments (id),
    kind            TEXT NOT NULL CHECK (kind IN ('capture', 'void', 'refund')),
    amount          TEXT NOT NULL,
    currency        TEXT NOT NULL,
    cause           TEXT NOT NULL,
    reason          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'done', 'needs_operator', 'resolved', 'failed')),
    provider_ref    TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    next_attempt_at INTEGER NOT NULL,
    lease_until     INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    retry_from      INTEGER,
    resolved_note   TEXT NOT NULL DEFAULT '',
    UNIQUE (order_id, cause)
) STRICT;
INSERT INTO fiat_actions_new (id, order_id, payment_id, kind, amount, currency, cause, reason, status, provider_ref, attempts,
    last_error, next_attempt_at, lease_until, created_at, updated_at, retry_from, resolved_note)
SELECT id, order_id, payment_id, kind, amount, currency, cause, reason, status, provider_ref, attempts,
    last_error, next_attempt_at, lease_until, created_at, updated_at, retry_from, resolved_note FROM fiat_actions;
DROP TABLE fiat_actions;
ALTER TABLE fiat_actions_new RENAME TO fiat_actions;
CREATE INDEX fiat_actions_due ON fiat_actions (next_attempt_at) WHERE status = 'pending';
CREATE INDEX fiat_actions_status ON fiat_actions (status, updated_at, id);

-- +goose Down
UPDATE fiat_actions SET status = 'resolved', resolved_note = 'failed: ' || last_error WHERE status = 'failed';
DROP INDEX refunds_merchant_day;
ALTER TABLE merchants DROP COLUMN refund_policy;
ALTER TABLE refunds DROP COLUMN provider_ref;
ALTER TABLE refunds DROP COLUMN destination;
ALTER TABLE refunds DROP COLUMN currency;
ALTER TABLE refunds DROP COLUMN livemode;
ALTER TABLE refunds DROP COLUMN merchant_id;
