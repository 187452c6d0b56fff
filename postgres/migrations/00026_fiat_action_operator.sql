-- +goose Up
-- A fiat action the provider keeps refusing ends, after fiat.action_give_up_after, in
-- needs_operator: counted in /metrics, listed by the admin API and CLI, and retried
-- (pending again, its give-up clock from retry_from) or resolved by hand (resolved, with
-- resolved_note: what the operator did at the provider).
ALTER TABLE fiat_actions DROP CONSTRAINT fiat_actions_status_check;
ALTER TABLE fiat_actions ADD CONSTRAINT fiat_actions_status_check CHECK (status IN ('pending', 'done', 'needs_operator', 'resolved'));
ALTER TABLE fiat_actions ADD COLUMN retry_from TIMESTAMPTZ;
ALTER TABLE fiat_actions ADD COLUMN resolved_note TEXT NOT NULL DEFAULT '';
CREATE INDEX fiat_actions_operator ON fiat_actions (updated_at, id) WHERE status = 'needs_operator';

-- +goose Down
DROP INDEX fiat_actions_operator;
UPDATE fiat_actions SET status = 'pending' WHERE status = 'needs_operator';
UPDATE fiat_actions SET status = 'done' WHERE status = 'resolved';
ALTER TABLE fiat_actions DROP COLUMN resolved_note;
ALTER TABLE fiat_actions DROP COLUMN retry_from;
ALTER TABLE fiat_actions DROP CONSTRAINT fiat_actions_status_check;
ALTER TABLE fiat_actions ADD CONSTRAINT fiat_actions_status_check CHECK (status IN ('pending', 'done'));
