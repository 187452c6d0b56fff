// Helpers of the SDK's tests: a scripted HTTP server standing in for rampway.

import http from "node:http";

/**
 * Starts a server that answers each request with the next of script's answers (the last one
 * repeats) and records the requests. An answer is {status, body, headers}, "drop" (the
 * connection is closed without an answer) or "hang" (no answer at all), or a function of the
 * request returning one.
 */
export async function mockServer(script) {
  const requests = [];
  const sockets = new Set();
  let i = 0;
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) {
      body += chunk;
    }
    const url = new URL(req.url, "http://localhost");
    const r = { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body, json: body ? JSON.parse(body) : undefined };
    requests.push(r);
    let a = script[Math.min(i++, script.length - 1)];
    if (typeof a === "function") {
      a = a(r, requests.length);
    }
    if (a === "drop") {
      req.socket.destroy();
      return;
    }
    if (a === "hang") {
      return;
    }
    const headers = { "Content-Type": "application/json; charset=utf-8", "X-Request-Id": `req_${requests.length}`, ...(a.headers ?? {}) };
    res.writeHead(a.status ?? 200, headers);
    res.end(a.body === undefined ? "" : typeof a.body === "string" ? a.body : JSON.stringify(a.body));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) {
          s.destroy();
        }
        server.close(resolve);
      }),
  };
}

/** The error envelope rampway answers with. */
export function envelope(status, message, path = "/mint/merchant/hosted/nftCheckout/order", statusCode = status) {
  return { statusCode, timestamp: new Date().toISOString(), message, path, status: false };
}

/** A minimal area A order list entry. */
export function order(id, extra = {}) {
  return { order_id: id, status: "CREATED", crypto_amount: "0.01", ...extra };
}
