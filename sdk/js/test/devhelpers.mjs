// Helpers of the SDK's tests that drive a real `rampway dev` (e2e.test.mjs, quickstart.test.mjs).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";

/** Runs file with args (execFile's opts: cwd, env...) and resolves to its stdout; rejects with its output. */
export function run(file, args, opts = {}) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 16 << 20, ...opts }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(" ")}: ${err.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

/** HTML-unescapes what a page holds in an attribute (html/template's escapes). */
const unescape = (s) =>
  s.replace(/&(#(\d+)|amp|lt|gt|quot);/g, (_, e, n) => (n ? String.fromCharCode(Number(n)) : { amp: "&", lt: "<", gt: ">", quot: '"' }[e]));

/**
 * Opens an order's checkout page as a browser without scripts would and resolves to { url, html } of
 * the page showing the payment's step: when the page asks the person to start the payment (a GET
 * starts nothing), its form is posted and the redirect back to the page followed.
 */
export async function paymentPage(gatewayUrl) {
  let res = await fetch(gatewayUrl);
  let html = await res.text();
  assert.equal(res.status, 200, html);
  const start = /<form method="post" action="([^"]+)" id="start-form">([\s\S]*?)<\/form>/.exec(html);
  if (start) {
    const form = new URLSearchParams();
    for (const [, name, value] of start[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.set(name, unescape(value));
    res = await fetch(new URL(unescape(start[1]), res.url), { method: "POST", body: form });
    html = await res.text();
    assert.equal(res.status, 200, html);
  }
  return { url: res.url, html };
}

/** Pays an order of area B or C with a sandbox test card, as the page's start step and card form post it. */
export async function payByCard(gatewayUrl, number) {
  const { url, html } = await paymentPage(gatewayUrl);
  const m = /<form method="post" action="([^"]+)" id="card-form"/.exec(html);
  assert.ok(m, `no card form on the checkout page:\n${html}`);
  const res = await fetch(new URL(unescape(m[1]), url), {
    method: "POST",
    body: new URLSearchParams({ card_number: number, expiry: "12/34", cvc: "123", name: "Ada Lovelace" }),
  });
  assert.equal(res.status, 200, await res.text());
}
