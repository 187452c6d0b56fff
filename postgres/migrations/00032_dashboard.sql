-- +goose Up
-- The dashboard's users: per merchant with a role, or an operator (merchant_id ''; no
-- reference to merchants for that reason: the store checks the merchant). The email is the
-- sign-in name, normalised, unique; the password an argon2id hash in its encoded form.
CREATE TABLE dashboard_users (
    id            TEXT PRIMARY KEY,
    merchant_id   TEXT NOT NULL,
    email         TEXT NOT NULL UNIQUE,
    role          TEXT NOT NULL CHECK (role IN ('owner', 'developer', 'support', 'viewer', 'operator')),
    password_hash TEXT NOT NULL,
    totp_secret   TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    disabled_at   TIMESTAMPTZ,
    CHECK ((role = 'operator') = (merchant_id = ''))
);
CREATE INDEX dashboard_users_merchant ON dashboard_users (merchant_id, email);

-- Signed-in browsers: id is the SHA-256 (hex) of the token only the cookie holds. expires_at
-- is when the session ends unless used (the earlier of idle and absolute
-- expiry): dashboard_sessions_expires finds the ended ones to delete.
CREATE TABLE dashboard_sessions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
    csrf_token   TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    ip           TEXT NOT NULL DEFAULT '',
    user_agent   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);

-- Failed sign-ins per key ('email:...' or 'ip:...') in a fixed window beginning at
-- window_start: shared by every instance on the database.
CREATE TABLE dashboard_login_failures (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    window_start TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_login_failures_window ON dashboard_login_failures (window_start);

-- The audit log: who (user_id, '' for the command line) did what (action, subject, detail)
-- when, per merchant ('' for the operator's own), read newest first.
CREATE TABLE dashboard_audit (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    action      TEXT NOT NULL,
    subject     TEXT NOT NULL DEFAULT '',
    detail      TEXT NOT NULL DEFAULT '',
    at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_audit_merchant ON dashboard_audit (merchant_id, at, id);

-- +goose Down
DROP TABLE dashboard_audit;
DROP TABLE dashboard_login_failures;
DROP TABLE dashboard_sessions;
DROP TABLE dashboard_users;
