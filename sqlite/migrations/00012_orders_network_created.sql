-- +goose Up
-- The deposit watcher adds the orders created since its last full load of the watched set.
CREATE INDEX orders_network_created ON orders (network, created_at);

-- +goose Down
DROP INDEX orders_network_created;
