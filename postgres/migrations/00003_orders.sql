-- +goose Up
-- Amounts are integers in base units, kept as decimal text (they exceed 64 bits).
CREATE TABLE orders (
    id                    TEXT PRIMARY KEY,
    merchant_id           TEXT NOT NULL REFERENCES merchants (id),
    area                  TEXT NOT NULL,
    status                TEXT NOT NULL,
    merchant_user_id      TEXT NOT NULL,
    merchant_txn_id       TEXT NOT NULL DEFAULT '',
    merchant_redirect_url TEXT NOT NULL,
    merchant_webhook_url  TEXT NOT NULL DEFAULT '',
    user_info             TEXT NOT NULL DEFAULT '{}',
    network               TEXT NOT NULL DEFAULT '',
    asset_symbol          TEXT NOT NULL DEFAULT '',
    asset_contract        TEXT NOT NULL DEFAULT '',
    asset_decimals        BIGINT NOT NULL DEFAULT 0,
    crypto_amount         TEXT NOT NULL DEFAULT '0',
    crypto_received       TEXT NOT NULL DEFAULT '0',
    function_id           TEXT NOT NULL DEFAULT '',
    function_args         TEXT NOT NULL DEFAULT '{}',
    payment_value         TEXT NOT NULL DEFAULT '0',
    gas_limit             BIGINT NOT NULL DEFAULT 0,
    network_fee           TEXT NOT NULL DEFAULT '0',
    service_fee           TEXT NOT NULL DEFAULT '0',
    deposit_address       TEXT,
    deposit_index         BIGINT,
    execution_tx_hash     TEXT NOT NULL DEFAULT '',
    failure_reason        TEXT NOT NULL DEFAULT '',
    expires_at            TIMESTAMPTZ NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE INDEX orders_merchant_created ON orders (merchant_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX orders_deposit_address ON orders (deposit_address) WHERE deposit_address IS NOT NULL;
CREATE INDEX orders_status ON orders (status, expires_at);

-- seq orders the events of an order as they happened (webhooks go out in that order).
CREATE TABLE order_events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    order_id    TEXT NOT NULL REFERENCES orders (id),
    merchant_id TEXT NOT NULL,
    name        TEXT NOT NULL,
    from_status TEXT NOT NULL,
    to_status   TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX order_events_order ON order_events (order_id, seq);

-- Counters handed out once each (HD derivation indexes).
CREATE TABLE sequences (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);

INSERT INTO sequences (name, value) VALUES ('deposit_index', 0);

-- +goose Down
DROP TABLE sequences;
DROP TABLE order_events;
DROP TABLE orders;
