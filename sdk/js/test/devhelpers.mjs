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

/** Pays an order of area B or C with a sandbox test card, as the page's card form posts it. */
export async function payByCard(gatewayUrl, number) {
  const page = await fetch(gatewayUrl);
  const html = await page.text();
  assert.equal(page.status, 200, html);
  const m = /<form method="post" action="([^"]+)" id="card-form"/.exec(html);
  assert.ok(m, `no card form on the checkout page:\n${html}`);
  const res = await fetch(new URL(m[1].replaceAll("&amp;", "&"), gatewayUrl), {
    method: "POST",
    body: new URLSearchParams({ card_number: number, expiry: "12/34", cvc: "123", name: "Ada Lovelace" }),
  });
  assert.equal(res.status, 200, await res.text());
}
