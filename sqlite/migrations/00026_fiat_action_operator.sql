-- +goose Up
-- A fiat action the provider keeps refusing ends, after fiat.action_give_up_after, in
-- needs_operator: counted in /metrics, listed by the admin API and CLI, and retried
-- (pending again, its give-up clock from retry_from) or resolved by hand (resolved, with
-- resolved_note: what the operator did at the provider). SQLite cannot change a CHECK: the
-- table is made again.
CREATE TABLE fiat_actions_new (
    id              TEXT PRIMARY KEY,
    order_id        TEXT NOT NULL REFERENCES orders (id),
    payment_id      TEXT NOT NULL REFERENCES fiat_payments (id),
    kind            TEXT NOT NULL CHECK (kind IN ('capture', 'void', 'refund')),
    amount          TEXT NOT NULL,
    currency        TEXT NOT NULL,
    cause           TEXT NOT NULL,
    reason          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'done', 'needs_operator', 'resolved')),
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
    last_error, next_attempt_at, lease_until, created_at, updated_at)
SELECT id, order_id, payment_id, kind, amount, currency, cause, reason, status, provider_ref, attempts,
    last_error, next_attempt_at, lease_until, created_at, updated_at FROM fiat_actions;
DROP TABLE fiat_actions;
ALTER TABLE fiat_actions_new RENAME TO fiat_actions;
CREATE INDEX fiat_actions_due ON fiat_actions (next_attempt_at) WHERE status = 'pending';
CREATE INDEX fiat_actions_operator ON fiat_actions (updated_at, id) WHERE status = 'needs_operator';

-- +goose Down
DROP INDEX fiat_actions_operator;
UPDATE fiat_actions SET status = 'pending' WHERE status = 'needs_operator';
UPDATE fiat_actions SET status = 'done' WHERE status = 'resolved';
ALTER TABLE fiat_actions DROP COLUMN resolved_note;
ALTER TABLE fiat_actions DROP COLUMN retry_from;
