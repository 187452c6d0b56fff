// The client against a scripted server: retries and their backoff, Retry-After, one
// Idempotency-Key per call, the error class, pagination, and a method for every merchant route
// of httpapi/openapi.json and httpapi/routes.go.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, test, after } from "node:test";

import { Rampway, RampwayError } from "../dist/index.js";
import { envelope, mockServer, order } from "./helpers.mjs";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ORDER_PATH = "/mint/merchant/hosted/nftCheckout/order";

const mintBody = {
  crypto_symbol: "ETH",
  crypto_network: "devnet",
  contractExecution: {
    smartContractFunctionId: "scf_1",
    function_args: { to: "0x0000000000000000000000000000000000000001", quantity: "1" },
    payment: { payableCryptoSymbol: "ETH", totalValue: "0.01" },
    network_params: { networkName: "devnet" },
  },
  merchant_user_id: "u1",
  merchant_redirect_url: "https://shop.example/done",
};
const created = { order_id: "ord_1", crypto_symbol: "ETH", crypto_contract_address: null, crypto_network: "devnet", crypto_amount: "0.010263", hash: "h", gateway_url: "http://x/checkout" };

/** A client of srv with fast retries, recording them. */
function client(srv, extra = {}) {
  const retries = [];
  const rw = new Rampway({
    apiKey: "rw_test_key",
    merchantId: "mch_1",
    baseUrl: srv.url,
    minRetryDelay: 5,
    maxRetryDelay: 20,
    onRetry: (info) => retries.push(info),
    ...extra,
  });
  return { rw, retries };
}

const servers = [];
async function serve(script) {
  const s = await mockServer(script);
  servers.push(s);
  return s;
}
after(() => Promise.all(servers.map((s) => s.close())));

describe("retries", () => {
  test("5xx, 409 with Retry-After and 429 are retried with the same Idempotency-Key, then the answer is returned", async () => {
    const srv = await serve([
      { status: 503, body: envelope(503, "node down"), headers: { "Retry-After": "0" } },
      { status: 409, body: envelope(409, 'A request with Idempotency-Key "k" is still in progress'), headers: { "Retry-After": "0" } },
      { status: 429, body: envelope(429, "Too many requests"), headers: { "Retry-After": "0" } },
      { status: 500, body: envelope(500, "Internal server error (error id: err_1)") },
      { status: 201, body: created },
    ]);
    const { rw, retries } = client(srv, { maxRetries: 4 });
    const o = await rw.mint.createOrder(mintBody);
    assert.equal(o.order_id, "ord_1");
    assert.equal(srv.requests.length, 5);
    const keys = new Set(srv.requests.map((r) => r.headers["idempotency-key"]));
    assert.equal(keys.size, 1, "one Idempotency-Key for every attempt of the call");
    assert.match([...keys][0], UUID);
    assert.deepEqual(retries.map((r) => r.error.status), [503, 409, 429, 500]);
    assert.deepEqual(retries.map((r) => r.retry), [1, 2, 3, 4]);
    for (const r of srv.requests) {
      assert.deepEqual(r.json, { ...mintBody, merchant_id: "mch_1" }, "the same body on every attempt");
      assert.equal(r.headers["x-api-key"], "rw_test_key");
      assert.equal(r.headers["content-type"], "application/json");
    }
  });

  test("each call makes its own Idempotency-Key; a given one is used as is", async () => {
    const srv = await serve([{ status: 201, body: created }]);
    const { rw } = client(srv);
    await rw.mint.createOrder(mintBody);
    await rw.mint.createOrder(mintBody);
    await rw.mint.createOrder(mintBody, { idempotencyKey: "order-42" });
    const [a, b, c] = srv.requests.map((r) => r.headers["idempotency-key"]);
    assert.match(a, UUID);
    assert.match(b, UUID);
    assert.notEqual(a, b);
    assert.equal(c, "order-42");
  });

  test("GETs carry no Idempotency-Key and are retried too", async () => {
    const srv = await serve([{ status: 502, body: "<html>bad gateway</html>", headers: { "Content-Type": "text/html" } }, { status: 200, body: order("ord_1") }]);
    const { rw } = client(srv);
    const o = await rw.mint.getOrder("ord_1");
    assert.equal(o.order_id, "ord_1");
    assert.equal(srv.requests.length, 2);
    for (const r of srv.requests) {
      assert.equal(r.headers["idempotency-key"], undefined);
      assert.equal(r.method, "GET");
      assert.equal(r.path, `${ORDER_PATH}/ord_1`);
    }
  });

  test("a network error (connection closed without an answer) is retried with the same key", async () => {
    const srv = await serve(["drop", "drop", { status: 201, body: created }]);
    const { rw, retries } = client(srv);
    const o = await rw.mint.createOrder(mintBody);
    assert.equal(o.order_id, "ord_1");
    assert.equal(srv.requests.length, 3);
    assert.equal(new Set(srv.requests.map((r) => r.headers["idempotency-key"])).size, 1);
    assert.deepEqual(retries.map((r) => r.error.status), [0, 0]);
    assert.ok(retries.every((r) => r.error.retryable));
  });

  test("an attempt that takes longer than the timeout is abandoned and retried", async () => {
    const srv = await serve(["hang", { status: 201, body: created }]);
    const { rw, retries } = client(srv, { timeout: 200 });
    const o = await rw.mint.createOrder(mintBody);
    assert.equal(o.order_id, "ord_1");
    assert.match(retries[0].error.message, /timed out after 200 ms/);
    assert.equal(srv.requests[0].headers["idempotency-key"], srv.requests[1].headers["idempotency-key"]);
  });

  test("Retry-After is honoured: the retry waits at least that long", async () => {
    const srv = await serve([{ status: 429, body: envelope(429, "Too many requests: retry after 1 s"), headers: { "Retry-After": "1" } }, { status: 201, body: created }]);
    const { rw, retries } = client(srv);
    const start = Date.now();
    await rw.mint.createOrder(mintBody);
    const took = Date.now() - start;
    assert.ok(took >= 1000, `retried after ${took} ms, Retry-After asked 1 s`);
    assert.equal(retries[0].delay >= 1000, true);
    assert.equal(retries[0].error.retryAfter, 1);
  });

  test("Retry-After as an HTTP date is honoured too", async () => {
    const at = new Date(Date.now() + 2000).toUTCString(); // whole seconds: 1-2 s from now
    const srv = await serve([{ status: 503, body: envelope(503, "busy"), headers: { "Retry-After": at } }, { status: 200, body: { currencies: [] } }]);
    const { rw, retries } = client(srv);
    await rw.nftRamp.fiatCurrencies();
    assert.ok(retries[0].delay >= 1000, `waited ${retries[0].delay} ms`);
  });

  test("a Retry-After longer than maxRetryAfter is thrown at once", async () => {
    const srv = await serve([{ status: 429, body: envelope(429, "Too many requests"), headers: { "Retry-After": "120" } }]);
    const { rw } = client(srv);
    const err = await rw.mint.createOrder(mintBody).catch((e) => e);
    assert.ok(err instanceof RampwayError);
    assert.equal(err.status, 429);
    assert.equal(err.retryAfter, 120);
    assert.equal(err.retryable, true);
    assert.equal(srv.requests.length, 1);
  });

  test("the backoff grows exponentially with full jitter, capped", async () => {
    const srv = await serve([{ status: 503, body: envelope(503, "down") }]);
    const { rw, retries } = client(srv, { maxRetries: 6, minRetryDelay: 10, maxRetryDelay: 40 });
    const err = await rw.mint.getOrder("ord_1").catch((e) => e);
    assert.equal(err.attempts, 7);
    const caps = [10, 20, 40, 40, 40, 40];
    assert.equal(retries.length, caps.length);
    retries.forEach((r, i) => assert.ok(r.delay >= 0 && r.delay <= caps[i], `retry ${i + 1} waited ${r.delay}, cap ${caps[i]}`));
  });

  test("retries stop after maxRetries: the last error is thrown, retryable", async () => {
    const srv = await serve([{ status: 503, body: envelope(503, "No price is available", "/mint/merchant/hosted/nftCheckout/cryptoQuote") }]);
    const { rw } = client(srv, { maxRetries: 2 });
    const err = await rw.mint.cryptoQuote(mintBody).catch((e) => e);
    assert.ok(err instanceof RampwayError);
    assert.equal(err.status, 503);
    assert.equal(err.retryable, true);
    assert.equal(err.attempts, 3);
    assert.equal(srv.requests.length, 3);
    assert.equal(err.message, "No price is available");
  });

  test("maxRetries 0 on a call: one attempt", async () => {
    const srv = await serve(["drop"]);
    const { rw } = client(srv);
    const err = await rw.mint.getOrder("ord_1", { maxRetries: 0 }).catch((e) => e);
    assert.equal(err.status, 0);
    assert.equal(err.retryable, true);
    assert.equal(srv.requests.length, 1);
  });

  for (const status of [400, 401, 403, 404, 409, 413, 415, 422]) {
    test(`${status}${status === 409 ? " without Retry-After (a state conflict)" : ""} is not retried`, async () => {
      const srv = await serve([{ status, body: envelope(status, `refused ${status}`) }]);
      const { rw } = client(srv);
      const err = await rw.mint.createOrder(mintBody).catch((e) => e);
      assert.ok(err instanceof RampwayError);
      assert.equal(err.status, status);
      assert.equal(err.retryable, false);
      assert.equal(srv.requests.length, 1);
    });
  }

  test("an abort during the backoff ends the call at once, not retryable", async () => {
    const srv = await serve([{ status: 503, body: envelope(503, "down"), headers: { "Retry-After": "20" } }]);
    const { rw } = client(srv);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const start = Date.now();
    const err = await rw.mint.getOrder("ord_1", { signal: ctl.signal }).catch((e) => e);
    assert.ok(Date.now() - start < 5000);
    assert.ok(err instanceof RampwayError);
    assert.equal(err.status, 0);
    assert.equal(err.retryable, false);
    assert.match(err.message, /aborted/);
  });
});

describe("RampwayError", () => {
  test("carries status, message, request path, retryable, the envelope's code and the request id", async () => {
    const path = "/nft-ramp/merchant/hosted/nftCheckout/order";
    const srv = await serve([{ status: 400, body: envelope(400, "Function arguments are not valid: quantity must be uint256", path, 403) }]);
    const { rw } = client(srv);
    const err = await rw.nftRamp
      .createOrder({ ...mintBody, order_fiat_symbol: "EUR", fiat_payment_method: "credit_debit_card" }, { idempotencyKey: "k-1" })
      .catch((e) => e);
    assert.ok(err instanceof RampwayError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, "RampwayError");
    assert.equal(err.status, 400);
    assert.equal(err.code, 403, "function-argument errors: HTTP 400 with body statusCode 403");
    assert.equal(err.message, "Function arguments are not valid: quantity must be uint256");
    assert.equal(err.path, path);
    assert.equal(err.method, "POST");
    assert.equal(err.retryable, false);
    assert.equal(err.requestId, "req_1");
    assert.equal(err.idempotencyKey, "k-1");
    assert.equal(err.attempts, 1);
    assert.equal(err.body.status, false);
  });

  test("a network error has status 0, the request path, and its cause", async () => {
    const srv = await serve(["drop"]);
    const { rw } = client(srv, { maxRetries: 1 });
    const err = await rw.deposit.getOrder("ord_x").catch((e) => e);
    assert.ok(err instanceof RampwayError);
    assert.equal(err.status, 0);
    assert.equal(err.path, "/deposit/merchant/sdk/on-ramp/order/ord_x");
    assert.equal(err.retryable, true);
    assert.equal(err.attempts, 2);
    assert.ok(err.cause);
    assert.match(err.message, /^GET \/deposit\/merchant\/sdk\/on-ramp\/order\/ord_x: /);
  });

  test("an answer that is not the envelope is described by its status", async () => {
    const srv = await serve([{ status: 404, body: "not here", headers: { "Content-Type": "text/plain" } }]);
    const { rw } = client(srv);
    const err = await rw.mint.getOrder("ord_1").catch((e) => e);
    assert.equal(err.status, 404);
    assert.equal(err.code, undefined);
    assert.match(err.message, /HTTP 404: not here/);
    assert.equal(err.path, `${ORDER_PATH}/ord_1`);
  });

  test("a 2xx answer that is not JSON is an error, not retried", async () => {
    const srv = await serve([{ status: 200, body: "<html>", headers: { "Content-Type": "text/html" } }]);
    const { rw } = client(srv);
    const err = await rw.mint.getOrder("ord_1").catch((e) => e);
    assert.equal(err.status, 200);
    assert.equal(err.retryable, false);
    assert.match(err.message, /not JSON/);
  });

  test("the client refuses to be made without a key or a base URL", () => {
    assert.throws(() => new Rampway({ apiKey: "", baseUrl: "http://x" }), /apiKey/);
    assert.throws(() => new Rampway({ apiKey: "k" }), /baseUrl/);
    assert.throws(() => new Rampway({ apiKey: "k", mintBaseUrl: "http://x/mint", nftRampBaseUrl: "http://x/nft-ramp" }), /depositBaseUrl/);
  });
});

describe("pagination", () => {
  const all = Array.from({ length: 7 }, (_, i) => order(`ord_${7 - i}`));
  const lister = (r) => {
    const limit = Number(r.query.limit ?? 20);
    const start = r.query.starting_after ? all.findIndex((o) => o.order_id === r.query.starting_after) + 1 : 0;
    const data = all.slice(start, start + limit);
    return { status: 200, body: { data, has_more: start + limit < all.length } };
  };

  test("listOrders iterates every page with starting_after, newest first", async () => {
    const srv = await serve([lister]);
    const { rw } = client(srv);
    const got = [];
    for await (const o of rw.mint.listOrders({ limit: 3, status: "SUCCESS", created_from: new Date("2026-11-21T14:00:00Z") })) {
      got.push(o.order_id);
    }
    assert.deepEqual(got, all.map((o) => o.order_id));
    assert.equal(srv.requests.length, 3);
    assert.deepEqual(srv.requests.map((r) => r.query.starting_after), [undefined, "ord_5", "ord_2"]);
    for (const r of srv.requests) {
      assert.equal(r.path, "/mint/merchant/hosted/nftCheckout/orders");
      assert.equal(r.query.limit, "3");
      assert.equal(r.query.status, "SUCCESS");
      assert.equal(r.query.created_from, "2026-11-21T14:00:00.000Z");
    }
  });

  test("the iterator asks for pages of 100 by default, reads only what is consumed, and starts again when iterated again", async () => {
    const srv = await serve([lister]);
    const { rw } = client(srv);
    const it = rw.deposit.listOrders();
    assert.equal((await it.toArray(2)).length, 2);
    assert.equal(srv.requests.length, 1);
    assert.equal(srv.requests[0].query.limit, "100");
    assert.equal(srv.requests[0].path, "/deposit/merchant/sdk/on-ramp/orders");
    assert.equal((await it.toArray()).length, 7);
  });

  test("listOrdersPage is one page", async () => {
    const srv = await serve([lister]);
    const { rw } = client(srv);
    const page = await rw.nftRamp.listOrdersPage({ limit: 2, starting_after: "ord_7" });
    assert.deepEqual(page.data.map((o) => o.order_id), ["ord_6", "ord_5"]);
    assert.equal(page.has_more, true);
    assert.equal(srv.requests[0].path, "/nft-ramp/merchant/hosted/nftCheckout/orders");
  });

  test("an empty list ends at once", async () => {
    const srv = await serve([{ status: 200, body: { data: [], has_more: false } }]);
    const { rw } = client(srv);
    assert.deepEqual(await rw.mint.listOrders().toArray(), []);
  });
});

describe("refunds", () => {
  const refund = (extra = {}) => ({
    refund_id: "rfd_1",
    origin: "merchant",
    amount: "10.00",
    currency: "EUR",
    fee: "",
    network_fee: "",
    amount_sent: "",
    reason: "requested by the merchant",
    status: "pending",
    status_reason: "",
    destination: "card visa ****4242",
    to_address: "",
    tx_hash: "",
    provider_reference: "",
    created_at: "2026-11-25T03:14:11.885Z",
    updated_at: "2026-11-25T03:14:11.885Z",
    ...extra,
  });
  // Each area's order route, as the contract of issue #31 puts the refunds under it.
  const areas = [
    { area: "mint", path: "/mint/merchant/hosted/nftCheckout/order/ord_1/refunds", req: { amount: "0.004", reason: "one item returned", address: "0x00000000000000000000000000000000000000a1" } },
    { area: "nftRamp", path: "/nft-ramp/merchant/hosted/nftCheckout/order/ord_1/refunds", req: { amount: "12.50", reason: "one item returned" } },
    { area: "deposit", path: "/deposit/merchant/sdk/on-ramp/order/ord_1/refunds", req: { amount: "12.50" } },
  ];

  for (const { area, path, req } of areas) {
    test(`${area}.createRefund POSTs the request to the order's refunds with the client's merchant_id and an Idempotency-Key`, async () => {
      const srv = await serve([{ status: 200, body: refund() }]);
      const { rw } = client(srv);
      const got = await rw[area].createRefund("ord_1", req);
      assert.deepEqual(got, refund());
      assert.equal(srv.requests.length, 1);
      const r = srv.requests[0];
      assert.equal(`${r.method} ${r.path}`, `POST ${path}`);
      assert.deepEqual(r.json, { ...req, merchant_id: "mch_1" });
      assert.equal(r.headers["content-type"], "application/json");
      assert.equal(r.headers["x-api-key"], "rw_test_key");
      assert.match(r.headers["idempotency-key"], UUID);
    });

    test(`${area}.listRefunds GETs the order's refunds`, async () => {
      const list = { data: [refund({ origin: "automatic" }), refund({ refund_id: "rfd_2", status: "done" })], currency: "EUR", amount_paid: "25.00", amount_refunded: "10.00", amount_refundable: "15.00" };
      const srv = await serve([{ status: 200, body: list }]);
      const { rw } = client(srv);
      assert.deepEqual(await rw[area].listRefunds("ord_1"), list);
      const r = srv.requests[0];
      assert.equal(`${r.method} ${r.path}`, `GET ${path}`);
      assert.equal(r.headers["idempotency-key"], undefined);
      assert.equal(r.body, "");
    });
  }

  test("without a request the whole rest is refunded: the body is only merchant_id, or empty", async () => {
    const srv = await serve([{ status: 200, body: refund() }]);
    await client(srv).rw.deposit.createRefund("ord_1");
    await new Rampway({ apiKey: "k", baseUrl: srv.url }).deposit.createRefund("ord_1");
    await client(srv).rw.nftRamp.createRefund("ord_1", { merchant_id: "mch_other" });
    assert.deepEqual(srv.requests.map((r) => r.json), [{ merchant_id: "mch_1" }, {}, { merchant_id: "mch_other" }]);
  });

  test("a retried createRefund sends one Idempotency-Key and one body on every attempt", async () => {
    const srv = await serve([
      { status: 503, body: envelope(503, "provider unavailable"), headers: { "Retry-After": "0" } },
      { status: 500, body: envelope(500, "Internal server error (error id: err_1)") },
      "drop",
      { status: 200, body: refund() },
    ]);
    const { rw, retries } = client(srv);
    const got = await rw.nftRamp.createRefund("ord_1", { amount: "10.00" });
    assert.equal(got.refund_id, "rfd_1");
    assert.equal(srv.requests.length, 4);
    assert.deepEqual(retries.map((r) => r.error.status), [503, 500, 0]);
    const keys = new Set(srv.requests.map((r) => r.headers["idempotency-key"]));
    assert.equal(keys.size, 1, "one Idempotency-Key for every attempt");
    assert.match([...keys][0], UUID);
    assert.deepEqual(retries.map((r) => r.idempotencyKey), [...keys, ...keys, ...keys]);
    for (const r of srv.requests) {
      assert.deepEqual(r.json, { amount: "10.00", merchant_id: "mch_1" });
    }
  });

  test("each createRefund makes its own key; a given one is sent as is", async () => {
    const srv = await serve([{ status: 200, body: refund() }]);
    const { rw } = client(srv);
    await rw.mint.createRefund("ord_1");
    await rw.mint.createRefund("ord_1");
    await rw.mint.createRefund("ord_1", {}, { idempotencyKey: "refund-ord_1-1" });
    const [a, b, c] = srv.requests.map((r) => r.headers["idempotency-key"]);
    assert.notEqual(a, b);
    assert.equal(c, "refund-ord_1-1");
  });

  test("a 400 naming amount is a RampwayError with the server's message, not retried", async () => {
    const path = "/nft-ramp/merchant/hosted/nftCheckout/order/ord_1/refunds";
    const message = "amount: 20.00 EUR is more than what is left: 3.00 EUR is left to refund";
    const srv = await serve([{ status: 400, body: envelope(400, message, path) }]);
    const { rw } = client(srv);
    const err = await rw.nftRamp.createRefund("ord_1", { amount: "20.00" }, { idempotencyKey: "k-r" }).catch((e) => e);
    assert.ok(err instanceof RampwayError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 400);
    assert.equal(err.message, message);
    assert.match(err.message, /^amount\b/);
    assert.equal(err.path, path);
    assert.equal(err.method, "POST");
    assert.equal(err.retryable, false);
    assert.equal(err.idempotencyKey, "k-r");
    assert.equal(err.attempts, 1);
    assert.equal(err.body.statusCode, 400);
    assert.equal(srv.requests.length, 1);
  });

  for (const [status, message] of [
    [404, "Order not found"],
    [409, "the order is not SUCCESS: nothing to refund"],
  ]) {
    test(`a ${status} of createRefund is thrown at once`, async () => {
      const srv = await serve([{ status, body: envelope(status, message) }]);
      const { rw } = client(srv);
      const err = await rw.mint.createRefund("ord_1").catch((e) => e);
      assert.ok(err instanceof RampwayError);
      assert.equal(err.status, status);
      assert.equal(err.message, message);
      assert.equal(err.retryable, false);
      assert.equal(srv.requests.length, 1);
    });
  }

  test("an empty or missing order id is refused before any request", async () => {
    const srv = await serve([{ status: 200, body: refund() }]);
    const { rw } = client(srv);
    await assert.rejects(rw.mint.createRefund(""), /orderId/);
    await assert.rejects(rw.deposit.listRefunds(undefined), /orderId/);
    await rw.nftRamp.listRefunds("ord/1");
    assert.deepEqual(srv.requests.map((r) => r.path), ["/nft-ramp/merchant/hosted/nftCheckout/order/ord%2F1/refunds"]);
  });
});

describe("routes", () => {
  // Every merchant operation of httpapi/openapi.json, called through the SDK.
  const calls = {
    createMintOrder: (rw) => rw.mint.createOrder(mintBody),
    createCryptoQuote: (rw) => rw.mint.cryptoQuote(mintBody),
    getMintOrder: (rw) => rw.mint.getOrder("ord_1"),
    listMintOrders: (rw) => rw.mint.listOrdersPage(),
    listMintOrderWebhooks: (rw) => rw.mint.listWebhooks("ord_1"),
    resendMintOrderWebhook: (rw) => rw.mint.resendWebhook("ord_1", "evt_1"),
    setMintOrderRefundAddress: (rw) => rw.mint.setRefundAddress("ord_1", "rfd_1", "0x0000000000000000000000000000000000000001"),
    createFiatOrder: (rw) => rw.nftRamp.createOrder({ ...mintBody, order_fiat_symbol: "EUR", fiat_payment_method: "credit_debit_card" }),
    listFiatCurrencies: (rw) => rw.nftRamp.fiatCurrencies(),
    createFiatQuote: (rw) => rw.nftRamp.fiatQuote({ order_fiat_symbol: "EUR", fiat_payment_method: "credit_debit_card", contractExecution: mintBody.contractExecution }),
    getFiatOrder: (rw) => rw.nftRamp.getOrder("ord_1"),
    listFiatOrders: (rw) => rw.nftRamp.listOrdersPage(),
    listFiatOrderWebhooks: (rw) => rw.nftRamp.listWebhooks("ord_1"),
    resendFiatOrderWebhook: (rw) => rw.nftRamp.resendWebhook("ord_1", "evt_1"),
    createDepositOrder: (rw) =>
      rw.deposit.createOrder({ order_fiat_symbol: "EUR", order_fiat_amount: "100.00", convert_to_crypto_symbol: "ETH", convert_to_crypto_network: "devnet", merchant_user_id: "u", merchant_redirect_url: "https://x" }),
    listDepositFiatCurrencies: (rw) => rw.deposit.fiatCurrencies(),
    getDepositOrder: (rw) => rw.deposit.getOrder("ord_1"),
    listDepositOrders: (rw) => rw.deposit.listOrdersPage(),
    listDepositOrderWebhooks: (rw) => rw.deposit.listWebhooks("ord_1"),
    resendDepositOrderWebhook: (rw) => rw.deposit.resendWebhook("ord_1", "evt_1"),
    createMintOrderRefund: (rw) => rw.mint.createRefund("ord_1", { amount: "0.001" }),
    listMintOrderRefunds: (rw) => rw.mint.listRefunds("ord_1"),
    createFiatOrderRefund: (rw) => rw.nftRamp.createRefund("ord_1", { amount: "12.50" }),
    listFiatOrderRefunds: (rw) => rw.nftRamp.listRefunds("ord_1"),
    createDepositOrderRefund: (rw) => rw.deposit.createRefund("ord_1"),
    listDepositOrderRefunds: (rw) => rw.deposit.listRefunds("ord_1"),
  };

  test("every merchant operation of openapi.json has a call that sends its method and path", async () => {
    const doc = JSON.parse(await readFile(new URL("../../../httpapi/openapi.json", import.meta.url), "utf8"));
    const ops = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        // The server-sent event stream of the merchant's deliveries is rampway listen's, not a call.
        const stream = Object.values(op.responses ?? {}).some((r) => r.content?.["text/event-stream"]);
        if (typeof op === "object" && op.operationId && (op.tags ?? []).some((t) => /^[ABC]:/.test(t)) && !stream) {
          ops.push({ id: op.operationId, method: method.toUpperCase(), path, post: method === "post" });
        }
      }
    }
    assert.deepEqual(ops.map((o) => o.id).sort(), Object.keys(calls).sort(), "the SDK's calls are the merchant operations of openapi.json");
    for (const op of ops) {
      const srv = await serve([{ status: op.post ? 201 : 200, body: {} }]);
      const { rw } = client(srv);
      await calls[op.id](rw);
      const r = srv.requests[0];
      const want = op.path.replace("{order_id}", "ord_1").replace("{event_id}", "evt_1").replace("{refund_id}", "rfd_1");
      assert.equal(`${r.method} ${r.path}`, `${op.method} ${want}`, op.id);
      if (op.post) {
        assert.match(r.headers["idempotency-key"], UUID, op.id);
        assert.equal(r.json.merchant_id, "mch_1", `${op.id} sends the client's merchant_id`);
      }
    }
  });

  test("as many calls as routes.go mounts merchant routes", async () => {
    const src = await readFile(new URL("../../../httpapi/routes.go", import.meta.url), "utf8");
    const mounted = src.split("\n").filter((l) => /^\s*api\("(GET|POST) "/.test(l));
    assert.equal(mounted.length, Object.keys(calls).length, mounted.join("\n"));
  });

  test("area base URLs can be set one by one (dev.json's api), ids are escaped", async () => {
    const srv = await serve([{ status: 200, body: {} }]);
    const rw = new Rampway({ apiKey: "k", mintBaseUrl: `${srv.url}/a/`, nftRampBaseUrl: `${srv.url}/b`, depositBaseUrl: `${srv.url}/c` });
    await rw.mint.getOrder("ord/1");
    await rw.nftRamp.fiatCurrencies();
    await rw.deposit.fiatCurrencies();
    assert.deepEqual(srv.requests.map((r) => r.path), [
      "/a/merchant/hosted/nftCheckout/order/ord%2F1",
      "/b/merchant/hosted/nftCheckout/fiatCurrencies",
      "/c/merchant/sdk/onramp-to-deposit/fiatCurrencies",
    ]);
    await assert.rejects(rw.mint.getOrder(""), /orderId/);
  });

  test("a body's own merchant_id is kept", async () => {
    const srv = await serve([{ status: 201, body: created }]);
    const { rw } = client(srv);
    await rw.mint.createOrder({ ...mintBody, merchant_id: "mch_other" });
    assert.equal(srv.requests[0].json.merchant_id, "mch_other");
  });
});
