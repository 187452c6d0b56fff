-- +goose Up
-- Deposit derivation indexes from a sequence: every order took a row lock on the counter and
-- a commit to get one. nextval never hands out a value twice (a rolled-back order leaves a gap,
-- which is fine: an index must never be reused, not be dense). Continues after the counter.
CREATE SEQUENCE deposit_index_seq MINVALUE 1;
SELECT setval('deposit_index_seq', (SELECT value FROM sequences WHERE name = 'deposit_index') + 1, false);

-- +goose Down
UPDATE sequences SET value = GREATEST(value, (SELECT last_value FROM deposit_index_seq)) WHERE name = 'deposit_index';
DROP SEQUENCE deposit_index_seq;
