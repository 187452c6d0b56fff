// The fiat checkout's live parts: the quote's countdown, copy buttons, and the order's status
// over server-sent events (the page reloads when it changes: the server renders each step).
(function () {
  "use strict";
  const root = document.getElementById("checkout");
  if (!root) return;
  const q = "order_id=" + encodeURIComponent(root.dataset.orderId) + "&hash=" + encodeURIComponent(root.dataset.hash);

  document.querySelectorAll("button.copy").forEach((b) => {
    b.addEventListener("click", async () => {
      try { await navigator.clipboard.writeText(b.dataset.copy); b.textContent = "✓"; } catch (e) { /* the text stays selectable */ }
    });
  });

  const cd = document.getElementById("countdown");
  if (cd) {
    const end = Date.parse(root.dataset.expiresAt);
    const tick = () => {
      const s = Math.max(0, Math.floor((end - Date.now()) / 1000));
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
      cd.textContent = (h > 0 ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
    };
    tick();
    setInterval(tick, 1000);
  }

  // The expiry field: MM/YY as the user types.
  const exp = document.getElementById("expiry");
  if (exp) {
    exp.addEventListener("input", () => {
      const d = exp.value.replace(/\D/g, "").slice(0, 4);
      exp.value = d.length > 2 ? d.slice(0, 2) + "/" + d.slice(2) : d;
    });
  }

  // user.widget.close when the user leaves the checkout, not when it moves on by itself (a
  // reload at a new status) or through its own steps (a form, the provider's page).
  let inFlow = false;
  document.querySelectorAll("form, a#pay-link").forEach((el) => {
    el.addEventListener(el.tagName === "FORM" ? "submit" : "click", () => { inFlow = true; });
  });
  window.addEventListener("pagehide", () => {
    if (!inFlow && navigator.sendBeacon) navigator.sendBeacon("/checkout/close", new URLSearchParams({ order_id: root.dataset.orderId, hash: root.dataset.hash }));
  });

  // Live status: the page reloads when the order moves on (the server renders each step). At
  // a final status nothing more comes: no stream is opened, and one is closed.
  const initial = root.dataset.status;
  const live = document.getElementById("live");
  const finalStates = ["SUCCESS", "FAILED", "REFUND_PENDING", "REFUNDED", "EXPIRED", "CANCELLED"];
  if (finalStates.includes(initial)) return;
  const changed = (st) => { if (st && st.status && st.status !== initial) { inFlow = true; location.reload(); } };
  if (window.EventSource) {
    const es = new EventSource("/checkout/events?" + q);
    const on = (e) => {
      live.hidden = true;
      try { const st = JSON.parse(e.data); if (st.final) es.close(); changed(st); } catch (x) { /* ignore */ }
    };
    es.addEventListener("status", on);
    es.onmessage = on;
    es.onerror = () => { if (es.readyState !== EventSource.CLOSED) live.hidden = false; };
  } else {
    setInterval(async () => {
      try { const r = await fetch("/checkout/status?" + q); if (r.ok) changed(await r.json()); } catch (e) { /* retry */ }
    }, 3000);
  }
})();
