// Webhook verification, the same scheme and checks as the Go client (client/webhook.go):
//
//   X-Service-Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]
//
// Each <hex> is the lowercase hex HMAC-SHA256, keyed with a webhook secret, of the bytes
// "<t>.<raw body>". t is the time of the delivery attempt. While a secret is being rotated
// there is one v1 per valid secret.

import { createHmac, timingSafeEqual } from "node:crypto";

import type { Deduper } from "./dedupe.js";
import type { DecimalAmount, FiatPaymentMethod, OrderStatus, Refund } from "./types.js";

/** The HTTP header that carries a webhook's signature. */
export const SIGNATURE_HEADER = "X-Service-Webhook-Signature";

/** How far, in seconds, a signature's t may be from the receiver's clock, either way, by default. */
export const DEFAULT_TOLERANCE = 300;

/** Why a delivery did not verify: the Go client's Err* errors, by name. */
export type WebhookErrorCode =
  /** The header is missing or empty, or has no v1 signature (ErrNoSignature). */
  | "no_signature"
  /** The header is malformed, or no v1 signature matches any secret (ErrBadSignature). */
  | "bad_signature"
  /** Genuine, but t is further than the tolerance from now (ErrTimestamp): a replay, or a clock. */
  | "timestamp"
  /** Genuine, but its eventId was seen before (ErrDuplicate): acknowledge it with a 2xx. */
  | "duplicate"
  /** The body is not an event with an eventId and an eventName (ErrBadBody). */
  | "bad_body"
  /** A configuration error: no webhook secret to verify with. */
  | "no_secret";

/** The error verifyWebhook throws; its code says why. */
export class WebhookVerificationError extends Error {
  readonly code: WebhookErrorCode;
  /** For a duplicate: the event, genuine, so that it can be logged before answering 2xx. */
  readonly event: WebhookEvent | undefined;

  constructor(code: WebhookErrorCode, message: string, event?: WebhookEvent) {
    super(message);
    this.name = "WebhookVerificationError";
    this.code = code;
    this.event = event;
  }
}

/** Event names (eventName). Answer 2xx to names you do not know: new ones may be added. */
export const EventNames = {
  OrderCreated: "order.created",
  OrderDepositProcessing: "order.deposit.processing",
  OrderDepositSuccess: "order.deposit.success",
  OrderDepositFailure: "order.deposit.failure",
  OrderOnrampProcessing: "order.onramp.processing",
  OrderOnrampSuccess: "order.onramp.success",
  OrderOnrampFailure: "order.onramp.failure",
  OrderSmartContractProcessing: "order.smartcontract.processing",
  OrderSmartContractSuccess: "order.smartcontract.success",
  OrderSmartContractFailure: "order.smartcontract.failure",
  OrderSuccess: "order.success",
  OrderCancelled: "order.cancelled",
  OrderFailed: "order.failed",
  /** A refund is recorded: a payment after expiry (area A), or a merchant refund just created (also one that waits for approval). */
  OrderRefundPending: "order.refund.pending",
  /** A merchant refund is paid (status done); the context's refund is it. */
  OrderRefundSucceeded: "order.refund.succeeded",
  /** A merchant refund was not paid (failed, or dust); the context's refund is it. */
  OrderRefundFailed: "order.refund.failed",
  /** Automatic refunds: a refund's transaction is sent (area A). */
  OrderRefundProcessing: "order.refund.processing",
  /** Automatic refunds: a refund is paid (area A), or a failed order's payment is back (B, C). */
  OrderRefundSuccess: "order.refund.success",
  /** Automatic refunds: a refund is not paid (area A: reverted, or dust). */
  OrderRefundFailure: "order.refund.failure",
  UserWidgetOpen: "user.widget.open",
  UserWidgetClose: "user.widget.close",
} as const;

/** A known event name, or another string (new kinds may be added). */
export type EventName = (typeof EventNames)[keyof typeof EventNames] | (string & {});

/**
 * A webhook delivery's body: one event. eventId is stable across retries of the event;
 * timestamp is when it happened (not when it was delivered).
 */
export interface WebhookEvent<C = OrderContext> {
  eventId: string;
  timestamp: string;
  eventName: EventName;
  context: C;
}

/**
 * The context of an order event: the order's public fields as they were when the event
 * happened. Amounts are decimal strings: parse them with an exact decimal type, never a float.
 */
export interface OrderContext {
  order_id: string;
  merchant_id: string;
  merchant_txn_id: string;
  merchant_user_id: string;
  /** The order's mode: true live, false test. The event is signed with the merchant's webhook secret of that mode. */
  livemode: boolean;
  /** The order's status after the event. */
  status: OrderStatus;
  crypto_symbol: string;
  crypto_network: string;
  crypto_contract_address: string | null;
  crypto_amount: DecimalAmount;
  crypto_amount_received: DecimalAmount;
  deposit_address: string;
  deposit_tx_hashes: string[];
  execution_tx_hash: string | null;
  failure_reason: string | null;
  refunds: Refund[];
  /**
   * The refund the event is about: set by order.refund.pending for a merchant refund,
   * order.refund.succeeded and order.refund.failed.
   */
  refund?: Refund;
  /**
   * What the order's merchant refunds paid back (status done), in the order's paid currency.
   * Absent from events queued before the server knew merchant refunds.
   */
  refunded_amount?: DecimalAmount;
  /** Areas B and C. */
  order_fiat_symbol?: string;
  order_fiat_amount?: DecimalAmount;
  fiat_payment_method?: FiatPaymentMethod;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

/** The body as bytes: a Buffer, a Uint8Array, or a string (encoded as UTF-8). */
export type RawBody = string | Uint8Array;

/** Options of {@link verifyWebhook}. */
export interface VerifyOptions {
  /** The receiver's clock: a Date or milliseconds since the epoch. Date.now() by default. */
  now?: Date | number;
  /** Seconds t may be from now, either way; {@link DEFAULT_TOLERANCE} when unset, 0 or less. */
  tolerance?: number;
  /**
   * When set, records the eventId of every genuine delivery and turns a second one into a
   * "duplicate" error. Its memory should outlast 2 x tolerance, or a captured delivery could be
   * replayed while its t is still accepted.
   */
  seen?: Deduper | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Checks a delivery signed with secret (or any of several secrets, during a rotation) and
 * returns its event. rawBody must be the raw request body, byte for byte, before any JSON
 * parsing; signatureHeader is the X-Service-Webhook-Signature header.
 *
 * The checks, in order, as the Go client makes them: a v1 signature matches one of the
 * secrets ("no_signature", "bad_signature"); t is within the tolerance of now, either way
 * ("timestamp"); the body is an event with an eventId and an eventName ("bad_body"); and, with
 * options.seen, its eventId was not seen before ("duplicate", with the event attached). Each
 * failure throws a {@link WebhookVerificationError}.
 */
export function verifyWebhook<C = OrderContext>(
  secret: string | readonly string[],
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  options: VerifyOptions = {},
): WebhookEvent<C> {
  const now = nowMillis(options.now);
  const ev = verifySignature<C>(secret, rawBody, signatureHeader, now, options.tolerance);
  if (options.seen && options.seen.seen(ev.eventId, now)) {
    throw new WebhookVerificationError("duplicate", `rampway webhook: duplicate event: ${ev.eventId}`, ev as WebhookEvent);
  }
  return ev;
}

/** verifyWebhook without the duplicate check; now in milliseconds. */
export function verifySignature<C = OrderContext>(
  secret: string | readonly string[],
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  now: number,
  tolerance: number | undefined,
): WebhookEvent<C> {
  const secrets = (typeof secret === "string" ? [secret] : [...secret]).filter((s) => typeof s === "string" && s !== "");
  if (secrets.length === 0) {
    throw new WebhookVerificationError("no_secret", "rampway webhook: no webhook secret configured");
  }
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  const sig = parseSignature(signatureHeader ?? "");
  if (!matches(sig, secrets, body)) {
    throw new WebhookVerificationError(
      "bad_signature",
      "rampway webhook: bad signature: no v1 signature matches the secret (check the secret, and " +
        "that the body is verified as received, before any JSON decoding)",
    );
  }
  const tolSeconds = tolerance !== undefined && tolerance > 0 ? tolerance : DEFAULT_TOLERANCE;
  // Exact integer arithmetic in milliseconds: t may be any int64.
  const age = BigInt(Math.trunc(now)) - sig.t * 1000n;
  const tol = BigInt(Math.round(tolSeconds * 1000));
  if (age > tol) {
    throw new WebhookVerificationError(
      "timestamp",
      `rampway webhook: signature timestamp outside tolerance: signed ${seconds(age)} ago, tolerance ${tolSeconds}s`,
    );
  }
  if (-age > tol) {
    throw new WebhookVerificationError(
      "timestamp",
      `rampway webhook: signature timestamp outside tolerance: signed ${seconds(-age)} in the future, tolerance ${tolSeconds}s (check the clock)`,
    );
  }
  return parseEvent<C>(body);
}

/**
 * The signature header value for body sent at `at` with secret: "t=<unix seconds>,v1=<hex>",
 * as rampway signs (client.Sign in Go). For testing receivers.
 */
export function signWebhook(secret: string, rawBody: RawBody, at: Date | number = Date.now()): string {
  const t = BigInt(Math.floor(nowMillis(at) / 1000));
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  return `t=${t},v1=${mac(secret, t, body).toString()}`;
}

interface Signature {
  t: bigint;
  v1: Uint8Array[];
}

const INT64_MAX = (1n << 63n) - 1n;

/**
 * Parses "t=<unix seconds>,v1=<hex>[,v1=<hex>...]": parts in any order, spaces around parts,
 * keys and values ignored, unknown schemes (v0, ...) ignored.
 */
function parseSignature(header: string): Signature {
  if (header.trim() === "") {
    throw new WebhookVerificationError("no_signature", `rampway webhook: no signature: no ${SIGNATURE_HEADER} header`);
  }
  let t: bigint | undefined;
  const v1: Uint8Array[] = [];
  let badV1 = 0;
  for (let part of header.split(",")) {
    part = trimSpace(part);
    if (part === "") {
      continue;
    }
    const eq = part.indexOf("=");
    if (eq < 0) {
      throw new WebhookVerificationError("bad_signature", `rampway webhook: bad signature: malformed header part ${JSON.stringify(part)}`);
    }
    const key = trimSpace(part.slice(0, eq));
    const val = trimSpace(part.slice(eq + 1));
    if (key === "t") {
      if (t !== undefined) {
        throw new WebhookVerificationError("bad_signature", "rampway webhook: bad signature: more than one t in the header");
      }
      if (!/^[0-9]+$/.test(val) || BigInt(val) > INT64_MAX) {
        throw new WebhookVerificationError("bad_signature", `rampway webhook: bad signature: malformed t ${JSON.stringify(val)}`);
      }
      t = BigInt(val);
    } else if (key === "v1") {
      if (!/^[0-9a-fA-F]{64}$/.test(val)) {
        badV1++;
        continue;
      }
      v1.push(hexBytes(val));
    }
  }
  if (t === undefined) {
    throw new WebhookVerificationError("bad_signature", "rampway webhook: bad signature: no t in the header");
  }
  if (v1.length === 0 && badV1 > 0) {
    throw new WebhookVerificationError("bad_signature", "rampway webhook: bad signature: malformed v1 signature");
  }
  if (v1.length === 0) {
    throw new WebhookVerificationError("no_signature", "rampway webhook: no signature: no v1 signature in the header");
  }
  return { t, v1 };
}

/** Whether any v1 signature is the MAC of body under any secret, compared in constant time. */
function matches(sig: Signature, secrets: string[], body: Uint8Array): boolean {
  let ok = false;
  for (const s of secrets) {
    const want = hexBytes(mac(s, sig.t, body));
    for (const got of sig.v1) {
      if (timingSafeEqual(want, got)) {
        ok = true;
      }
    }
  }
  return ok;
}

/** HMAC-SHA256 keyed with secret of "<t>.<body>", as lowercase hex. */
function mac(secret: string, t: bigint, body: Uint8Array): string {
  return createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
}

/** Decodes a delivery's body into its event. */
function parseEvent<C>(body: Uint8Array): WebhookEvent<C> {
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(body));
  } catch (e) {
    throw new WebhookVerificationError("bad_body", `rampway webhook: bad event body: ${(e as Error).message}`);
  }
  if (v === null) {
    throw new WebhookVerificationError("bad_body", "rampway webhook: bad event body: no eventId");
  }
  if (typeof v !== "object" || Array.isArray(v)) {
    throw new WebhookVerificationError("bad_body", "rampway webhook: bad event body: not a JSON object");
  }
  const ev = v as Record<string, unknown>;
  for (const k of ["eventId", "eventName", "timestamp"]) {
    if (ev[k] !== undefined && ev[k] !== null && typeof ev[k] !== "string") {
      throw new WebhookVerificationError("bad_body", `rampway webhook: bad event body: ${k} is not a string`);
    }
  }
  if (typeof ev.timestamp === "string" && !RFC3339.test(ev.timestamp)) {
    throw new WebhookVerificationError("bad_body", `rampway webhook: bad event body: timestamp ${JSON.stringify(ev.timestamp)} is not RFC 3339`);
  }
  if (!ev.eventId) {
    throw new WebhookVerificationError("bad_body", "rampway webhook: bad event body: no eventId");
  }
  if (!ev.eventName) {
    throw new WebhookVerificationError("bad_body", "rampway webhook: bad event body: no eventName");
  }
  return v as WebhookEvent<C>;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}

/** Go's strings.TrimSpace: the characters of Go's unicode.IsSpace, at both ends. */
function trimSpace(s: string): string {
  return s.replace(GO_SPACE, "");
}

const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

function nowMillis(now: Date | number | undefined): number {
  if (now === undefined) {
    return Date.now();
  }
  return now instanceof Date ? now.getTime() : now;
}

function seconds(ms: bigint): string {
  return `${(ms + 500n) / 1000n}s`;
}
