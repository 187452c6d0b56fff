-- +goose Up
-- How a fiat-paid order's amount was priced (JSON: the prices, subtotal, spread and method fee
-- of its quote), shown on the hosted checkout page; '' for none.
ALTER TABLE orders ADD COLUMN fiat_pricing TEXT NOT NULL DEFAULT '';

-- The hosted page's visits that recorded an event (user.widget.close): one row each, so that
-- a visit records it once, whatever the browser sends.
CREATE TABLE checkout_visits (
    order_id   TEXT NOT NULL REFERENCES orders (id),
    name       TEXT NOT NULL,
    visit      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (order_id, name, visit)
) STRICT;

-- +goose Down
DROP TABLE checkout_visits;
ALTER TABLE orders DROP COLUMN fiat_pricing;
