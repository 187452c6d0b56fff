-- +goose Up
-- Every transaction rampway signs, replacements included (several per nonce when a stuck one
-- is re-priced), stored before it is broadcast. A nonce is settled when one of its
-- transactions is mined deep enough: that one becomes 'mined', the others 'replaced'.
CREATE TABLE chain_txs (
    hash       TEXT PRIMARY KEY,
    network    TEXT NOT NULL,
    wallet     TEXT NOT NULL,
    nonce      BIGINT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('approve', 'call', 'sweep', 'gas')),
    -- ref is what the transaction serves: an order (approve, call) or a sweep (gas, sweep).
    ref        TEXT NOT NULL DEFAULT '',
    raw        BYTEA NOT NULL,
    sent_block BIGINT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'mined', 'replaced')),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX chain_txs_pending ON chain_txs (network, status, wallet, nonce);
CREATE INDEX chain_txs_ref ON chain_txs (ref);
CREATE INDEX chain_txs_nonce ON chain_txs (network, wallet, nonce);

-- Executions keep their signed transactions in chain_txs from now on.
INSERT INTO chain_txs (hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at, updated_at)
SELECT approve_tx_hash, network, wallet, nonce - 1, 'approve', order_id, approve_raw, 0,
       CASE status WHEN 'sent' THEN 'pending' ELSE 'mined' END, created_at, updated_at
  FROM executions WHERE approve_tx_hash != '';
INSERT INTO chain_txs (hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at, updated_at)
SELECT tx_hash, network, wallet, nonce, 'call', order_id, raw_tx, 0,
       CASE status WHEN 'sent' THEN 'pending' ELSE 'mined' END, created_at, updated_at
  FROM executions;
ALTER TABLE executions DROP COLUMN approve_tx_hash;
ALTER TABLE executions DROP COLUMN approve_raw;
ALTER TABLE executions DROP COLUMN raw_tx;

-- Who paid: refunds go back to the sender.
ALTER TABLE inbound_transfers ADD COLUMN from_address TEXT NOT NULL DEFAULT '';

-- Money owed back to a payer: an overpayment's excess, a payment after expiry, the payment of
-- an order that failed. One row per cause of an order ('failed', or 'transfer:<tx>:<log>').
CREATE TABLE refunds (
    id         TEXT PRIMARY KEY,
    order_id   TEXT NOT NULL REFERENCES orders (id),
    cause      TEXT NOT NULL,
    network    TEXT NOT NULL,
    token      TEXT NOT NULL DEFAULT '',
    to_address TEXT NOT NULL DEFAULT '',
    amount     TEXT NOT NULL,
    reason     TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'done')),
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (order_id, cause)
);

CREATE INDEX refunds_status ON refunds (status, created_at);

-- +goose Down
DROP TABLE refunds;
ALTER TABLE inbound_transfers DROP COLUMN from_address;
ALTER TABLE executions ADD COLUMN approve_tx_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE executions ADD COLUMN approve_raw BYTEA;
ALTER TABLE executions ADD COLUMN raw_tx BYTEA NOT NULL DEFAULT ''::bytea;
UPDATE executions SET raw_tx = (SELECT raw FROM chain_txs WHERE chain_txs.hash = executions.tx_hash);
DROP TABLE chain_txs;
