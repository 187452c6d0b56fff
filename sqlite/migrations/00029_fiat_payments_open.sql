-- +goose Up
-- The start-up check that every provider holding open payments is still configured reads the
-- open payments by this index (and the payments with an open action by fiat_actions' own),
-- instead of every payment ever made with a lookup of its actions each.
CREATE INDEX fiat_payments_open ON fiat_payments (provider, id) WHERE status IN ('pending', 'processing', 'authorized');

-- +goose Down
DROP INDEX fiat_payments_open;
