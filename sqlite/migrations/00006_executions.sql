-- +goose Up
-- The next nonce of each hot wallet on each network.
CREATE TABLE wallet_nonces (
    network TEXT NOT NULL,
    wallet  TEXT NOT NULL,
    next    INTEGER NOT NULL,
    PRIMARY KEY (network, wallet)
) STRICT;

-- One execution per order (the primary key makes a second one impossible); the signed
-- transactions are stored before they are broadcast.
CREATE TABLE executions (
    order_id        TEXT PRIMARY KEY REFERENCES orders (id),
    network         TEXT NOT NULL,
    wallet          TEXT NOT NULL,
    nonce           INTEGER NOT NULL,
    approve_tx_hash TEXT NOT NULL DEFAULT '',
    approve_raw     BLOB,
    tx_hash         TEXT NOT NULL,
    raw_tx          BLOB NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('sent', 'succeeded', 'failed')),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX executions_sent ON executions (network, status);

-- +goose Down
DROP TABLE executions;
DROP TABLE wallet_nonces;
