-- +goose Up
-- A deposit address is derived from its index (BIP-32, never reused): the index being unique
-- keeps the addresses unique. The address index took every new order into a random leaf of a
-- B-tree (addresses are hashes), one more page written per order, and no query looks an order
-- up by its address (the watcher matches addresses in memory); indexes grow in order.
DROP INDEX orders_deposit_address;
CREATE UNIQUE INDEX orders_deposit_index ON orders (deposit_index) WHERE deposit_index IS NOT NULL;

-- +goose Down
DROP INDEX orders_deposit_index;
CREATE UNIQUE INDEX orders_deposit_address ON orders (deposit_address) WHERE deposit_address IS NOT NULL;
