-- +goose Up
-- The executor's poll (orders of a network in one status, oldest change first): without it
-- SQLite walked every order of the network at each poll.
CREATE INDEX orders_network_status ON orders (network, status, updated_at, id);

-- +goose Down
DROP INDEX orders_network_status;
