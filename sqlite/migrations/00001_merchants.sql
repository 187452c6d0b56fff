-- +goose Up
-- Times are integer microseconds since the Unix epoch, UTC.
CREATE TABLE merchants (
    id                    TEXT PRIMARY KEY,
    name                  TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    webhook_url           TEXT NOT NULL DEFAULT '',
    webhook_secret        TEXT NOT NULL DEFAULT '',
    webhook_secret_set_at INTEGER,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    prefix      TEXT NOT NULL UNIQUE,
    hash        BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
) STRICT;

CREATE INDEX api_keys_merchant ON api_keys (merchant_id, created_at);

-- +goose Down
DROP TABLE api_keys;
DROP TABLE merchants;
