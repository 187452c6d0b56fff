-- +goose Up
-- Areas B and C: the fiat side of an order (what the user pays, in the currency's minor
-- units) and the payment that paid it.
ALTER TABLE orders ADD COLUMN fiat_symbol TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN fiat_method TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN fiat_amount TEXT NOT NULL DEFAULT '0';
ALTER TABLE orders ADD COLUMN fiat_decimals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN fiat_payment_id TEXT NOT NULL DEFAULT '';

-- The executor's poll reads the orders paid and waiting for their call: paid in crypto
-- (DEPOSIT_SUCCESS) or in fiat (ONRAMP_SUCCESS).
DROP INDEX orders_network_paid;
CREATE INDEX orders_network_paid ON orders (network, updated_at, id) WHERE status IN ('DEPOSIT_SUCCESS', 'ONRAMP_SUCCESS');

-- A user's attempts to pay an order through a payment provider. Card numbers are never
-- stored: only the brand and the last four digits.
CREATE TABLE fiat_payments (
    id             TEXT PRIMARY KEY,
    order_id       TEXT NOT NULL REFERENCES orders (id),
    provider       TEXT NOT NULL,
    provider_ref   TEXT NOT NULL DEFAULT '',
    method         TEXT NOT NULL,
    currency       TEXT NOT NULL,
    amount         TEXT NOT NULL,
    received       TEXT NOT NULL DEFAULT '0',
    decimals       INTEGER NOT NULL,
    status         TEXT NOT NULL,
    reference      TEXT NOT NULL DEFAULT '',
    card_brand     TEXT NOT NULL DEFAULT '',
    card_last4     TEXT NOT NULL DEFAULT '',
    next_action    TEXT NOT NULL DEFAULT '',
    failure_reason TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;

CREATE INDEX fiat_payments_order ON fiat_payments (order_id, created_at);
CREATE UNIQUE INDEX fiat_payments_ref ON fiat_payments (provider, provider_ref) WHERE provider_ref != '';

-- Provider notifications applied, by the provider's event id: each is applied once.
CREATE TABLE provider_events (
    provider    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    type        TEXT NOT NULL,
    payment_ref TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (provider, event_id)
) STRICT;

-- Captures, voids and refunds an order's causes ask of its provider, done by the fiat
-- worker with the action's id as the provider's idempotency key. One per cause of an order.
CREATE TABLE fiat_actions (
    id              TEXT PRIMARY KEY,
    order_id        TEXT NOT NULL REFERENCES orders (id),
    payment_id      TEXT NOT NULL REFERENCES fiat_payments (id),
    kind            TEXT NOT NULL CHECK (kind IN ('capture', 'void', 'refund')),
    amount          TEXT NOT NULL,
    currency        TEXT NOT NULL,
    cause           TEXT NOT NULL,
    reason          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'done')),
    provider_ref    TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    next_attempt_at INTEGER NOT NULL,
    lease_until     INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    UNIQUE (order_id, cause)
) STRICT;

CREATE INDEX fiat_actions_due ON fiat_actions (next_attempt_at) WHERE status = 'pending';

-- The sandbox provider's own books (it behaves as a remote provider would, and keeps what a
-- provider keeps): its payments, the idempotency keys of the calls made to it, and the
-- notifications it sends to rampway's webhook route.
CREATE TABLE sandbox_payments (
    id           TEXT PRIMARY KEY,
    idem_key     TEXT NOT NULL UNIQUE,
    order_id     TEXT NOT NULL,
    method       TEXT NOT NULL,
    currency     TEXT NOT NULL,
    decimals     INTEGER NOT NULL,
    amount       TEXT NOT NULL,
    received     TEXT NOT NULL DEFAULT '0',
    captured     TEXT NOT NULL DEFAULT '0',
    refunded     TEXT NOT NULL DEFAULT '0',
    status       TEXT NOT NULL,
    reference    TEXT NOT NULL DEFAULT '',
    card_brand   TEXT NOT NULL DEFAULT '',
    card_last4   TEXT NOT NULL DEFAULT '',
    failure_reason TEXT NOT NULL DEFAULT '',
    return_url   TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX sandbox_payments_reference ON sandbox_payments (reference) WHERE reference != '';

CREATE TABLE sandbox_calls (
    idem_key   TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    result     TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE sandbox_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    body            TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    delivered_at    INTEGER,
    created_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX sandbox_events_due ON sandbox_events (next_attempt_at) WHERE delivered_at IS NULL;

-- +goose Down
DROP TABLE sandbox_events;
DROP TABLE sandbox_calls;
DROP TABLE sandbox_payments;
DROP TABLE fiat_actions;
DROP TABLE provider_events;
DROP TABLE fiat_payments;
DROP INDEX orders_network_paid;
CREATE INDEX orders_network_paid ON orders (network, updated_at, id) WHERE status = 'DEPOSIT_SUCCESS';
ALTER TABLE orders DROP COLUMN fiat_payment_id;
ALTER TABLE orders DROP COLUMN fiat_decimals;
ALTER TABLE orders DROP COLUMN fiat_amount;
ALTER TABLE orders DROP COLUMN fiat_method;
ALTER TABLE orders DROP COLUMN fiat_symbol;
