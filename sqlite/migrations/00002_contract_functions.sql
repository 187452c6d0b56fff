-- +goose Up
CREATE TABLE contract_functions (
    id                TEXT PRIMARY KEY,
    merchant_id       TEXT NOT NULL REFERENCES merchants (id),
    network           TEXT NOT NULL,
    contract_address  TEXT NOT NULL,
    abi               TEXT NOT NULL,
    signature         TEXT NOT NULL,
    default_gas_limit INTEGER NOT NULL CHECK (default_gas_limit > 0),
    payable_symbol    TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
) STRICT;

CREATE INDEX contract_functions_merchant ON contract_functions (merchant_id, created_at);

-- +goose Down
DROP TABLE contract_functions;
