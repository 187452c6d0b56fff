-- +goose Up
-- The executor's poll reads only the paid orders (DEPOSIT_SUCCESS) of a network: an index of
-- those alone is written when an order is paid, not with every new order (one B-tree fewer
-- per order created; most orders are never paid, and the paid ones leave it when executed).
DROP INDEX orders_network_status;
CREATE INDEX orders_network_paid ON orders (network, updated_at, id) WHERE status = 'DEPOSIT_SUCCESS';

-- +goose Down
DROP INDEX orders_network_paid;
CREATE INDEX orders_network_status ON orders (network, status, updated_at, id);
