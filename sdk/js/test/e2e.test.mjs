// End to end against a live `rampway dev`: the SDK drives area A, B and C journeys (quote,
// create, pay, look up until SUCCESS), receives each order's webhooks at its own
// merchant_webhook_url on a local server through webhookHandler, and checks them against the
// order's webhook log; a create whose answer is lost is retried and makes one order.
//
// The binary is $RAMPWAY_BIN, or built from this checkout (go build ./cmd/rampway). Payments:
// area A with `rampway dev pay` (the dev payer wallet), areas B and C with the sandbox's test
// card through the checkout page's form, as a browser without scripts posts it.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";

import { MemoryDeduper, Rampway, RampwayError, webhookHandler } from "../dist/index.js";
import { payByCard, run } from "./devhelpers.mjs";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;
const PAID_A = ["order.created", "order.deposit.processing", "order.deposit.success", "order.smartcontract.processing", "order.smartcontract.success", "order.success"];
const PAID_B = ["order.created", "user.widget.open", "order.onramp.processing", "order.onramp.success", "order.smartcontract.processing", "order.smartcontract.success", "order.success"];
const PAID_C = ["order.created", "user.widget.open", "order.onramp.processing", "order.onramp.success", "order.deposit.processing", "order.deposit.success", "order.success"];
const IDENTITY = { user_first_name: "Ada", user_last_name: "Lovelace", user_email_id: "ada@example.com", user_dob: "1990-12-10", user_countryCode: "DE", user_mobileNumber: "+4915112345678" };
const RUN = Date.now().toString(36);

/** The running dev server, its dev.json, the SDK client and the webhook receiver. */
const env = {};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts `rampway dev` on free ports and waits for its dev.json. */
async function startDev(bin, dir) {
  const child = spawn(bin, ["dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (out += c));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  let gone = false;
  exited.then(() => (gone = true));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (gone) {
      throw new Error(`rampway dev exited before writing dev.json:\n${out}`);
    }
    try {
      const dj = JSON.parse(await readFile(path.join(dir, "dev.json"), "utf8"));
      return { child, exited, dj, output: () => out };
    } catch {
      // Not written yet.
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`no dev.json after 90 s:\n${out}`);
    }
    await sleep(100);
  }
}

/** The merchant's webhook receiver: webhookHandler on a local server, recording what it gets. */
async function startReceiver(secret) {
  const events = new Map(); // order_id -> event names, in the order processed
  const eventIds = new Map(); // order_id -> eventIds
  const duplicates = new Map(); // eventId -> deliveries acknowledged as duplicates
  const answers = []; // the handler's statuses
  const mem = new MemoryDeduper();
  const seen = {
    seen(id, now) {
      const s = mem.seen(id, now);
      if (s) {
        duplicates.set(id, (duplicates.get(id) ?? 0) + 1);
      }
      return s;
    },
    forget: (id) => mem.forget(id),
  };
  const handler = webhookHandler({
    secret,
    seen,
    onEvent: (ev) => {
      const id = ev.context.order_id;
      events.set(id, [...(events.get(id) ?? []), ev.eventName]);
      eventIds.set(id, [...(eventIds.get(id) ?? []), ev.eventId]);
    },
    onError: (err) => answers.push(`refused: ${err.message}`),
  });
  const server = http.createServer(async (req, res) => {
    await handler(req, res);
    answers.push(res.statusCode);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/hooks`, server, events, eventIds, duplicates, answers };
}

before(async () => {
  env.tmp = await mkdtemp(path.join(tmpdir(), "rampway-sdk-js-"));
  let bin = process.env.RAMPWAY_BIN;
  if (!bin) {
    bin = path.join(env.tmp, "rampway");
    await run("go", ["build", "-o", bin, "./cmd/rampway"], { cwd: REPO });
  }
  env.bin = bin;
  env.dataDir = path.join(env.tmp, "data");
  env.dev = await startDev(bin, env.dataDir);
  const dj = env.dev.dj;
  env.dj = dj;
  env.rw = new Rampway({
    apiKey: dj.merchant.api_key,
    merchantId: dj.merchant.merchant_id,
    mintBaseUrl: dj.api.mint_base_url,
    nftRampBaseUrl: dj.api.nft_ramp_base_url,
    depositBaseUrl: dj.api.deposit_base_url,
  });
  env.hooks = await startReceiver(dj.merchant.webhook_secret);
}, { timeout: 600_000 });

after(async () => {
  env.hooks?.server.close();
  env.hooks?.server.closeAllConnections?.();
  if (env.dev) {
    env.dev.child.kill("SIGINT"); // Ctrl-C stops it cleanly
    let timer;
    const stopped = await Promise.race([env.dev.exited, new Promise((r) => (timer = setTimeout(() => r(null), 30_000)))]);
    clearTimeout(timer);
    if (stopped === null) {
      env.dev.child.kill("SIGKILL");
      await env.dev.exited;
    }
  }
  if (env.tmp) {
    await rm(env.tmp, { recursive: true, force: true });
  }
});

/** Polls the order through api until it is status; fails at once on an end it cannot leave. */
async function waitStatus(api, id, status, limit = 60_000) {
  const deadline = Date.now() + limit;
  for (;;) {
    const o = await api.getOrder(id);
    if (o.status === status) {
      return o;
    }
    if (["FAILED", "EXPIRED", "CANCELLED", "REFUNDED"].includes(o.status) || Date.now() > deadline) {
      assert.fail(`order ${id} is ${o.status} (failure_reason ${o.failure_reason}), want ${status}\n${env.dev.output().slice(-4000)}`);
    }
    await sleep(100);
  }
}

/** Waits until the receiver processed exactly want for the order, in that order. */
async function waitEvents(id, want, limit = 30_000) {
  const deadline = Date.now() + limit;
  for (;;) {
    const got = env.hooks.events.get(id) ?? [];
    const refused = env.hooks.answers.filter((a) => a !== 200);
    assert.deepEqual(refused, [], "every delivery verified and was answered 200");
    if (got.length >= want.length || Date.now() > deadline) {
      assert.deepEqual(got, want, `events of ${id}`);
      return;
    }
    await sleep(50);
  }
}

/** Waits until every delivery of the order's log is delivered, and returns the log. */
async function waitDelivered(api, id, n, limit = 30_000) {
  const deadline = Date.now() + limit;
  for (;;) {
    const log = await api.listWebhooks(id);
    if ((log.data.length === n && log.data.every((d) => d.status === "delivered")) || Date.now() > deadline) {
      return log;
    }
    await sleep(100);
  }
}

/** Base units of a decimal amount with decimals places. */
function units(amount, decimals) {
  const [whole, frac = ""] = amount.split(".");
  return BigInt(whole + frac.padEnd(decimals, "0"));
}

/** An address's ETH balance in wei, asked of the dev chain over JSON-RPC. */
async function balance(address) {
  const res = await fetch(env.dj.chain.rpc_url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [address, "latest"] }),
  });
  return BigInt((await res.json()).result);
}

/** The demo mint function paid in symbol, from dev.json. */
function fn(symbol = "ETH") {
  const f = env.dj.smart_contract_functions.find((f) => f.payable_symbol === symbol);
  assert.ok(f, `dev.json has no function paid in ${symbol}`);
  return f;
}

function mintRequest(txn) {
  const f = fn();
  return {
    crypto_symbol: f.payable_symbol,
    crypto_network: env.dj.chain.network,
    contractExecution: f.example,
    merchant_user_id: "user-1",
    merchant_txn_id: txn,
    merchant_redirect_url: "http://127.0.0.1:3000/done",
    merchant_webhook_url: env.hooks.url,
  };
}

function fiatRequest(txn) {
  return {
    order_fiat_symbol: "EUR",
    fiat_payment_method: "credit_debit_card",
    contractExecution: fn().example,
    merchant_user_id: "user-1",
    merchant_txn_id: txn,
    merchant_redirect_url: "http://127.0.0.1:3000/done",
    merchant_webhook_url: env.hooks.url,
    ...IDENTITY,
  };
}

function depositRequest(txn, amount = "100.00") {
  return {
    order_fiat_symbol: "EUR",
    order_fiat_amount: amount,
    convert_to_crypto_symbol: "ETH",
    convert_to_crypto_network: env.dj.chain.network,
    fiat_payment_method: "credit_debit_card",
    merchant_user_id: "user-1",
    merchant_txn_id: txn,
    merchant_redirect_url: "http://127.0.0.1:3000/done",
    merchant_webhook_url: env.hooks.url,
    ...IDENTITY,
  };
}

/** The area's orders with merchant_txn_id txn, through the SDK's paginated list. */
async function ordersWithTxn(api, txn) {
  const out = [];
  for await (const o of api.listOrders({ limit: 5 })) {
    if (o.merchant_txn_id === txn) {
      out.push(o);
    }
  }
  return out;
}

const created = {}; // area -> order_id of its paid journey

describe("rampway dev", { timeout: 300_000 }, () => {
  test("area A: quote, create, pay on chain, SUCCESS, the webhooks verified, the log, a resend deduplicated", async () => {
    const { rw } = env;
    const req = mintRequest(`A-${RUN}`);
    const quote = await rw.mint.cryptoQuote({ crypto_symbol: req.crypto_symbol, crypto_network: req.crypto_network, contractExecution: req.contractExecution });
    assert.equal(quote.allowed, true, quote.message);
    assert.match(quote.crypto_amount, DECIMAL);
    assert.equal(quote.total_value, req.contractExecution.payment.totalValue);

    const o = await rw.mint.createOrder(req);
    assert.match(o.order_id, /^ord_/);
    assert.equal(o.crypto_symbol, "ETH");
    assert.equal(o.crypto_contract_address, null);
    assert.match(o.crypto_amount, DECIMAL);
    assert.ok(o.gateway_url.includes(o.order_id) && o.gateway_url.includes(o.hash));
    assert.equal(o.info, undefined, "the merchant has a webhook secret");
    created.A = o.order_id;

    const before = await rw.mint.getOrder(o.order_id);
    assert.equal(before.status, "CREATED");
    assert.equal(before.merchant_webhook_url, env.hooks.url);
    assert.equal(before.crypto_amount, o.crypto_amount);

    await run(env.bin, ["dev", "pay", "--data-dir", env.dataDir, o.order_id]);
    const v = await waitStatus(rw.mint, o.order_id, "SUCCESS");
    assert.equal(v.crypto_amount_received, o.crypto_amount);
    assert.match(v.execution_tx_hash, /^0x[0-9a-f]{64}$/);
    assert.equal(v.deposits.length, 1);
    assert.equal(v.deposits[0].amount, o.crypto_amount);
    assert.equal(v.deposits[0].from_address.toLowerCase(), env.dj.chain.payer_address.toLowerCase());

    await waitEvents(o.order_id, PAID_A);
    const log = await waitDelivered(rw.mint, o.order_id, PAID_A.length);
    assert.deepEqual(log.data.map((d) => d.event_name), PAID_A);
    assert.deepEqual(log.data.map((d) => d.event_id), env.hooks.eventIds.get(o.order_id), "the receiver got the log's events");
    for (const d of log.data) {
      assert.equal(d.status, "delivered");
      assert.equal(d.url, env.hooks.url);
      assert.equal(d.attempts.at(-1).status_code, 200);
    }

    // A resend is the same event again: delivered, acknowledged as a duplicate, not processed twice.
    const first = log.data[0];
    const resent = await rw.mint.resendWebhook(o.order_id, first.event_id);
    assert.equal(resent.event_id, first.event_id);
    assert.equal(resent.status, "pending");
    const deadline = Date.now() + 20_000;
    while ((env.hooks.duplicates.get(first.event_id) ?? 0) < 1) {
      assert.ok(Date.now() < deadline, "the resent event did not arrive");
      await sleep(50);
    }
    assert.deepEqual(env.hooks.events.get(o.order_id), PAID_A, "a duplicate does not reach onEvent");
    const again = await waitDelivered(rw.mint, o.order_id, PAID_A.length);
    assert.equal(again.data[0].attempts.length, first.attempts.length + 1);
  });

  test("area B: currencies, fiat quote, create, pay by card, SUCCESS, the webhooks verified, refunded in full", async () => {
    const { rw } = env;
    const { currencies } = await rw.nftRamp.fiatCurrencies();
    const eur = currencies.find((c) => c.symbol === "EUR");
    assert.ok(eur, "EUR is a dev currency");
    const card = eur.paymentOptions.find((p) => p.id === "credit_debit_card");
    assert.ok(card && Number.isInteger(card.minAmount) && Number.isInteger(card.maxAmount));

    const req = fiatRequest(`B-${RUN}`);
    const quote = await rw.nftRamp.fiatQuote({ order_fiat_symbol: req.order_fiat_symbol, fiat_payment_method: req.fiat_payment_method, contractExecution: req.contractExecution });
    assert.equal(quote.allowed, true, quote.message);
    assert.match(quote.fiat_amount, /^[0-9]+\.[0-9]{2}$/);
    assert.equal(quote.fiat_symbol, "EUR");
    assert.equal(quote.payable_crypto_symbol, "ETH");

    const o = await rw.nftRamp.createOrder(req);
    assert.equal(o.order_fiat_symbol, "EUR");
    assert.equal(o.fiat_payment_method, "credit_debit_card");
    assert.match(o.order_fiat_amount, /^[0-9]+\.[0-9]{2}$/);
    created.B = o.order_id;

    await payByCard(o.gateway_url, env.dj.fiat.test_cards.success);
    const v = await waitStatus(rw.nftRamp, o.order_id, "SUCCESS");
    assert.equal(v.order_fiat_amount, o.order_fiat_amount);
    assert.equal(v.fiat_payment.method, "credit_debit_card");
    assert.equal(v.fiat_payment.amount, o.order_fiat_amount);
    assert.equal(v.fiat_payment.card_last4, "4242");
    assert.match(v.execution_tx_hash, /^0x[0-9a-f]{64}$/);
    await waitEvents(o.order_id, PAID_B);
    const log = await waitDelivered(rw.nftRamp, o.order_id, PAID_B.length);
    assert.deepEqual(log.data.map((d) => d.event_name), PAID_B);

    // The merchant refunds all of it through the provider: REFUNDED.
    const rf = await rw.nftRamp.createRefund(o.order_id, { reason: "returned" });
    assert.equal(rf.origin, "merchant");
    assert.equal(rf.amount, o.order_fiat_amount);
    assert.equal(rf.currency, o.order_fiat_symbol);
    const refunded = await waitStatus(rw.nftRamp, o.order_id, "REFUNDED");
    assert.equal(refunded.refunded_amount, o.order_fiat_amount);
    const refunds = await rw.nftRamp.listRefunds(o.order_id);
    assert.equal(refunds.data.length, 1);
    assert.equal(refunds.data[0].refund_id, rf.refund_id);
    assert.equal(refunds.data[0].status, "done");
    assert.equal(refunds.amount_refundable, "0.00");
  });

  test("area C: currencies, create, pay by card, SUCCESS, the deposit address holds exactly crypto_amount more, the webhooks verified", async () => {
    const { rw, dj } = env;
    const { currencies } = await rw.deposit.fiatCurrencies();
    assert.ok(currencies.some((c) => c.symbol === "EUR" && c.paymentOptions.some((p) => p.id === "credit_debit_card")));
    const to = dj.merchant.deposit_addresses.find((a) => a.symbol === "ETH").address;
    const before = await balance(to);

    const o = await rw.deposit.createOrder(depositRequest(`C-${RUN}`));
    assert.equal(o.order_fiat_amount, "100.00");
    assert.equal(o.convert_to_crypto_symbol, "ETH");
    assert.equal(o.convert_to_crypto_contractAddress, null);
    assert.equal(o.fiat_payment_method, "credit_debit_card");
    assert.match(o.crypto_amount, DECIMAL);
    created.C = o.order_id;

    await payByCard(o.gateway_url, dj.fiat.test_cards.success);
    const v = await waitStatus(rw.deposit, o.order_id, "SUCCESS");
    assert.equal(v.deposit_address, to);
    assert.equal(v.crypto_amount, o.crypto_amount);
    assert.equal(await balance(to), before + units(o.crypto_amount, 18));
    await waitEvents(o.order_id, PAID_C);
    const log = await waitDelivered(rw.deposit, o.order_id, PAID_C.length);
    assert.deepEqual(log.data.map((d) => d.event_name), PAID_C);
  });

  test("a create whose answer is lost is retried with its Idempotency-Key and makes one order (A1, B1, C1)", async () => {
    const { dj } = env;
    // A proxy that forwards every request, but closes the connection instead of answering the
    // first POST of each create: the order is made, its answer lost.
    const upstream = new URL(dj.api.mint_base_url);
    const seen = []; // {path, key, status, replayed}
    const dropped = new Set();
    const proxy = http.createServer(async (req, res) => {
      let body = "";
      for await (const c of req) {
        body += c;
      }
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      delete headers["content-length"];
      delete headers["transfer-encoding"];
      const up = await fetch(new URL(req.url, upstream), { method: req.method, headers, body: req.method === "POST" ? body : undefined });
      const text = await up.text();
      seen.push({ path: req.url, key: req.headers["idempotency-key"], status: up.status, replayed: up.headers.get("idempotent-replayed") });
      if (req.method === "POST" && !dropped.has(req.url)) {
        dropped.add(req.url);
        req.socket.destroy();
        return;
      }
      res.writeHead(up.status, { "Content-Type": up.headers.get("content-type") ?? "application/json" });
      res.end(text);
    });
    await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
    const via = `http://127.0.0.1:${proxy.address().port}`;
    const retries = [];
    const rw = new Rampway({
      apiKey: dj.merchant.api_key,
      merchantId: dj.merchant.merchant_id,
      baseUrl: via,
      minRetryDelay: 50,
      onRetry: (i) => retries.push(i),
    });
    try {
      for (const [area, create, api] of [
        ["A", (txn) => rw.mint.createOrder({ ...mintRequest(txn), merchant_webhook_url: undefined }), env.rw.mint],
        ["B", (txn) => rw.nftRamp.createOrder({ ...fiatRequest(txn), merchant_webhook_url: undefined }), env.rw.nftRamp],
        ["C", (txn) => rw.deposit.createOrder({ ...depositRequest(txn, "42.00"), merchant_webhook_url: undefined }), env.rw.deposit],
      ]) {
        const txn = `retried-${area}-${RUN}`;
        seen.length = 0;
        const o = await create(txn);
        const posts = seen.filter((s) => s.key !== undefined);
        assert.equal(posts.length, 2, `${area}: the create was sent twice`);
        assert.equal(posts[0].key, posts[1].key, `${area}: with one Idempotency-Key`);
        assert.equal(posts[0].status, 201, `${area}: the first attempt made the order`);
        assert.equal(posts[1].replayed, "true", `${area}: the retry replayed its answer`);
        const orders = await ordersWithTxn(api, txn);
        assert.deepEqual(orders.map((x) => x.order_id), [o.order_id], `${area}: one order`);
      }
      assert.equal(retries.length, 3);
      assert.ok(retries.every((r) => r.error.status === 0 && r.error.retryable));

      // Two concurrent calls under one key: one order, whichever answers first (the other is
      // 409 while the first runs, retried, then replayed).
      const txn = `concurrent-${RUN}`;
      const key = `sdk-js-${RUN}`;
      const req = { ...depositRequest(txn, "55.00"), merchant_webhook_url: undefined };
      const [a, b] = await Promise.all([env.rw.deposit.createOrder(req, { idempotencyKey: key }), env.rw.deposit.createOrder(req, { idempotencyKey: key })]);
      assert.equal(a.order_id, b.order_id);
      assert.deepEqual((await ordersWithTxn(env.rw.deposit, txn)).map((x) => x.order_id), [a.order_id]);
    } finally {
      proxy.close();
      proxy.closeAllConnections?.();
    }
  });

  test("lists: every order once, across pages; filters", async () => {
    const { rw } = env;
    const page = await rw.mint.listOrdersPage({ limit: 100 });
    assert.equal(page.has_more, false);
    const ids = [];
    for await (const o of rw.mint.listOrders({ limit: 1 })) {
      ids.push(o.order_id);
    }
    assert.deepEqual(ids, page.data.map((o) => o.order_id), "page by page as in one page, newest first");
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.includes(created.A));
    const success = await rw.mint.listOrders({ status: "SUCCESS" }).toArray();
    assert.ok(success.some((o) => o.order_id === created.A) && success.every((o) => o.status === "SUCCESS"));
    const fromFuture = await rw.nftRamp.listOrders({ created_from: new Date(Date.now() + 3600_000) }).toArray();
    assert.deepEqual(fromFuture, []);
    const c = await rw.deposit.listOrders({ status: "SUCCESS" }).toArray();
    assert.ok(c.some((o) => o.order_id === created.C));
    assert.ok(!c.some((o) => o.order_id === created.A), "each area lists its own orders");
  });

  test("errors: RampwayError with status, message, path and retryable, as the server answers them", async () => {
    const { rw, dj } = env;
    const wrongKey = new Rampway({ apiKey: "rw_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", mintBaseUrl: dj.api.mint_base_url, nftRampBaseUrl: dj.api.nft_ramp_base_url, depositBaseUrl: dj.api.deposit_base_url });
    let e = await wrongKey.mint.getOrder(created.A).catch((x) => x);
    assert.ok(e instanceof RampwayError);
    assert.equal(e.status, 401);
    assert.equal(e.message, "Unauthorized");
    assert.equal(e.path, `/mint/merchant/hosted/nftCheckout/order/${created.A}`);
    assert.equal(e.retryable, false);
    assert.match(e.requestId, /^req_/);

    e = await rw.deposit.getOrder(created.A).catch((x) => x);
    assert.equal(e.status, 404, "an area A order is not area C's");
    assert.equal(e.path, `/deposit/merchant/sdk/on-ramp/order/${created.A}`);

    e = await rw.mint.setRefundAddress(created.A, "rfd_00000000000000000000000000", "0x00000000000000000000000000000000000000a1").catch((x) => x);
    assert.equal(e.status, 404);
    assert.equal(e.retryable, false);

    const bad = fiatRequest(`bad-${RUN}`);
    bad.contractExecution = { ...bad.contractExecution, function_args: { ...bad.contractExecution.function_args, quantity: "lots" } };
    e = await rw.nftRamp.createOrder(bad).catch((x) => x);
    assert.equal(e.status, 400);
    assert.equal(e.code, 403, "function-argument errors: HTTP 400, body statusCode 403");
    assert.match(e.message, /Function arguments are not valid/);

    e = await rw.mint.listOrdersPage({ limit: 1000 }).catch((x) => x);
    assert.equal(e.status, 400);
    assert.match(e.message, /limit/);
  });
});
