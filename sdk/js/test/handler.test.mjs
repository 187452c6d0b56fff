// webhookHandler on Node's http server and with express-style requests: the answers of
// client.WebhookHandler (200, 400, 405, 409, 413, 500) and its deduplication.

import assert from "node:assert/strict";
import http from "node:http";
import { Readable } from "node:stream";
import { after, describe, test } from "node:test";

import { MemoryDeduper, signWebhook, webhookHandler } from "../dist/index.js";

const SECRET = "whsec_handler_test_0123456789abcdefghij";

function event(id, name = "order.created") {
  return JSON.stringify({ eventId: id, timestamp: new Date().toISOString(), eventName: name, context: { order_id: "ord_1", status: "CREATED" } });
}

const servers = [];
after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

async function serve(handler) {
  const s = http.createServer(handler);
  servers.push(s);
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${s.address().port}/hooks`;
}

async function deliver(url, body, header = signWebhook(SECRET, body), init = {}) {
  const res = await fetch(url, { method: "POST", body, headers: { "Content-Type": "application/json", "X-Service-Webhook-Signature": header }, ...init });
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
}

describe("webhookHandler on node:http", () => {
  test("200 for a genuine event, once; its duplicate is acknowledged without calling onEvent again", async () => {
    const got = [];
    const url = await serve(webhookHandler({ secret: SECRET, onEvent: (ev) => void got.push(ev) }));
    const body = event("evt_a");
    assert.equal((await deliver(url, body)).status, 200);
    const again = await deliver(url, body, signWebhook(SECRET, body, Date.now() + 1000));
    assert.equal(again.status, 200);
    assert.equal(again.text, "");
    assert.deepEqual(got.map((e) => e.eventId), ["evt_a"]);
    assert.equal(got[0].context.order_id, "ord_1");
  });

  test("400 for a delivery that does not verify, saying why; onEvent not called", async () => {
    let calls = 0;
    const errors = [];
    const url = await serve(webhookHandler({ secret: SECRET, onEvent: () => void calls++, onError: (e) => errors.push(e) }));
    const body = event("evt_b");
    for (const [header, b, why] of [
      [signWebhook("whsec_wrong", body), body, /bad signature/],
      ["", body, /no signature/],
      [signWebhook(SECRET, body, Date.now() - 10 * 60 * 1000), body, /outside tolerance/],
      [signWebhook(SECRET, "{}"), "{}", /bad event body/],
      [signWebhook(SECRET, body), body + " ", /bad signature/],
    ]) {
      const r = await deliver(url, b, header);
      assert.equal(r.status, 400);
      assert.match(r.text, why);
      assert.match(r.type, /^text\/plain/);
    }
    assert.equal(calls, 0);
    assert.equal(errors.length, 5);
  });

  test("a set tolerance is used", async () => {
    const url = await serve(webhookHandler({ secret: SECRET, tolerance: 10, onEvent: () => {} }));
    const body = event("evt_tol");
    assert.equal((await deliver(url, body, signWebhook(SECRET, body, Date.now() - 20_000))).status, 400);
    assert.equal((await deliver(url, body, signWebhook(SECRET, body, Date.now() - 5_000))).status, 200);
  });

  test("500 when onEvent throws, and the event is forgotten: its retry reaches onEvent", async () => {
    let calls = 0;
    const url = await serve(
      webhookHandler({
        secret: SECRET,
        onEvent: async () => {
          calls++;
          if (calls === 1) {
            throw new Error("database down");
          }
        },
      }),
    );
    const body = event("evt_c");
    const first = await deliver(url, body);
    assert.equal(first.status, 500);
    assert.match(first.text, /evt_c not processed; retry later/);
    assert.equal((await deliver(url, body)).status, 200);
    assert.equal((await deliver(url, body)).status, 200);
    assert.equal(calls, 2);
  });

  test("409 for a delivery of an event still being processed", async () => {
    let release;
    const started = new Promise((r) => (release = r));
    let finish;
    const gate = new Promise((r) => (finish = r));
    let calls = 0;
    const url = await serve(
      webhookHandler({
        secret: SECRET,
        onEvent: async () => {
          calls++;
          release();
          await gate;
        },
      }),
    );
    const body = event("evt_d");
    const first = deliver(url, body);
    await started;
    const second = await deliver(url, body);
    assert.equal(second.status, 409);
    assert.match(second.text, /evt_d is being processed/);
    finish();
    assert.equal((await first).status, 200);
    assert.equal((await deliver(url, body)).status, 200);
    assert.equal(calls, 1);
  });

  test("405 for another method, 413 for a body over the limit", async () => {
    const url = await serve(webhookHandler({ secret: SECRET, maxBodyBytes: 64, onEvent: () => {} }));
    const get = await fetch(url);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST");
    const big = JSON.stringify({ eventId: "evt_e", eventName: "x", context: { pad: "x".repeat(100) } });
    assert.equal((await deliver(url, big)).status, 413);
    // Without a Content-Length (chunked), the limit holds while reading.
    const chunked = await deliver(url, Readable.toWeb(Readable.from([big.slice(0, 50), big.slice(50)])), signWebhook(SECRET, big), { duplex: "half" });
    assert.equal(chunked.status, 413);
  });

  test("500 without a secret: a misconfigured receiver", async () => {
    const url = await serve(webhookHandler({ secret: "", onEvent: () => {} }));
    const r = await deliver(url, event("evt_f"));
    assert.equal(r.status, 500);
    assert.match(r.text, /misconfigured/);
  });

  test("seen: null turns deduplication off; a shared deduper is used", async () => {
    let calls = 0;
    const url = await serve(webhookHandler({ secret: SECRET, seen: null, onEvent: () => void calls++ }));
    const body = event("evt_g");
    await deliver(url, body);
    await deliver(url, body);
    assert.equal(calls, 2);

    const seen = new MemoryDeduper();
    seen.seen("evt_h", Date.now());
    let hCalls = 0;
    const url2 = await serve(webhookHandler({ secret: SECRET, seen, onEvent: () => void hCalls++ }));
    assert.equal((await deliver(url2, event("evt_h"))).status, 200);
    assert.equal(hCalls, 0);
  });
});

/** An express-like request: a stream with method, headers and what body parsers leave. */
function expressReq(body, headers, extra = {}) {
  const r = Readable.from(body === undefined ? [] : [Buffer.from(body)]);
  r.method = "POST";
  r.headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const [k, v] of Object.entries(extra)) {
    Object.defineProperty(r, k, { value: v, configurable: true });
  }
  return r;
}

function expressRes() {
  const res = { statusCode: 200, headers: {}, body: undefined };
  res.setHeader = (k, v) => void (res.headers[k.toLowerCase()] = v);
  res.end = (b) => void (res.body = b ?? "");
  return res;
}

describe("webhookHandler with express-style requests", () => {
  test("the raw body express.raw() leaves (a Buffer) or express.text() (a string) is verified", async () => {
    const got = [];
    const h = webhookHandler({ secret: SECRET, onEvent: (ev) => void got.push(ev.eventId) });
    for (const [id, wrap] of [["evt_raw", (b) => Buffer.from(b)], ["evt_text", (b) => b]]) {
      const body = event(id);
      const req = expressReq(undefined, { "X-Service-Webhook-Signature": signWebhook(SECRET, body) }, { body: wrap(body), readableEnded: true });
      const res = expressRes();
      await h(req, res, () => assert.fail("next called"));
      assert.equal(res.statusCode, 200);
    }
    assert.deepEqual(got, ["evt_raw", "evt_text"]);
  });

  test("an untouched stream is read; a body already parsed as JSON is a misconfiguration (500)", async () => {
    const h = webhookHandler({ secret: SECRET, onEvent: () => {} });
    const body = event("evt_stream");
    const res = expressRes();
    await h(expressReq(body, { "X-Service-Webhook-Signature": signWebhook(SECRET, body) }, { body: {} }), res);
    assert.equal(res.statusCode, 200);

    const parsed = expressRes();
    await h(expressReq(undefined, { "X-Service-Webhook-Signature": signWebhook(SECRET, body) }, { body: JSON.parse(body), readableEnded: true }), parsed);
    assert.equal(parsed.statusCode, 500);
    assert.match(parsed.body, /express\.raw/);
  });
});
