import { randomUUID } from "node:crypto";

import { RampwayError, retryableStatus } from "./errors.js";
import type { ErrorEnvelope } from "./types.js";

/** Options of one call; each overrides the client's own for that call. */
export interface RequestOptions {
  /**
   * The Idempotency-Key of a POST. By default each call makes a new one (a random UUID) and
   * every retry of the call reuses it, so a create retried after a lost answer makes one
   * order. Pass your own (e.g. derived from your order id) to make a create idempotent across
   * processes or restarts.
   */
  idempotencyKey?: string;
  /** Aborts the call, its retries and the waits between them. */
  signal?: AbortSignal;
  /** Milliseconds each attempt may take before it is abandoned (and retried). */
  timeout?: number;
  /** How many times a retryable failure is retried (0: never). */
  maxRetries?: number;
  /** More request headers (X-Request-Id, for example). */
  headers?: Record<string, string>;
}

/** What {@link TransportOptions.onRetry} is told before each retry. */
export interface RetryInfo {
  method: string;
  path: string;
  /** The retry about to be made: 1 for the second attempt. */
  retry: number;
  /** Milliseconds waited before it. */
  delay: number;
  /** Why: the failed attempt's error. */
  error: RampwayError;
  idempotencyKey: string | undefined;
}

/** The client's settings that shape every request. */
export interface TransportOptions {
  apiKey: string;
  /** Retries of a retryable failure (network error, timeout, 409, 429, 5xx); default 3. */
  maxRetries?: number;
  /** Milliseconds per attempt; default 30,000. */
  timeout?: number;
  /**
   * The backoff: the nth retry waits a random time between 0 and
   * min(maxRetryDelay, minRetryDelay x 2^(n-1)) ("full jitter"), and at least the
   * answer's Retry-After. Defaults 500 and 8,000 ms (as the Go client).
   */
  minRetryDelay?: number;
  maxRetryDelay?: number;
  /**
   * The longest Retry-After the client waits for, in milliseconds (default 30,000); an answer
   * asking for longer is thrown at once.
   */
  maxRetryAfter?: number;
  /** The fetch to use; globalThis.fetch by default. */
  fetch?: typeof fetch;
  /** The User-Agent header. */
  userAgent?: string;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

export const VERSION = "0.1.0";

const DEFAULTS = {
  maxRetries: 3,
  timeout: 30_000,
  minRetryDelay: 500,
  maxRetryDelay: 8_000,
  maxRetryAfter: 30_000,
};

/** One request of the merchant API. */
export interface ApiRequest {
  method: "GET" | "POST";
  /** The area's base URL, e.g. http://host/mint. */
  base: string;
  /** The path below it, e.g. /merchant/hosted/nftCheckout/order. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** Transport sends requests with retries, backoff and idempotency keys. */
export class Transport {
  readonly #o: Required<Omit<TransportOptions, "onRetry" | "fetch" | "userAgent">> &
    Pick<TransportOptions, "onRetry" | "fetch"> & { userAgent: string };

  constructor(o: TransportOptions) {
    if (!o.apiKey) {
      throw new TypeError("rampway: an apiKey is required");
    }
    this.#o = {
      apiKey: o.apiKey,
      maxRetries: o.maxRetries ?? DEFAULTS.maxRetries,
      timeout: o.timeout ?? DEFAULTS.timeout,
      minRetryDelay: o.minRetryDelay ?? DEFAULTS.minRetryDelay,
      maxRetryDelay: o.maxRetryDelay ?? DEFAULTS.maxRetryDelay,
      maxRetryAfter: o.maxRetryAfter ?? DEFAULTS.maxRetryAfter,
      fetch: o.fetch,
      userAgent: o.userAgent ?? `rampway-sdk-js/${VERSION}`,
      onRetry: o.onRetry,
    };
  }

  /** Sends r and returns its decoded JSON answer, retrying what may succeed later. */
  async request<T>(r: ApiRequest, opts: RequestOptions = {}): Promise<T> {
    const o = this.#o;
    const url = new URL(r.base.replace(/\/+$/, "") + r.path);
    for (const [k, v] of Object.entries(r.query ?? {})) {
      if (v !== undefined && v !== "") {
        url.searchParams.set(k, String(v));
      }
    }
    const path = url.pathname;
    const idempotencyKey = r.method === "POST" ? (opts.idempotencyKey ?? randomUUID()) : undefined;
    const headers: Record<string, string> = {
      Accept: "application/json",
      "User-Agent": o.userAgent,
      ...opts.headers,
      "X-API-KEY": o.apiKey,
    };
    let body: string | undefined;
    if (r.body !== undefined) {
      body = JSON.stringify(r.body);
      headers["Content-Type"] = "application/json";
    }
    if (idempotencyKey !== undefined) {
      headers["Idempotency-Key"] = idempotencyKey;
    }
    const maxRetries = Math.max(0, opts.maxRetries ?? o.maxRetries);
    const timeout = opts.timeout ?? o.timeout;
    const doFetch = o.fetch ?? globalThis.fetch;

    for (let attempt = 1; ; attempt++) {
      const meta = { method: r.method, path, idempotencyKey, attempts: attempt };
      const result = await attemptOnce(doFetch, url, r.method, headers, body, timeout, opts.signal, meta);
      if (!(result instanceof RampwayError)) {
        return result as T;
      }
      const err = result;
      if (!err.retryable || attempt > maxRetries) {
        throw err;
      }
      let delay = backoff(attempt, o.minRetryDelay, o.maxRetryDelay);
      if (err.retryAfter !== undefined) {
        const ra = err.retryAfter * 1000;
        if (ra > o.maxRetryAfter) {
          throw err;
        }
        delay = Math.max(delay, ra);
      }
      o.onRetry?.({ method: r.method, path, retry: attempt, delay, error: err, idempotencyKey });
      await sleep(delay, opts.signal, meta);
    }
  }
}

/** The full-jitter backoff before retry n (1-based). */
export function backoff(n: number, min: number, max: number): number {
  const cap = Math.min(max, min * 2 ** Math.min(n - 1, 30));
  return Math.random() * cap;
}

interface Meta {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  attempts: number;
}

/** One attempt: the decoded answer, or the RampwayError it ends in (thrown by the caller). */
async function attemptOnce(
  doFetch: typeof fetch,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeout: number,
  signal: AbortSignal | undefined,
  meta: Meta,
): Promise<unknown> {
  if (signal?.aborted) {
    return aborted(signal, meta);
  }
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, timeout);
  const onAbort = () => ctl.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let res: Response;
    let text: string;
    try {
      const init: RequestInit = { method, headers, signal: ctl.signal };
      if (body !== undefined) {
        init.body = body;
      }
      res = await doFetch(url, init);
      text = await res.text();
    } catch (cause) {
      if (signal?.aborted) {
        return aborted(signal, meta);
      }
      const why = timedOut ? `timed out after ${timeout} ms` : describe(cause);
      return new RampwayError({
        ...meta,
        status: 0,
        message: `${method} ${meta.path}: ${why}`,
        retryable: true,
        cause,
      });
    }
    const requestId = res.headers.get("X-Request-Id") ?? undefined;
    if (res.ok) {
      if (text === "") {
        return undefined;
      }
      try {
        return JSON.parse(text);
      } catch (cause) {
        return new RampwayError({
          ...meta,
          status: res.status,
          requestId,
          message: `${method} ${meta.path}: the answer is not JSON: ${snippet(text)}`,
          retryable: false,
          cause,
        });
      }
    }
    let envelope: ErrorEnvelope | undefined;
    try {
      const v = JSON.parse(text) as unknown;
      if (v !== null && typeof v === "object" && typeof (v as ErrorEnvelope).message === "string") {
        envelope = v as ErrorEnvelope;
      }
    } catch {
      // Not the envelope (a proxy's page, say): described below.
    }
    return new RampwayError({
      ...meta,
      status: res.status,
      code: typeof envelope?.statusCode === "number" ? envelope.statusCode : undefined,
      message: envelope?.message ?? `${method} ${meta.path}: HTTP ${res.status}${text ? `: ${snippet(text)}` : ""}`,
      path: typeof envelope?.path === "string" && envelope.path !== "" ? envelope.path : meta.path,
      retryable: retryableStatus(res.status, res.headers.get("Retry-After")),
      requestId,
      retryAfter: parseRetryAfter(res.headers.get("Retry-After")),
      body: envelope,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

function aborted(signal: AbortSignal, meta: Meta): RampwayError {
  return new RampwayError({
    ...meta,
    status: 0,
    message: `${meta.method} ${meta.path}: aborted`,
    retryable: false,
    cause: signal.reason,
  });
}

/** Waits ms, or until signal aborts (then throws the RampwayError of an aborted call). */
function sleep(ms: number, signal: AbortSignal | undefined, meta: Meta): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(aborted(signal, meta));
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      reject(aborted(signal!, meta));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Parses Retry-After: whole seconds, or an HTTP date (seconds from now, at least 0).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(v: string | null, now: number = Date.now()): number | undefined {
  if (v === null) {
    return undefined;
  }
  const s = v.trim();
  if (/^\d+$/.test(s)) {
    return Number(s);
  }
  const at = Date.parse(s);
  if (Number.isNaN(at)) {
    return undefined;
  }
  return Math.max(0, Math.ceil((at - now) / 1000));
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause;
    if (inner instanceof Error && inner.message) {
      return `${cause.message}: ${inner.message}`;
    }
    return cause.message;
  }
  return String(cause);
}

function snippet(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}
