-- +goose Up
-- POST responses remembered by Idempotency-Key, per merchant (kept at least 24 hours).
CREATE TABLE idempotency_keys (
    merchant_id     TEXT NOT NULL,
    key             TEXT NOT NULL,
    request_hash    BLOB NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    response_status INTEGER NOT NULL DEFAULT 0,
    response_body   BLOB,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (merchant_id, key)
) STRICT;

-- +goose Down
DROP TABLE idempotency_keys;
