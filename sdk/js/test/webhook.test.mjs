// verifyWebhook, signWebhook and MemoryDeduper, and the cross-check with the Go client: Go's
// client.Sign signatures verify here, and for a table of headers (genuine, forged, malformed,
// stale) this verifier reaches the verdict of Go's client.VerifyWebhook.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

import { DEFAULT_TOLERANCE, MemoryDeduper, SIGNATURE_HEADER, WebhookVerificationError, signWebhook, verifyWebhook } from "../dist/index.js";

const SECRET = "whsec_test_0123456789abcdefghijklmnop";
const NOW = Date.UTC(2026, 10, 25, 6, 29, 26, 351);
const T = Math.floor(NOW / 1000);
const BODY = JSON.stringify({
  eventId: "evt_06h12s8jsz9747hb1yb2ev78w4",
  timestamp: "2026-11-25T06:29:26.351Z",
  eventName: "order.created",
  context: { order_id: "ord_06h12s8jsymjw1pgnkpyf6bpmc", merchant_txn_id: "t-1", status: "CREATED", crypto_amount: "0.010263" },
});

function code(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof WebhookVerificationError, `not a WebhookVerificationError: ${e}`);
    return e.code;
  }
  return "";
}

describe("verifyWebhook", () => {
  test("a genuine delivery verifies and its event is returned, from a string or the raw bytes", () => {
    const header = signWebhook(SECRET, BODY, NOW);
    assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
    for (const body of [BODY, Buffer.from(BODY), new Uint8Array(Buffer.from(BODY))]) {
      const ev = verifyWebhook(SECRET, body, header, { now: NOW });
      assert.equal(ev.eventId, "evt_06h12s8jsz9747hb1yb2ev78w4");
      assert.equal(ev.eventName, "order.created");
      assert.equal(ev.context.order_id, "ord_06h12s8jsymjw1pgnkpyf6bpmc");
      assert.equal(ev.context.crypto_amount, "0.010263", "amounts stay decimal strings");
    }
    assert.equal(SIGNATURE_HEADER, "X-Service-Webhook-Signature");
  });

  test("a bad signature: another secret, a changed body, a forged v1", () => {
    const header = signWebhook(SECRET, BODY, NOW);
    assert.equal(code(() => verifyWebhook("whsec_other", BODY, header, { now: NOW })), "bad_signature");
    assert.equal(code(() => verifyWebhook(SECRET, BODY.replace("0.010263", "0.000001"), header, { now: NOW })), "bad_signature");
    assert.equal(code(() => verifyWebhook(SECRET, ` ${BODY}`, header, { now: NOW })), "bad_signature", "re-serialised JSON does not verify");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, `t=${T},v1=${"0".repeat(64)}`, { now: NOW })), "bad_signature");
    const [, v1] = header.split(",v1=");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, `t=${T + 1},v1=${v1}`, { now: NOW })), "bad_signature", "t is signed too");
  });

  test("no signature, and malformed headers", () => {
    for (const [h, want] of [
      [undefined, "no_signature"],
      [null, "no_signature"],
      ["", "no_signature"],
      ["   ", "no_signature"],
      [`t=${T}`, "no_signature"],
      [`t=${T},v0=abc`, "no_signature"],
      [`v1=${"a".repeat(64)}`, "bad_signature"],
      [`t=${T},v1=xyz`, "bad_signature"],
      [`t=${T},v1=${"a".repeat(62)}`, "bad_signature"],
      [`t=-1,v1=${"a".repeat(64)}`, "bad_signature"],
      [`t=1.5,v1=${"a".repeat(64)}`, "bad_signature"],
      [`t=${T},t=${T},v1=${"a".repeat(64)}`, "bad_signature"],
      [`t=${T},garbage`, "bad_signature"],
      [`t=99999999999999999999,v1=${"a".repeat(64)}`, "bad_signature"],
    ]) {
      assert.equal(code(() => verifyWebhook(SECRET, BODY, h, { now: NOW })), want, `header ${JSON.stringify(h)}`);
    }
  });

  test("parts in any order, spaces, unknown schemes and extra v1s (a rotation) are accepted", () => {
    const header = signWebhook(SECRET, BODY, NOW);
    const [t, v1] = header.split(",");
    for (const h of [`${v1},${t}`, ` ${t} , ${v1} `, `${t},v0=zz,${v1}`, `${t},v1=${"b".repeat(64)},${v1}`, `${t},,${v1},`, `${t},v1=nothex,${v1}`, `t=0${T},${v1}`]) {
      assert.equal(code(() => verifyWebhook(SECRET, BODY, h, { now: NOW })), "", h);
    }
    // Uppercase hex decodes to the same bytes.
    assert.equal(code(() => verifyWebhook(SECRET, BODY, `${t},${v1.toUpperCase().replace("V1=", "v1=")}`, { now: NOW })), "");
  });

  test("during a rotation: a header signed with either secret verifies with both configured", () => {
    const header = `${signWebhook("whsec_old", BODY, NOW)},v1=${signWebhook(SECRET, BODY, NOW).split("v1=")[1]}`;
    assert.equal(code(() => verifyWebhook(SECRET, BODY, header, { now: NOW })), "");
    assert.equal(code(() => verifyWebhook("whsec_old", BODY, header, { now: NOW })), "");
    assert.equal(code(() => verifyWebhook(["whsec_new", "whsec_old"], BODY, signWebhook("whsec_old", BODY, NOW), { now: NOW })), "");
    assert.equal(code(() => verifyWebhook(["", "whsec_x"], BODY, header, { now: NOW })), "bad_signature");
  });

  test("outside the tolerance, in the past (a replay) or the future (a clock), with the default and a set tolerance", () => {
    const at = (s) => signWebhook(SECRET, BODY, NOW + s * 1000);
    assert.equal(DEFAULT_TOLERANCE, 300);
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(-300), { now: T * 1000 })), "", "exactly the tolerance is accepted");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(-301), { now: T * 1000 })), "timestamp");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(300), { now: T * 1000 })), "");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(301), { now: T * 1000 })), "timestamp");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(-61), { now: T * 1000, tolerance: 60 })), "timestamp");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(-59), { now: T * 1000, tolerance: 60 })), "");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(-299), { now: T * 1000, tolerance: 0 })), "", "0 is the default");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(-3600), { now: new Date(T * 1000) })), "timestamp");
    // The clock defaults to now.
    assert.equal(code(() => verifyWebhook(SECRET, BODY, signWebhook(SECRET, BODY))), "");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, at(0))), "timestamp");
    // A genuine signature with a t beyond any clock.
    const far = "9223372036854775807";
    const h = signWebhook(SECRET, BODY, NOW).replace(/^t=\d+/, `t=${far}`);
    assert.equal(code(() => verifyWebhook(SECRET, BODY, h, { now: NOW })), "bad_signature");
  });

  test("a duplicate: the second delivery of an eventId, with a deduper", () => {
    const seen = new MemoryDeduper();
    const header = signWebhook(SECRET, BODY, NOW);
    assert.equal(code(() => verifyWebhook(SECRET, BODY, header, { now: NOW, seen })), "");
    let err;
    try {
      verifyWebhook(SECRET, BODY, signWebhook(SECRET, BODY, NOW + 5000), { now: NOW + 5000, seen });
    } catch (e) {
      err = e;
    }
    assert.equal(err?.code, "duplicate");
    assert.equal(err.event.eventId, "evt_06h12s8jsz9747hb1yb2ev78w4", "the duplicate's event comes with it");
    // A forged delivery of the same event is refused for its signature, not as a duplicate.
    assert.equal(code(() => verifyWebhook("whsec_x", BODY, header, { now: NOW, seen })), "bad_signature");
    // Without a deduper verifyWebhook keeps no state.
    assert.equal(code(() => verifyWebhook(SECRET, BODY, header, { now: NOW })), "");
    assert.equal(code(() => verifyWebhook(SECRET, BODY, header, { now: NOW })), "");
  });

  test("a bad body: not JSON, no eventId, no eventName, wrong types", () => {
    for (const body of ["not json", "null", "[]", '"x"', "{}", '{"eventId":"evt_1"}', '{"eventName":"order.created"}', '{"eventId":1,"eventName":"x"}', '{"eventId":"e","eventName":"x","timestamp":"yesterday"}']) {
      assert.equal(code(() => verifyWebhook(SECRET, body, signWebhook(SECRET, body, NOW), { now: NOW })), "bad_body", body);
    }
  });

  test("no secret is a configuration error, not a verdict on the delivery", () => {
    assert.equal(code(() => verifyWebhook("", BODY, signWebhook("", BODY, NOW), { now: NOW })), "no_secret");
    assert.equal(code(() => verifyWebhook([], BODY, "t=1,v1=x", { now: NOW })), "no_secret");
  });
});

describe("MemoryDeduper", () => {
  test("remembers an event for its ttl, then forgets it", () => {
    const d = new MemoryDeduper(1000);
    assert.equal(d.seen("a", 0), false);
    assert.equal(d.seen("a", 500), true);
    assert.equal(d.seen("b", 600), false);
    assert.equal(d.size, 2);
    assert.equal(d.seen("a", 1000), false, "ttl old: forgotten, recorded again");
    assert.equal(d.seen("b", 1599), true);
    assert.equal(d.seen("c", 1600), false);
    assert.equal(d.size, 2, "b expired at 1600");
  });

  test("forget removes an event; the default ttl is a day", () => {
    const d = new MemoryDeduper();
    assert.equal(d.ttl, 24 * 3600 * 1000);
    d.seen("a", 0);
    d.forget("a");
    assert.equal(d.seen("a", 1), false);
    assert.equal(d.seen("a", 24 * 3600 * 1000), true);
    assert.equal(d.seen("a", 24 * 3600 * 1000 + 1), false);
  });
});

describe("the Go client", () => {
  // Made once by client.Sign (go run ./sdk/js/test/testdata/gosign): its body has a multi-byte
  // character and an escaped one, so that only the exact bytes verify.
  test("a fixed vector signed by Go's client.Sign verifies", () => {
    const body =
      '{"eventId":"evt_06h12s8jsz9747hb1yb2ev78w4","timestamp":"2026-11-25T06:29:26.351Z","eventName":"order.created","context":{"order_id":"ord_06h12s8jsymjw1pgnkpyf6bpmc","status":"CREATED","crypto_amount":"0.010263","note":"caf\\u00e9 ☕"}}';
    const header = "t=1764052166,v1=801daa0ed3d049d6296b0d5eea8cb83743862f815138e9e616bd5a14118d2a05";
    const secret = "whsec_fixed_vector_0123456789abcdefghij";
    assert.equal(signWebhook(secret, body, 1764052166 * 1000), header);
    const ev = verifyWebhook(secret, Buffer.from(body, "utf8"), header, { now: 1764052166 * 1000 + 1234 });
    assert.equal(ev.context.note, "café ☕");
  });

  test("go run: signatures of client.Sign verify here, and client.VerifyWebhook agrees on every header", { timeout: 300_000 }, async (t) => {
    const repo = fileURLToPath(new URL("../../../", import.meta.url));
    const bodies = [BODY, '{"eventId":"evt_2","eventName":"user.widget.open","context":{"x":"ünïcödé ✓"}}', "not json", '{"eventName":"x"}', "{}"];
    const genuine = signWebhook(SECRET, BODY, NOW);
    const [tPart, v1Part] = genuine.split(",");
    const headers = [
      "",
      " ",
      genuine,
      `${v1Part},${tPart}`,
      ` ${tPart} ,\t${v1Part} `,
      `${tPart},v0=zz,${v1Part}`,
      `${tPart},v1=${"b".repeat(64)},${v1Part}`,
      `${tPart},v1=${v1Part.slice(3).toUpperCase()}`,
      `t=0${T},${v1Part}`,
      tPart,
      v1Part,
      `${tPart},v1=nothex`,
      `${tPart},${tPart},${v1Part}`,
      `${tPart},junk,${v1Part}`,
      `t=-${T},${v1Part}`,
      `t=+${T},${v1Part}`,
      `t=${T}.0,${v1Part}`,
      `t=99999999999999999999,${v1Part}`,
      `t=9223372036854775807,${v1Part}`,
      `t = ${T} , v1 = ${v1Part.slice(3)}`,
      `T=${T},${v1Part}`,
      `${tPart},V1=${v1Part.slice(3)}`,
      `${tPart},v1=${v1Part.slice(3)}00`,
      `\u00a0${tPart},${v1Part}\u00a0`,
      `\ufeff${tPart},${v1Part}`,
    ];
    const cases = [];
    for (const body of bodies) {
      for (const header of headers) {
        for (const [now, tolerance] of [[T, 0], [T + 301, 0], [T - 301, 0], [T + 300, 0], [T + 61, 60], [T + 59, 60]]) {
          // Headers built from BODY's signature; for the other bodies, their own genuine one too.
          const h = body === BODY ? header : header === genuine ? signWebhook(SECRET, body, NOW) : header;
          cases.push({ secret: SECRET, t: T, body_b64: Buffer.from(body).toString("base64"), header: h, now, tolerance });
        }
      }
    }
    cases.push({ secret: "whsec_other", t: T, body_b64: Buffer.from(BODY).toString("base64"), header: genuine, now: T, tolerance: 0 });
    let out;
    try {
      out = await goRun(repo, cases);
    } catch (e) {
      if (process.env.CI) {
        throw e;
      }
      t.skip(`go run failed (no Go toolchain?): ${e.message}`);
      return;
    }
    assert.equal(out.length, cases.length);
    let agreed = 0;
    cases.forEach((c, i) => {
      const body = Buffer.from(c.body_b64, "base64");
      // Go's signature of the body verifies here, and ours is the same string.
      assert.equal(signWebhook(c.secret, body, c.t * 1000), out[i].sign);
      assert.equal(code(() => verifyWebhook(c.secret, body, out[i].sign, { now: c.t * 1000 })), code(() => verifyWebhook(c.secret, body, signWebhook(c.secret, body, c.t * 1000), { now: c.t * 1000 })));
      // The same verdict on the header as client.VerifyWebhook.
      const got = code(() => verifyWebhook(c.secret, body, c.header, { now: c.now * 1000, tolerance: c.tolerance }));
      assert.equal(got, out[i].verify, `body ${body} header ${JSON.stringify(c.header)} now ${c.now - c.t}s tolerance ${c.tolerance}`);
      agreed++;
    });
    assert.ok(out.some((r) => r.verify === "") && out.some((r) => r.verify === "timestamp") && out.some((r) => r.verify === "bad_body"));
    t.diagnostic(`${agreed} verdicts agree with Go's client.VerifyWebhook`);
  });
});

function goRun(repo, cases) {
  return new Promise((resolve, reject) => {
    const child = execFile("go", ["run", "./sdk/js/test/testdata/gosign"], { cwd: repo, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${err.message}\n${stderr}`));
        return;
      }
      resolve(JSON.parse(stdout));
    });
    child.stdin.end(JSON.stringify(cases));
  });
}
