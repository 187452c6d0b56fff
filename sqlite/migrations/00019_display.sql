-- +goose Up
-- What the hosted checkout page shows, as a shop would: the merchant's logo beside its name,
-- and a registered function's display name and image. '' means none (the page names the
-- function by its ABI name and shows no image).
ALTER TABLE merchants ADD COLUMN logo_url TEXT NOT NULL DEFAULT '';
ALTER TABLE contract_functions ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
ALTER TABLE contract_functions ADD COLUMN image_url TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE contract_functions DROP COLUMN image_url;
ALTER TABLE contract_functions DROP COLUMN display_name;
ALTER TABLE merchants DROP COLUMN logo_url;
