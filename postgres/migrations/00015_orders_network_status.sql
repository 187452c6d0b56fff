-- +goose Up
-- The executor's poll (orders of a network in one status, oldest change first).
CREATE INDEX orders_network_status ON orders (network, status, updated_at, id);
-- The watcher's read of the orders created since its last full load, answered from the index.
DROP INDEX orders_network_created;
CREATE INDEX orders_network_created ON orders (network, created_at) INCLUDE (id, deposit_address, asset_contract);

-- +goose Down
DROP INDEX orders_network_created;
CREATE INDEX orders_network_created ON orders (network, created_at);
DROP INDEX orders_network_status;
