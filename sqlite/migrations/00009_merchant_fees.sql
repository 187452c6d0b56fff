-- +goose Up
-- A merchant's own service fee in basis points of the paid value; NULL means the configured
-- default (checkout.service_fee_bps).
ALTER TABLE merchants ADD COLUMN service_fee_bps INTEGER CHECK (service_fee_bps BETWEEN 0 AND 10000);

-- +goose Down
ALTER TABLE merchants DROP COLUMN service_fee_bps;
