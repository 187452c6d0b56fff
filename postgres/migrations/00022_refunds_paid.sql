-- +goose Up
-- Refunds are paid on chain: a refund may wait for an address or an operator's approval, is
-- sent (its transaction in chain_txs, kind 'refund', ref the refund's id) and ends paid
-- ('done'), reverted ('failed') or not sent at all ('dust').
ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_status_check
    CHECK (status IN ('pending', 'awaiting_address', 'awaiting_approval', 'sent', 'done', 'failed', 'dust'));
ALTER TABLE refunds ADD COLUMN to_source TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN fee TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN sent TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN status_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN tx_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN approved_by TEXT NOT NULL DEFAULT '';
ALTER TABLE refunds ADD COLUMN approved_at TIMESTAMPTZ;
UPDATE refunds SET to_source = 'payer' WHERE to_address <> '';
CREATE INDEX refunds_order ON refunds (order_id, created_at);
-- A refund's transaction is kind 'refund' (ref: the refund's id).
ALTER TABLE chain_txs DROP CONSTRAINT chain_txs_kind_check;
ALTER TABLE chain_txs ADD CONSTRAINT chain_txs_kind_check CHECK (kind IN ('approve', 'call', 'sweep', 'gas', 'refund'));

-- +goose Down
DELETE FROM chain_txs WHERE kind = 'refund';
ALTER TABLE chain_txs DROP CONSTRAINT chain_txs_kind_check;
ALTER TABLE chain_txs ADD CONSTRAINT chain_txs_kind_check CHECK (kind IN ('approve', 'call', 'sweep', 'gas'));
DROP INDEX refunds_order;
UPDATE refunds SET status = 'pending' WHERE status NOT IN ('pending', 'sent', 'done');
ALTER TABLE refunds DROP COLUMN approved_at;
ALTER TABLE refunds DROP COLUMN approved_by;
ALTER TABLE refunds DROP COLUMN tx_hash;
ALTER TABLE refunds DROP COLUMN status_reason;
ALTER TABLE refunds DROP COLUMN sent;
ALTER TABLE refunds DROP COLUMN fee;
ALTER TABLE refunds DROP COLUMN to_source;
ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_status_check CHECK (status IN ('pending', 'sent', 'done'));
