-- +goose Up
-- Named leases of the chain workers (watcher, executor, sweeper per network): the instance
-- holding one runs that worker; expires_at (microseconds) is when another may take it.
CREATE TABLE worker_leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE worker_leases;
