-- +goose Up
-- Area C: the merchant's deposit address an order sends its asset to.
ALTER TABLE orders ADD COLUMN payout_address TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE orders DROP COLUMN payout_address;
