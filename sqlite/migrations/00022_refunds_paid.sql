-- +goose Up
-- Refunds are paid on chain: a refund may wait for an address or an operator's approval, is
-- sent (its transaction in chain_txs, kind 'refund', ref the refund's id) and ends paid
-- ('done'), reverted ('failed') or not sent at all ('dust'). SQLite cannot change a CHECK:
-- the table is rebuilt with the new columns.
CREATE TABLE refunds_new (
    id            TEXT PRIMARY KEY,
    order_id      TEXT NOT NULL REFERENCES orders (id),
    cause         TEXT NOT NULL,
    network       TEXT NOT NULL,
    token         TEXT NOT NULL DEFAULT '',
    to_address    TEXT NOT NULL DEFAULT '',
    to_source     TEXT NOT NULL DEFAULT '',
    amount        TEXT NOT NULL,
    fee           TEXT NOT NULL DEFAULT '',
    sent          TEXT NOT NULL DEFAULT '',
    reason        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'awaiting_address', 'awaiting_approval', 'sent', 'done', 'failed', 'dust')),
    status_reason TEXT NOT NULL DEFAULT '',
    tx_hash       TEXT NOT NULL DEFAULT '',
    approved_by   TEXT NOT NULL DEFAULT '',
    approved_at   INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (order_id, cause)
) STRICT;
INSERT INTO refunds_new (id, order_id, cause, network, token, to_address, to_source, amount, reason, status, created_at, updated_at)
    SELECT id, order_id, cause, network, token, to_address, CASE WHEN to_address = '' THEN '' ELSE 'payer' END, amount, reason, status, created_at, updated_at
    FROM refunds;
DROP TABLE refunds;
ALTER TABLE refunds_new RENAME TO refunds;
CREATE INDEX refunds_status ON refunds (status, created_at);
CREATE INDEX refunds_order ON refunds (order_id, created_at);

-- A refund's transaction is kind 'refund' (ref: the refund's id).
CREATE TABLE chain_txs_new (
    hash       TEXT PRIMARY KEY,
    network    TEXT NOT NULL,
    wallet     TEXT NOT NULL,
    nonce      INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('approve', 'call', 'sweep', 'gas', 'refund')),
    -- ref is what the transaction serves: an order (approve, call), a sweep (gas, sweep) or a refund.
    ref        TEXT NOT NULL DEFAULT '',
    raw        BLOB NOT NULL,
    sent_block INTEGER NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'mined', 'replaced')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
INSERT INTO chain_txs_new SELECT hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at, updated_at FROM chain_txs;
DROP TABLE chain_txs;
ALTER TABLE chain_txs_new RENAME TO chain_txs;
CREATE INDEX chain_txs_pending ON chain_txs (network, status, wallet, nonce);
CREATE INDEX chain_txs_ref ON chain_txs (ref);
CREATE INDEX chain_txs_nonce ON chain_txs (network, wallet, nonce);

-- +goose Down
CREATE TABLE chain_txs_old (
    hash       TEXT PRIMARY KEY,
    network    TEXT NOT NULL,
    wallet     TEXT NOT NULL,
    nonce      INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('approve', 'call', 'sweep', 'gas')),
    ref        TEXT NOT NULL DEFAULT '',
    raw        BLOB NOT NULL,
    sent_block INTEGER NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'mined', 'replaced')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
INSERT INTO chain_txs_old SELECT hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at, updated_at FROM chain_txs WHERE kind <> 'refund';
DROP TABLE chain_txs;
ALTER TABLE chain_txs_old RENAME TO chain_txs;
CREATE INDEX chain_txs_pending ON chain_txs (network, status, wallet, nonce);
CREATE INDEX chain_txs_ref ON chain_txs (ref);
CREATE INDEX chain_txs_nonce ON chain_txs (network, wallet, nonce);
CREATE TABLE refunds_old (
    id         TEXT PRIMARY KEY,
    order_id   TEXT NOT NULL REFERENCES orders (id),
    cause      TEXT NOT NULL,
    network    TEXT NOT NULL,
    token      TEXT NOT NULL DEFAULT '',
    to_address TEXT NOT NULL DEFAULT '',
    amount     TEXT NOT NULL,
    reason     TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'done')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (order_id, cause)
) STRICT;
INSERT INTO refunds_old SELECT id, order_id, cause, network, token, to_address, amount, reason,
    CASE WHEN status IN ('pending', 'sent', 'done') THEN status ELSE 'pending' END, created_at, updated_at FROM refunds;
DROP TABLE refunds;
ALTER TABLE refunds_old RENAME TO refunds;
CREATE INDEX refunds_status ON refunds (status, created_at);
