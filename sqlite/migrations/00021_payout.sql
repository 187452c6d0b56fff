-- +goose Up
-- Area C: the merchant's deposit address an order sends its asset to.
ALTER TABLE orders ADD COLUMN payout_address TEXT NOT NULL DEFAULT '';
-- An area C order created without a payment method keeps each method's quote (JSON) until the
-- user chooses on the page: the choice takes the quote the user saw.
ALTER TABLE orders ADD COLUMN method_quotes TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE orders DROP COLUMN method_quotes;
ALTER TABLE orders DROP COLUMN payout_address;
