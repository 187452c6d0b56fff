-- +goose Up
-- The dashboard's search of a merchant's orders matches each key exactly, through an index of
-- its own, so that a search answers as fast among a million orders as among ten. The keys on
-- the order are per merchant and mode; the merchant_txn_id and provider references, which most
-- rows lack, are partial indexes (the queries repeat their condition). The deposit address
-- index comes back (00016 dropped it when no query read an order by its address): one more
-- index written per area A order is the price of finding an order by the address it was paid
-- to. A transaction rampway signed is found by chain_txs' primary key (ref: the order).
CREATE INDEX orders_merchant_txn ON orders (merchant_id, livemode, merchant_txn_id) WHERE merchant_txn_id != '';
CREATE INDEX orders_merchant_user ON orders (merchant_id, livemode, merchant_user_id) WHERE merchant_user_id != '';
CREATE INDEX orders_deposit_address ON orders (deposit_address) WHERE deposit_address IS NOT NULL;
CREATE INDEX inbound_transfers_tx ON inbound_transfers (tx_hash);
CREATE INDEX fiat_payments_provider_ref ON fiat_payments (provider_ref) WHERE provider_ref != '';
CREATE INDEX refunds_provider_ref ON refunds (provider_ref) WHERE provider_ref != '';

-- +goose Down
DROP INDEX refunds_provider_ref;
DROP INDEX fiat_payments_provider_ref;
DROP INDEX inbound_transfers_tx;
DROP INDEX orders_deposit_address;
DROP INDEX orders_merchant_user;
DROP INDEX orders_merchant_txn;
