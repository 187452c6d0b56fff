import { MemoryDeduper, type Deduper } from "./dedupe.js";
import {
  SIGNATURE_HEADER,
  WebhookVerificationError,
  verifySignature,
  type OrderContext,
  type WebhookEvent,
} from "./webhook.js";

/** The largest body, in bytes, the handler reads by default (1 MiB); a larger one is 413. */
export const MAX_BODY_BYTES = 1 << 20;

/**
 * The request as the handler reads it: Node's http.IncomingMessage, or an express Request.
 * With express, mount the handler without a JSON body parser in front of it (or with
 * `express.raw({ type: "application/json" })`): the signature is over the raw bytes.
 */
export interface WebhookRequest {
  method?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** express.raw() leaves a Buffer here, express.text() a string. */
  body?: unknown;
  /** Some frameworks keep the raw body here. */
  rawBody?: unknown;
  /** True once the body stream was read (by a body parser, for example). */
  readableEnded?: boolean;
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (err: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
  resume?(): unknown;
}

/** The response as the handler writes it: Node's http.ServerResponse, or an express Response. */
export interface WebhookResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

/** Options of {@link webhookHandler}. */
export interface WebhookHandlerOptions<C = OrderContext> {
  /** The webhook secret, or several while one is being rotated ("whsec_…"). */
  secret: string | readonly string[];
  /**
   * Processes a genuine event, once. Return (or resolve) to answer 200; throw (or reject) to
   * answer 500, so that rampway retries it later. rampway waits 10 seconds for the answer: a
   * slow job is better queued here and done after answering.
   */
  onEvent: (event: WebhookEvent<C>, req: WebhookRequest) => void | Promise<void>;
  /** Seconds a signature's t may be from now, either way; 300 by default. */
  tolerance?: number;
  /**
   * Remembers processed eventIds: a second delivery of one is answered 200 without calling
   * onEvent. A {@link MemoryDeduper} (24 hours) by default; null turns the check off.
   */
  seen?: Deduper | null;
  /** The largest body read, in bytes; {@link MAX_BODY_BYTES} by default. */
  maxBodyBytes?: number;
  /** Told of each delivery refused (400, 413, 500), e.g. to log it. */
  onError?: (err: Error, req: WebhookRequest) => void;
}

/**
 * An express-style handler, `(req, res) => Promise<void>`, that receives rampway's webhooks
 * (client.WebhookHandler in Go): it reads the raw body, verifies it, deduplicates by eventId
 * and calls onEvent. Its answers:
 *
 * - 200 when onEvent succeeds, and for a duplicate of an event already processed (onEvent is
 *   not called again): rampway stops retrying.
 * - 400 when the delivery does not verify (no or bad signature, t outside the tolerance, bad
 *   body); the answer's body says why.
 * - 409 when the same event is still being processed by onEvent (a retry that arrived early):
 *   rampway retries later.
 * - 500 when onEvent throws: rampway retries later, and the event is forgotten by the
 *   deduper so that the retry reaches onEvent. Also for a misconfigured receiver (no secret, or
 *   a body parsed as JSON before the handler saw its bytes).
 * - 405 for a method other than POST, 413 for a body over maxBodyBytes.
 *
 * Mount it on Node's http (`http.createServer(handler)`) or express (`app.post("/hooks",
 * handler)`, before any JSON body parser on that route).
 */
export function webhookHandler<C = OrderContext>(
  options: WebhookHandlerOptions<C>,
): (req: WebhookRequest, res: WebhookResponse, next?: (err?: unknown) => void) => Promise<void> {
  if (!options || typeof options.onEvent !== "function") {
    throw new TypeError("rampway: webhookHandler needs options.onEvent");
  }
  const seen: Deduper | null = options.seen === undefined ? new MemoryDeduper() : options.seen;
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const inflight = new Set<string>();
  const refuse = (req: WebhookRequest, res: WebhookResponse, status: number, msg: string, err?: Error) => {
    options.onError?.(err ?? new Error(msg), req);
    text(res, status, msg);
  };

  return async (req, res) => {
    if ((req.method ?? "").toUpperCase() !== "POST") {
      res.setHeader("Allow", "POST");
      text(res, 405, "method not allowed");
      return;
    }
    let body: Uint8Array;
    try {
      const b = await rawBody(req, maxBody);
      if (b === "too large") {
        res.setHeader("Connection", "close");
        refuse(req, res, 413, "body too large");
        return;
      }
      if (b === "parsed") {
        refuse(req, res, 500, "webhook receiver misconfigured: the body was parsed before it could be verified " +
          "(mount the handler before any JSON body parser, or use express.raw({ type: \"application/json\" }))");
        return;
      }
      body = b;
    } catch (e) {
      refuse(req, res, 400, "cannot read body", e as Error);
      return;
    }

    const now = Date.now();
    let ev: WebhookEvent<C>;
    try {
      ev = verifySignature<C>(options.secret, body, header(req, SIGNATURE_HEADER), now, options.tolerance);
    } catch (e) {
      if (e instanceof WebhookVerificationError && e.code !== "no_secret") {
        refuse(req, res, 400, e.message, e);
        return;
      }
      refuse(req, res, 500, "webhook receiver misconfigured", e as Error);
      return;
    }

    // Mark the event in flight before asking the deduper, so that a concurrent delivery of it
    // is never acknowledged before onEvent has succeeded.
    const id = ev.eventId;
    if (inflight.has(id)) {
      text(res, 409, `event ${id} is being processed; retry later`);
      return;
    }
    inflight.add(id);
    let done = false;
    try {
      if (seen?.seen(id, now)) {
        done = true; // processed before: acknowledge, and keep it recorded
        text(res, 200, "");
        return;
      }
      try {
        await options.onEvent(ev, req);
      } catch (e) {
        refuse(req, res, 500, `event ${id} not processed; retry later`, e as Error);
        return;
      }
      done = true;
      text(res, 200, "");
    } finally {
      if (!done) {
        seen?.forget(id);
      }
      inflight.delete(id);
    }
  };
}

/** Writes a plain-text answer, as Go's http.Error does (an empty body for 200). */
function text(res: WebhookResponse, status: number, msg: string): void {
  res.statusCode = status;
  if (msg === "") {
    res.end();
    return;
  }
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.end(msg + "\n");
}

function header(req: WebhookRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(",") : v;
}

const encoder = new TextEncoder();

/** The raw body: kept by a raw body parser, or read from the stream (at most max bytes). */
async function rawBody(req: WebhookRequest, max: number): Promise<Uint8Array | "too large" | "parsed"> {
  for (const b of [req.rawBody, req.body]) {
    if (b instanceof Uint8Array) {
      return b.length > max ? "too large" : b;
    }
    if (typeof b === "string") {
      const u = encoder.encode(b);
      return u.length > max ? "too large" : u;
    }
  }
  if (req.readableEnded) {
    return "parsed";
  }
  const declared = Number(header(req, "content-length"));
  if (Number.isFinite(declared) && declared > max) {
    req.resume?.();
    return "too large";
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c) => {
      if (over) {
        return;
      }
      const u = typeof c === "string" ? encoder.encode(c) : c;
      size += u.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        resolve("too large");
        return;
      }
      chunks.push(u);
    });
    req.on("end", () => {
      if (over) {
        return;
      }
      const out = new Uint8Array(size);
      let off = 0;
      for (const c of chunks) {
        out.set(c, off);
        off += c.length;
      }
      resolve(out);
    });
    req.on("error", reject);
  });
}
