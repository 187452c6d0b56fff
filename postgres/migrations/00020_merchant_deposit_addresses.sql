-- +goose Up
-- Where each merchant receives each asset on each network: area C's orders send the asset the
-- user bought there. One address per (merchant, network, asset); setting another replaces it.
-- Addresses are EIP-55 hex.
CREATE TABLE merchant_deposit_addresses (
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    network     TEXT NOT NULL,
    symbol      TEXT NOT NULL,
    address     TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (merchant_id, network, symbol)
);

-- +goose Down
DROP TABLE merchant_deposit_addresses;
