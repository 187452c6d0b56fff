-- +goose Up
-- Sweeps move confirmed deposits to the treasury; each confirmed transfer is claimed by one.
CREATE TABLE sweeps (
    id            TEXT PRIMARY KEY,
    network       TEXT NOT NULL,
    address       TEXT NOT NULL,
    deposit_index INTEGER NOT NULL,
    token         TEXT NOT NULL DEFAULT '',
    amount        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('funding', 'funded', 'sent', 'done', 'skipped', 'failed')),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX sweeps_status ON sweeps (network, status);
CREATE INDEX sweeps_address ON sweeps (network, address);

ALTER TABLE inbound_transfers ADD COLUMN sweep_id TEXT NOT NULL DEFAULT '';
CREATE INDEX inbound_transfers_unswept ON inbound_transfers (network, status, sweep_id);

-- +goose Down
DROP INDEX inbound_transfers_unswept;
ALTER TABLE inbound_transfers DROP COLUMN sweep_id;
DROP TABLE sweeps;
