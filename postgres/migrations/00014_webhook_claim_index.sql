-- +goose Up
-- SQLite's claim index changes in this migration (its planner has no statistics to choose
-- the pending index by); PostgreSQL's planner picks the pending index of 00010 on its own.
-- Kept so both stores share migration numbers.
SELECT 1;

-- +goose Down
SELECT 1;
