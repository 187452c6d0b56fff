-- +goose Up
-- Invitations to a merchant's dashboard: id is the SHA-256 (hex) of the token only the link
-- holds; used once (used_at, user_id), until expires_at.
CREATE TABLE dashboard_invitations (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants (id),
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'developer', 'support', 'viewer')),
    invited_by  TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    user_id     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX dashboard_invitations_merchant ON dashboard_invitations (merchant_id, created_at);

-- Sign-ins whose password was right, waiting for the user's TOTP code: id is the SHA-256
-- (hex) of the token only the second step's form holds.
CREATE TABLE dashboard_login_challenges (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_login_challenges_expires ON dashboard_login_challenges (expires_at);
CREATE INDEX dashboard_login_challenges_user ON dashboard_login_challenges (user_id);

-- A user's sessions, ended together (disabled, a new password).
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);

-- The time step of the last TOTP code a user signed in with: a code is good once.
ALTER TABLE dashboard_users ADD COLUMN totp_step BIGINT NOT NULL DEFAULT 0;

-- +goose Down
DROP INDEX dashboard_sessions_user;
ALTER TABLE dashboard_users DROP COLUMN totp_step;
DROP TABLE dashboard_login_challenges;
DROP TABLE dashboard_invitations;
