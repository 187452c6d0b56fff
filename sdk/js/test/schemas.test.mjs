// The SDK's request and response types (src/types.ts) against the schemas of
// httpapi/openapi.json: the same fields, and the same required ones, so that neither drifts
// from the other unnoticed.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

// TypeScript interface -> OpenAPI schema, and whether it is a request (merchant_id is optional
// in the SDK's requests: the client fills it in).
const pairs = {
  ContractExecution: ["ContractExecution", "request"],
  ContractExecutionPayment: ["ContractExecutionPayment", "request"],
  NetworkParams: ["NetworkParams", "request"],
  CryptoQuoteRequest: ["CryptoQuoteRequest", "request"],
  CryptoQuote: ["CryptoQuote", "response"],
  MintOrderRequest: ["MintOrderRequest", "request"],
  MintOrder: ["MintOrder", "response"],
  RefundAddressRequest: ["MerchantRefundAddressRequest", "request"],
  FiatQuoteRequest: ["FiatQuoteRequest", "request"],
  FiatQuote: ["FiatQuote", "response"],
  FiatOrderRequest: ["FiatOrderRequest", "request"],
  FiatOrder: ["FiatOrder", "response"],
  FiatCurrencies: ["FiatCurrencies", "response"],
  FiatCurrency: ["FiatCurrency", "response"],
  PaymentOption: ["PaymentOption", "response"],
  DepositOrderRequest: ["DepositOrderRequest", "request"],
  DepositOrder: ["DepositOrder", "response"],
  Order: ["Order", "response"],
  OrderList: ["OrderList", "response"],
  Deposit: ["Deposit", "response"],
  Refund: ["Refund", "response"],
  RefundRequest: ["RefundRequest", "request"],
  RefundList: ["RefundList", "response"],
  FiatPayment: ["FiatPayment", "response"],
  FiatMovement: ["FiatMovement", "response"],
  Delivery: ["Delivery", "response"],
  DeliveryAttempt: ["DeliveryAttempt", "response"],
  DeliveryLog: ["DeliveryLog", "response"],
  ErrorEnvelope: ["Error", "response"],
};

/** The interfaces of a TypeScript file: name -> {fields: name -> optional, extends}. */
function interfaces(src) {
  const out = {};
  const re = /export interface (\w+)(?: extends ([\w, ]+))? \{\n([\s\S]*?)\n\}/g;
  for (const m of src.matchAll(re)) {
    const fields = {};
    for (const f of m[3].matchAll(/^ {2}(\w+)(\?)?:/gm)) {
      fields[f[1]] = f[2] === "?";
    }
    out[m[1]] = { fields, extends: m[2] ? m[2].split(",").map((s) => s.trim()) : [] };
  }
  return out;
}

function allFields(ifaces, name) {
  const i = ifaces[name];
  assert.ok(i, `no interface ${name}`);
  let fields = {};
  for (const e of i.extends) {
    fields = { ...fields, ...allFields(ifaces, e) };
  }
  return { ...fields, ...i.fields };
}

test("every type has its schema's fields, required where the schema requires them", async () => {
  const doc = JSON.parse(await readFile(new URL("../../../httpapi/openapi.json", import.meta.url), "utf8"));
  const ifaces = interfaces(await readFile(new URL("../src/types.ts", import.meta.url), "utf8"));
  for (const [ts, [schemaName, kind]] of Object.entries(pairs)) {
    const schema = doc.components.schemas[schemaName];
    assert.ok(schema, `no schema ${schemaName}`);
    const fields = allFields(ifaces, ts);
    assert.deepEqual(Object.keys(fields).sort(), Object.keys(schema.properties).sort(), `${ts}'s fields are ${schemaName}'s`);
    const required = new Set(schema.required ?? []);
    for (const [name, optional] of Object.entries(fields)) {
      if (kind === "response") {
        assert.equal(optional, !required.has(name), `${ts}.${name}: ${required.has(name) ? "required" : "optional"} in ${schemaName}`);
      } else if (name === "merchant_id") {
        assert.equal(optional, true, `${ts}.merchant_id is filled in by the client`);
      } else {
        assert.equal(optional, !required.has(name), `${ts}.${name}: ${required.has(name) ? "required" : "optional"} in ${schemaName}`);
      }
    }
  }
});

test("the order statuses are the schema's", async () => {
  const doc = JSON.parse(await readFile(new URL("../../../httpapi/openapi.json", import.meta.url), "utf8"));
  const src = await readFile(new URL("../src/types.ts", import.meta.url), "utf8");
  const m = /export type OrderStatus =([\s\S]*?);/.exec(src);
  const statuses = [...m[1].matchAll(/"(\w+)"/g)].map((x) => x[1]);
  assert.deepEqual(statuses, doc.components.schemas.OrderStatus.enum);
});
