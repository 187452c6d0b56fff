// rampway hosted checkout: live status, countdown, copy buttons, browser-wallet payment,
// automatic return to the merchant. No dependencies; texts come from the page (#i18n).
"use strict";
(function () {
  const root = document.getElementById("checkout");
  if (!root) return;
  const T = JSON.parse(document.getElementById("i18n").textContent);
  const q = "order_id=" + encodeURIComponent(root.dataset.orderId) + "&hash=" + encodeURIComponent(root.dataset.hash);
  const $ = (id) => document.getElementById(id);
  let finalShown = false;

  // Copy buttons.
  document.querySelectorAll("button.copy").forEach((b) => {
    b.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(b.dataset.copy);
        const old = b.textContent;
        b.textContent = T.copied;
        setTimeout(() => { b.textContent = old; }, 1500);
      } catch (e) { /* the text stays visible and selectable */ }
    });
  });

  // Countdown to expiry.
  const expires = Date.parse(root.dataset.expiresAt);
  function tick() {
    const left = Math.max(0, Math.floor((expires - Date.now()) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    $("countdown").textContent = left > 0 ? m + ":" + String(s).padStart(2, "0") : T.expired_in;
  }
  if ($("countdown")) { tick(); setInterval(tick, 1000); }

  // Status: server-sent events, falling back to polling.
  function show(st) {
    root.dataset.status = st.status;
    const el = $("status");
    el.textContent = st.text;
    el.dataset.state = st.status;
    if (st.tx_hash) {
      $("tx").hidden = false;
      $("tx-hash").textContent = st.tx_hash;
      if (st.tx_url) { $("tx-link").href = st.tx_url; $("tx-link").hidden = false; }
    }
    $("cancel").hidden = !st.cancellable;
    // Pay only while something is still to be paid: once a payment is seen, a second one would
    // only be refunded.
    $("pay").hidden = st.final || (st.status !== "CREATED" && st.status !== "UNDERPAID");
    if (st.missing_units && st.missing_units !== "0") root.dataset.units = st.missing_units; // the wallet pays what is missing
    if (st.final && !finalShown) {
      finalShown = true;
      $("pay").hidden = true;
      $("return").hidden = false;
      $("return-link").href = st.return_url;
      let n = parseInt(root.dataset.returnAfter, 10) || 5;
      const note = $("return-note");
      const step = () => {
        note.textContent = T.returning.replace("{n}", n);
        if (n-- <= 0) { window.location.assign(st.return_url); return; }
        setTimeout(step, 1000);
      };
      step();
    }
  }
  let polling = null;
  function poll() {
    if (polling) return;
    polling = setInterval(async () => {
      try {
        const r = await fetch("/checkout/status?" + q, { cache: "no-store" });
        if (r.ok) { const st = await r.json(); show(st); if (st.final) clearInterval(polling); }
      } catch (e) { /* keep trying */ }
    }, 3000);
  }
  if (!finalShown && root.dataset.status && window.EventSource) {
    const es = new EventSource("/checkout/events?" + q);
    es.addEventListener("status", (e) => { $("live").hidden = true; const st = JSON.parse(e.data); show(st); if (st.final) es.close(); });
    es.onerror = () => { if (finalShown) { es.close(); return; } $("live").hidden = false; if (es.readyState === EventSource.CLOSED) poll(); };
  } else {
    poll();
  }

  // Pay with a browser wallet (EIP-1193).
  const btn = $("wallet"), msg = $("wallet-msg");
  if (btn) btn.addEventListener("click", async () => {
    const eth = window.ethereum;
    if (!eth || typeof eth.request !== "function") { msg.textContent = T.wallet_none; return; }
    btn.disabled = true;
    try {
      const accounts = await eth.request({ method: "eth_requestAccounts" });
      msg.textContent = T.wallet_switching;
      try {
        await eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: root.dataset.chainId }] });
      } catch (e) {
        if (e && e.code !== 4902) throw e; // an unknown chain: the payment below tells
      }
      msg.textContent = T.wallet_sending;
      const units = BigInt(root.dataset.units);
      const to = root.dataset.address, token = root.dataset.token;
      const tx = { from: accounts[0] };
      if (token) {
        const pad = (hex) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
        tx.to = token;
        tx.data = "0xa9059cbb" + pad(to) + pad(units.toString(16)); // transfer(address,uint256)
      } else {
        tx.to = to;
        tx.value = "0x" + units.toString(16);
      }
      const hash = await eth.request({ method: "eth_sendTransaction", params: [tx] });
      msg.textContent = T.wallet_sent + hash;
    } catch (e) {
      msg.textContent = T.wallet_error + ((e && (e.message || e.code)) || String(e));
      btn.disabled = false;
    }
  });

  // Best effort: tell the merchant the user left the page.
  window.addEventListener("pagehide", () => {
    if (navigator.sendBeacon) navigator.sendBeacon("/checkout/close", new URLSearchParams({ order_id: root.dataset.orderId, hash: root.dataset.hash }));
  });
})();
