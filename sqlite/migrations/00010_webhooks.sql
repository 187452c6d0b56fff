-- +goose Up
-- The webhook outbox: a delivery is written in the same transaction as the order event it
-- carries (when the order has a webhook URL and its merchant a secret), with its body fixed.
CREATE TABLE webhook_deliveries (
    event_id         TEXT PRIMARY KEY REFERENCES order_events (id),
    event_seq        INTEGER NOT NULL,
    event_name       TEXT NOT NULL,
    order_id         TEXT NOT NULL REFERENCES orders (id),
    merchant_id      TEXT NOT NULL,
    url              TEXT NOT NULL,
    body             BLOB NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,
    lease_until      INTEGER,
    last_status_code INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    delivered_at     INTEGER
) STRICT;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
-- The claim walks the pending ones in due order and stops at its limit.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, event_seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_order ON webhook_deliveries (order_id, event_seq);

-- Every POST of a delivery: the delivery log merchants and operators read.
CREATE TABLE webhook_attempts (
    event_id    TEXT NOT NULL REFERENCES webhook_deliveries (event_id),
    attempt     INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    latency_us  INTEGER NOT NULL,
    error       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (event_id, attempt)
) STRICT;

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
