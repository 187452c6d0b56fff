// docs/quickstart.md's TypeScript, run as the page says (internal/quickstart does its Go):
// its `// quickstart: main.ts` block is type-checked against the built SDK's declarations (the
// Node built-ins it imports left untyped: no @types/node here), then run, as it is on a Node
// that strips types and transpiled by the pinned TypeScript otherwise, from a directory
// shop-ts next to a directory rampway where `rampway dev` runs, with @rampway/sdk linked into
// its node_modules as `npm install ../rampway/sdk/js` links it. Each area's order is paid as
// the page says (A with `rampway dev pay`, B and C with the sandbox's test card through the
// checkout page's form) until the server prints SUCCESS after the area's events, verified by
// webhookHandler; then once more with the page's one-line change for `rampway listen`, whose
// forwarded deliveries are all the server gets. The page's error table's "Retry?" column is
// checked against the SDK's own rule.
//
// The binary is $RAMPWAY_BIN, or built from this checkout.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";

import ts from "typescript";

import { retryableStatus } from "../dist/errors.js";
import { payByCard, run } from "./devhelpers.mjs";

const SDK = fileURLToPath(new URL("../", import.meta.url));
const REPO = path.resolve(SDK, "../..");
const DOC = path.join(REPO, "docs/quickstart.md");
const LISTEN = "go run ./cmd/rampway listen --forward-to http://127.0.0.1:3000/hooks";
const EVENTS = {
  A: ["order.created", "user.widget.open", "order.deposit.processing", "order.deposit.success", "order.smartcontract.processing", "order.smartcontract.success", "order.success"],
  B: ["order.created", "user.widget.open", "order.onramp.processing", "order.onramp.success", "order.smartcontract.processing", "order.smartcontract.success", "order.success"],
  C: ["order.created", "user.widget.open", "order.onramp.processing", "order.onramp.success", "order.deposit.processing", "order.deposit.success", "order.success"],
};

/** The fenced blocks of a Markdown page: {lang, file (from `// quickstart: FILE`), text}. */
function blocks(doc) {
  const out = [];
  for (const m of doc.matchAll(/^```(\S*)[^\n]*\n([\s\S]*?)^```$/gm)) {
    const file = /^\/\/ quickstart: (\S+)\n/.exec(m[2]);
    out.push({ lang: m[1], file: file ? file[1] : "", text: m[2] });
  }
  return out;
}

/** main.ts with the page's one-line changes: each replaces the one line assigning its name. */
function applyEdits(src, edits) {
  assert.ok(edits.length > 0, "the page has no one-line change for rampway listen");
  const lines = src.split("\n");
  for (let e of edits) {
    e = e.trim();
    const lhs = e.slice(0, e.indexOf("="));
    assert.ok(lhs && !e.includes("\n"), `the change ${JSON.stringify(e)} is not one assignment`);
    const at = lines.flatMap((l, i) => (l.trim().startsWith(lhs + "=") ? [i] : []));
    assert.equal(at.length, 1, `the change ${JSON.stringify(e)}: lines assigning ${lhs.trim()}`);
    lines[at[0]] = lines[at[0]].match(/^\s*/)[0] + e;
  }
  return lines.join("\n");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A process of the test, with its output lines; stop() interrupts it. */
function start(cmd, args, cwd) {
  const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const p = { name: `${path.basename(cmd)} ${args.join(" ")}`, lines: [], exited: false, waiters: new Set() };
  let partial = "";
  const onData = (chunk) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop();
    p.lines.push(...parts);
    for (const w of p.waiters) w();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exit = new Promise((resolve) => child.on("exit", resolve));
  exit.then((code) => {
    p.exited = true;
    p.code = code;
    for (const w of p.waiters) w();
  });
  p.output = () => p.lines.join("\n");
  /** Waits for a line matching re and returns its match. */
  p.waitLine = async (re, ms) => {
    const deadline = Date.now() + ms;
    for (;;) {
      for (const l of p.lines) {
        const m = re.exec(l);
        if (m) return m;
      }
      assert.ok(!p.exited, `${p.name} exited without printing ${re}:\n${p.output()}`);
      assert.ok(Date.now() < deadline, `${p.name} did not print ${re} within ${ms} ms:\n${p.output()}`);
      await new Promise((resolve) => {
        const w = () => {
          p.waiters.delete(w);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(w, Math.max(0, deadline - Date.now()));
        p.waiters.add(w);
      });
    }
  };
  /** Waits for the process to exit on its own and returns its exit code. */
  p.waitExit = async (ms) => {
    let timer;
    const exited = await Promise.race([exit.then(() => true), new Promise((r) => (timer = setTimeout(() => r(false), ms)))]);
    clearTimeout(timer);
    assert.ok(exited, `${p.name} did not exit within ${ms} ms:\n${p.output()}`);
    return p.code;
  };
  p.stop = async () => {
    if (!p.exited) child.kill("SIGINT");
    let timer;
    const stopped = await Promise.race([exit.then(() => true), new Promise((r) => (timer = setTimeout(() => r(false), 20_000)))]);
    clearTimeout(timer);
    if (!stopped) {
      child.kill("SIGKILL");
      await exit;
    }
  };
  return p;
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * The Node built-ins the page's main.ts uses, declared as @types/node declares them (a subset:
 * there is no @types/node here), so that its own code is type-checked too.
 */
const NODE_BUILTINS = `
declare module "node:http" {
  import type { WebhookRequest, WebhookResponse } from "@rampway/sdk";
  export interface IncomingMessage extends WebhookRequest { url?: string | undefined }
  export interface ServerResponse extends WebhookResponse {}
  export interface Server { listen(port: number, hostname: string, listener: () => void): this; close(): this; closeAllConnections(): void }
  export function createServer(listener: (req: IncomingMessage, res: ServerResponse) => void): Server;
  const http: { createServer: typeof createServer };
  export default http;
}
declare module "node:fs/promises" {
  export function readFile(path: string, encoding: "utf8"): Promise<string>;
}
declare module "node:util" {
  export function parseArgs<T extends Record<string, { type: "string"; default: string }>>(config: { options: T }): { values: { [K in keyof T]: string } };
}
declare const process: { pid: number };
`;

/** Type-checks main.ts against the SDK's declarations and NODE_BUILTINS. */
function typeCheck(dir) {
  const options = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    skipLibCheck: true,
  };
  const program = ts.createProgram([path.join(dir, "main.ts"), path.join(dir, "node-builtins.d.ts")], options);
  const diags = ts.getPreEmitDiagnostics(program);
  return ts.formatDiagnostics(diags, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => "\n" });
}

/**
 * Makes dir as the page makes shop-ts, with src as its main.ts, and type-checks it. Returns
 * {diags, args}: the type errors ("" for none) and the arguments of node that run it.
 */
async function makeShop(dir, src) {
  await mkdir(path.join(dir, "node_modules", "@rampway"), { recursive: true });
  await symlink(SDK, path.join(dir, "node_modules", "@rampway", "sdk"), "dir"); // what npm install ../rampway/sdk/js does
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: path.basename(dir), private: true, type: "module" }));
  await writeFile(path.join(dir, "main.ts"), src);
  await writeFile(path.join(dir, "node-builtins.d.ts"), NODE_BUILTINS);
  const diags = typeCheck(dir);
  if (process.features?.typescript) {
    return { diags, args: ["main.ts"] }; // this Node strips the types itself: node main.ts
  }
  const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  await writeFile(path.join(dir, "main.js"), js.outputText);
  return { diags, args: ["main.js"] };
}

const env = { procs: [] };

function track(p) {
  env.procs.push(p);
  return p;
}

/**
 * Runs the server of shop for area on a free port, pays its order as the page says, and waits
 * until it says SUCCESS after the area's events. Returns the order id.
 */
async function journey(shop, area, port) {
  const server = track(start(process.execPath, [...shop.args, "--area", area, "--port", String(port)], shop.dir));
  const [, orderId, gateway] = await server.waitLine(/^order (ord_\S+) created; its checkout page: (\S+)$/, 60_000);
  if (area === "A") {
    assert.equal((await fetch(gateway)).status, 200, "the page says: open it in a browser to watch");
    const [, cmd] = await server.waitLine(/^pay it, in the rampway directory: (go run \.\/cmd\/rampway dev pay ord_\S+)$/, 10_000);
    assert.ok(cmd.endsWith(` ${orderId}`), cmd);
    await run(env.bin, cmd.replace("go run ./cmd/rampway ", "").split(" "), { cwd: env.rampwayDir });
  } else {
    await server.waitLine(/^pay it there with the test card 4242 4242 4242 4242, expiry 12\/34, security code 123$/, 10_000);
    await payByCard(gateway, env.dj.fiat.test_cards.success);
  }
  await server.waitLine(new RegExp(`^order ${orderId} is SUCCESS: execution tx 0x[0-9a-f]{64}$`), 90_000);
  const event = new RegExp(`^webhook (\\S+): order ${orderId} \\(cart-[0-9-]+\\) is [A-Z_]+$`);
  const got = server.lines.map((l) => event.exec(l)?.[1]).filter(Boolean);
  assert.deepEqual(got, EVENTS[area], `the events the server received and verified:\n${server.output()}`);
  // The user back on the merchant's /thanks page, as the checkout page sends them: the server
  // says done and exits, freeing its port for the next area's run.
  const back = await fetch(`http://127.0.0.1:${port}/thanks?order_id=${orderId}&status=SUCCESS`);
  assert.equal(await back.text(), `Thank you! Order ${orderId} is SUCCESS.\n`);
  await server.waitLine(/^done$/, 30_000);
  assert.equal(await server.waitExit(30_000), 0, `the server's exit status:\n${server.output()}`);
  return orderId;
}

test("the error table's Retry? column is the SDK's retryableStatus", async () => {
  const doc = await readFile(DOC, "utf8");
  const table = /<!-- errors:[^\n]*-->\n([\s\S]*?)<!-- \/errors -->/.exec(doc);
  assert.ok(table, "docs/quickstart.md has no error table");
  const rows = table[1].split("\n").filter((l) => /^\| `E/.test(l));
  assert.ok(rows.length >= 10, `${rows.length} rows`);
  for (const row of rows) {
    const cells = row.split(" | ");
    const status = Number(cells[1].split(" ")[0]);
    const want = { yes: [true, true], no: [false, false], "with `Retry-After`": [false, true] }[cells[3]];
    assert.ok(want, `${cells[0]}: Retry? ${cells[3]}`);
    assert.deepEqual([retryableStatus(status, null), retryableStatus(status, "1")], want, `${cells[0]} (${status}): Retry? ${cells[3]}`);
  }
});

describe("docs/quickstart.md in TypeScript against rampway dev", { timeout: 600_000 }, () => {
  before(async () => {
    const doc = await readFile(DOC, "utf8");
    const ts_ = blocks(doc).filter((b) => b.lang === "ts");
    const main = ts_.filter((b) => b.file === "main.ts");
    assert.equal(main.length, 1, "one ts block marked // quickstart: main.ts");
    assert.deepEqual(ts_.filter((b) => b.file !== "" && b.file !== "main.ts").map((b) => b.file), [], "no other TypeScript file");
    assert.ok(doc.includes(`\n${LISTEN}\n`), `the page runs ${LISTEN}`);
    env.main = main[0].text;
    env.listenMain = applyEdits(env.main, ts_.filter((b) => b.file === "").map((b) => b.text));

    env.tmp = await mkdtemp(path.join(tmpdir(), "rampway-quickstart-ts-"));
    env.bin = process.env.RAMPWAY_BIN;
    if (!env.bin) {
      env.bin = path.join(env.tmp, "bin", "rampway");
      await run("go", ["build", "-o", env.bin, "./cmd/rampway"], { cwd: REPO });
    }
    // The page's layout: rampway dev runs in a directory named rampway (.rampway-dev), and the
    // shop next to it reads ../rampway/.rampway-dev/dev.json.
    env.rampwayDir = path.join(env.tmp, "rampway");
    await mkdir(env.rampwayDir);
    env.dev = track(start(env.bin, ["dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0"], env.rampwayDir));
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        env.dj = JSON.parse(await readFile(path.join(env.rampwayDir, ".rampway-dev", "dev.json"), "utf8"));
        break;
      } catch {
        assert.ok(!env.dev.exited, `rampway dev exited:\n${env.dev.output()}`);
        assert.ok(Date.now() < deadline, `no dev.json after 90 s:\n${env.dev.output()}`);
        await sleep(50);
      }
    }
    env.shop = { dir: path.join(env.tmp, "shop-ts"), ...(await makeShop(path.join(env.tmp, "shop-ts"), env.main)) };
    env.shopListen = { dir: path.join(env.tmp, "shop-ts-listen"), ...(await makeShop(path.join(env.tmp, "shop-ts-listen"), env.listenMain)) };
  });

  after(async () => {
    for (const p of env.procs.reverse()) {
      await p.stop();
    }
    if (env.tmp) {
      await rm(env.tmp, { recursive: true, force: true });
    }
  });

  test("main.ts type-checks against the SDK, and with the change for rampway listen", () => {
    assert.equal(env.shop.diags, "", `main.ts:\n${env.shop.diags}`);
    assert.equal(env.shopListen.diags, "", `main.ts changed for rampway listen:\n${env.shopListen.diags}`);
  });

  describe("each area's order, paid, to SUCCESS and its verified webhooks", { concurrency: true }, () => {
    for (const area of ["A", "B", "C"]) {
      test(`area ${area}`, async () => {
        await journey(env.shop, area, await freePort());
      });
    }
    test("rampway listen forwards every event to the server that gave no webhook URL", async () => {
      const port = await freePort();
      const listen = track(start(env.bin, LISTEN.replace("go run ./cmd/rampway ", "").replace(":3000/", `:${port}/`).split(" "), env.rampwayDir));
      await listen.waitLine(/ready: forwarding/, 30_000);
      const orderId = await journey(env.shopListen, "A", port);
      await listen.waitLine(new RegExp(`order\\.success\\s+${orderId}\\s+evt_\\S+\\s+-> 200 OK`), 30_000);
    });
  });
});
