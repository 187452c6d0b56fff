-- +goose Up
-- The ledger (docs/ledger.md): every movement of value as a double-entry transfer, written in
-- the transaction that records the movement. id makes it once ("tx:<network>:<hash>:fee",
-- "deposit:<network>:<hash>:<log>", "fiat:action:<id>", ...). amount is a positive integer in
-- the asset's base units, as decimal text.
CREATE TABLE ledger_transfers (
    id           TEXT PRIMARY KEY,
    network      TEXT NOT NULL,
    asset        TEXT NOT NULL,
    debit        TEXT NOT NULL,
    credit       TEXT NOT NULL,
    amount       TEXT NOT NULL,
    block_number INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    ref          TEXT NOT NULL,
    -- note: what an operator said of an adjustment (an accepted drift).
    note         TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX ledger_transfers_debit ON ledger_transfers (debit, asset, block_number);
CREATE INDEX ledger_transfers_credit ON ledger_transfers (credit, asset, block_number);
CREATE INDEX ledger_transfers_ref ON ledger_transfers (ref);
CREATE INDEX ledger_transfers_created ON ledger_transfers (created_at);
CREATE INDEX ledger_transfers_block ON ledger_transfers (network, block_number);

-- The accounts rampway holds (hot wallets, deposit addresses, provider balances). opened is 0
-- for one whose ledger starts at the chain's balance when it is first reconciled (a hot
-- wallet, funded outside rampway); opened_block is that block.
CREATE TABLE ledger_accounts (
    account      TEXT PRIMARY KEY,
    network      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    address      TEXT NOT NULL,
    opened       INTEGER NOT NULL,
    opened_block INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX ledger_accounts_address ON ledger_accounts (network, address);

-- Each held account's balance per asset, the sum of its transfers (decimal text), and a
-- count of the transfers that moved it: the reconciliation checks those whose count moved
-- since it last looked (checked_moves).
CREATE TABLE ledger_balances (
    account       TEXT NOT NULL,
    asset         TEXT NOT NULL,
    network       TEXT NOT NULL,
    balance       TEXT NOT NULL,
    moves         INTEGER NOT NULL DEFAULT 0,
    checked_moves INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (account, asset)
) STRICT;

CREATE INDEX ledger_balances_unchecked ON ledger_balances (network, account) WHERE moves != checked_moves;
CREATE INDEX ledger_balances_held ON ledger_balances (network, account) WHERE balance != '0';

-- What the held accounts hold in all, per asset (the report's "held").
CREATE TABLE ledger_held (
    asset   TEXT PRIMARY KEY,
    balance TEXT NOT NULL
) STRICT;

CREATE INDEX ledger_accounts_kind ON ledger_accounts (network, kind);
CREATE INDEX ledger_accounts_unopened ON ledger_accounts (network) WHERE NOT opened;
-- Differences between the ledger and the chain, standing until they agree again.
CREATE TABLE ledger_drifts (
    account      TEXT NOT NULL,
    asset        TEXT NOT NULL,
    network      TEXT NOT NULL,
    address      TEXT NOT NULL,
    block_number INTEGER NOT NULL,
    ledger       TEXT NOT NULL,
    chain        TEXT NOT NULL,
    first_seen   INTEGER NOT NULL,
    last_seen    INTEGER NOT NULL,
    PRIMARY KEY (account, asset)
) STRICT;

-- Each network's last reconciliation.
CREATE TABLE ledger_reconciled (
    network      TEXT PRIMARY KEY,
    block_number INTEGER NOT NULL,
    checked_at   INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE ledger_reconciled;
DROP TABLE ledger_drifts;
DROP TABLE ledger_held;
DROP TABLE ledger_balances;
DROP TABLE ledger_accounts;
DROP TABLE ledger_transfers;
