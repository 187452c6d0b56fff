-- +goose Up
-- Payments seen arriving at deposit addresses. (network, tx_hash, log_index) is the transfer's
-- identity: a transfer is recorded, and credited, once.
CREATE TABLE inbound_transfers (
    network      TEXT NOT NULL,
    tx_hash      TEXT NOT NULL,
    log_index    BIGINT NOT NULL,
    order_id     TEXT NOT NULL REFERENCES orders (id),
    token        TEXT NOT NULL DEFAULT '',
    to_address   TEXT NOT NULL,
    amount       TEXT NOT NULL,
    block_number BIGINT NOT NULL,
    block_hash   TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('seen', 'confirmed', 'dropped')),
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (network, tx_hash, log_index)
);

CREATE INDEX inbound_transfers_pending ON inbound_transfers (network, status, block_number);
CREATE INDEX inbound_transfers_order ON inbound_transfers (order_id);

CREATE TABLE watch_cursors (
    network      TEXT PRIMARY KEY,
    block_number BIGINT NOT NULL,
    block_hash   TEXT NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE watch_cursors;
DROP TABLE inbound_transfers;
