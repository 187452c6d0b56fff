-- +goose Up
-- Where each merchant receives each asset on each network: area C's orders send the asset the
-- user bought there. One address per (merchant, network, asset); setting another replaces it.
-- Addresses are EIP-55 hex. Times are integer microseconds since the Unix epoch, UTC.
CREATE TABLE merchant_deposit_addresses (
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    network     TEXT NOT NULL,
    symbol      TEXT NOT NULL,
    address     TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (merchant_id, network, symbol)
) STRICT;

-- +goose Down
DROP TABLE merchant_deposit_addresses;
