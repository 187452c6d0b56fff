-- +goose Up
CREATE TABLE merchants (
    id                    TEXT PRIMARY KEY,
    name                  TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    webhook_url           TEXT NOT NULL DEFAULT '',
    webhook_secret        TEXT NOT NULL DEFAULT '',
    webhook_secret_set_at TIMESTAMPTZ,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    prefix      TEXT NOT NULL UNIQUE,
    hash        BYTEA NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    revoked_at  TIMESTAMPTZ
);

CREATE INDEX api_keys_merchant ON api_keys (merchant_id, created_at);

-- +goose Down
DROP TABLE api_keys;
DROP TABLE merchants;
