-- +goose Up
-- POST responses remembered by Idempotency-Key, per merchant (kept at least 24 hours).
CREATE TABLE idempotency_keys (
    merchant_id     TEXT NOT NULL,
    key             TEXT NOT NULL,
    request_hash    BYTEA NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    response_status INTEGER NOT NULL DEFAULT 0,
    response_body   BYTEA,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (merchant_id, key)
);

-- +goose Down
DROP TABLE idempotency_keys;
