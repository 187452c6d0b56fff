-- +goose Up
-- PostgreSQL moves deposit indexes to a sequence in this migration; SQLite keeps its counter
-- row (its writes are serialised anyway). Kept so both stores share migration numbers.
SELECT 1;

-- +goose Down
SELECT 1;
