import type { ErrorEnvelope } from "./types.js";

/** What a {@link RampwayError} is made from. */
export interface RampwayErrorInit {
  status: number;
  message: string;
  path: string;
  method: string;
  retryable: boolean;
  code?: number | undefined;
  requestId?: string | undefined;
  idempotencyKey?: string | undefined;
  retryAfter?: number | undefined;
  attempts?: number | undefined;
  body?: ErrorEnvelope | undefined;
  cause?: unknown;
}

/**
 * The one error every API call throws: an error answer of the server (its envelope's message),
 * a network failure or timeout (status 0), or a call aborted by its signal (status 0, not
 * retryable).
 */
export class RampwayError extends Error {
  /** The HTTP status; 0 when no answer came (network error, timeout, abort). */
  readonly status: number;
  /**
   * The envelope's statusCode: the HTTP status, except 403 for invalid smart-contract function
   * arguments (HTTP 400). Undefined when the answer was not the envelope.
   */
  readonly code: number | undefined;
  /** The request path, without the query (the envelope's path when it has one). */
  readonly path: string;
  /** The request method. */
  readonly method: string;
  /**
   * Whether the same call may succeed if tried again: network errors, timeouts, 409 with
   * Retry-After (an Idempotency-Key in use), 429 and 5xx. The client has already retried such
   * errors maxRetries times before throwing.
   */
  readonly retryable: boolean;
  /** The answer's X-Request-Id, to quote to the operator. */
  readonly requestId: string | undefined;
  /** The Idempotency-Key the call's attempts carried (POSTs). */
  readonly idempotencyKey: string | undefined;
  /** Seconds the server asked to wait (Retry-After), when it did. */
  readonly retryAfter: number | undefined;
  /** How many attempts the call made. */
  readonly attempts: number;
  /** The error envelope, when the answer was one. */
  readonly body: ErrorEnvelope | undefined;

  constructor(init: RampwayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "RampwayError";
    this.status = init.status;
    this.code = init.code;
    this.path = init.path;
    this.method = init.method;
    this.retryable = init.retryable;
    this.requestId = init.requestId;
    this.idempotencyKey = init.idempotencyKey;
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts ?? 1;
    this.body = init.body;
  }
}

/**
 * Whether an answer may succeed when tried again: 429, 5xx, and a 409 with Retry-After (a
 * request with the same Idempotency-Key still in progress: rampway marks it so). A 409 without
 * Retry-After is a state conflict (a refund that no longer waits for an address) that a retry
 * would only repeat.
 */
export function retryableStatus(status: number, retryAfter?: string | null): boolean {
  return (status === 409 && retryAfter != null && retryAfter !== "") || status === 429 || status >= 500;
}
