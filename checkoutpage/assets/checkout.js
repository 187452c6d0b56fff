// rampway hosted checkout: live status, countdown, copy buttons, browser-wallet payment,
// automatic return to the merchant. No dependencies; texts come from the page (#i18n).
"use strict";
(function () {
  const root = document.getElementById("checkout");
  if (!root) return;
  const P = window.RampwayPage;
  const T = P.T;
  const q = "order_id=" + encodeURIComponent(root.dataset.orderId) + "&hash=" + encodeURIComponent(root.dataset.hash);
  const $ = (id) => document.getElementById(id);
  let finalShown = false;
  const finalStates = ["SUCCESS", "FAILED", "REFUND_PENDING", "REFUNDED", "EXPIRED", "CANCELLED"];

  // The visit: opened before the end, the page returns to the shop by itself at the end.
  const visit = P.visit(root.dataset.orderId);
  if (!finalStates.includes(root.dataset.status)) { visit.set("live", true); }
  // user.widget.close once per visit, when the user leaves: not when the page reloads itself
  // to show a refund's form, nor for that form's post (the page comes back).
  let moving = false;
  document.querySelectorAll("form.refund-form").forEach((f) => f.addEventListener("submit", () => { moving = true; }));
  P.leave(root, visit, () => moving);

  P.copyButtons();

  // Countdown to expiry.
  P.countdown($("countdown"), Date.parse(root.dataset.expiresAt), T.expired_in);

  // Status: server-sent events, falling back to polling.
  // A transaction hash as the page shows it (a monospace block that wraps evenly), with its
  // explorer link when the network has one.
  function txItem(p, sym) {
    const li = document.createElement("li");
    const amount = document.createElement("span");
    amount.className = "tx-amount";
    amount.textContent = p.amount + " " + sym;
    const code = document.createElement("code");
    code.className = "hex";
    code.textContent = p.tx_hash;
    li.append(amount, " ", code);
    if (p.tx_url && /^https?:\/\//.test(p.tx_url)) {
      const a = document.createElement("a");
      a.href = p.tx_url; a.rel = "noopener noreferrer"; a.target = "_blank"; a.textContent = T.view_tx;
      li.append(" ", a);
    }
    return li;
  }
  function show(st) {
    root.dataset.status = st.status;
    const el = $("status");
    el.textContent = st.text;
    el.dataset.state = st.status;
    // What was paid stays on the page, to the end: amount, asset and transactions.
    const payments = st.payments || [];
    $("paid").hidden = payments.length === 0; // (a reorganisation can take a payment back)
    $("paid-amount").textContent = st.received;
    $("payments").replaceChildren(...payments.map((p) => txItem(p, $("paid").dataset.symbol || "")));
    if (st.tx_hash) {
      $("tx").hidden = false;
      $("tx-hash").textContent = st.tx_hash;
      if (st.tx_url && /^https?:\/\//.test(st.tx_url)) { $("tx-link").href = st.tx_url; $("tx-link").hidden = false; }
    }
    $("cancel-form").hidden = !st.cancellable;
    // The end: where what was bought went, or what happens to a late payment.
    if ($("sent-to")) $("sent-to").hidden = st.status !== "SUCCESS";
    $("late").hidden = st.status !== "EXPIRED";
    // Pay only while something is still to be paid: once a payment is seen, a second one would
    // only be refunded. What the page asks for is what is still due: amount, copy, QR, link and
    // wallet all change together.
    $("pay").hidden = st.final || !st.payable;
    if (st.payable && st.due_units) {
      root.dataset.units = st.due_units;
      $("amount").textContent = st.due;
      $("copy-amount").dataset.copy = st.due;
      $("pay-label").textContent = st.partial ? T.amount_left : T.amount;
      const uri = st.payment_uri || "";
      if (uri.startsWith("ethereum:") && $("uri").getAttribute("href") !== uri) {
        $("uri").href = uri;
        const qr = $("qr");
        if (st.qr && st.qr.startsWith("data:image/png;base64,")) { qr.src = st.qr; qr.hidden = false; } else { qr.hidden = true; }
        qr.dataset.uri = uri;
      }
    }
    if (st.final && !finalShown) {
      finalShown = true;
      $("pay").hidden = true;
      // A refund waits for the user's address: the page asks for it (reloaded to show its
      // form when it came after the page) and stays until the user leaves.
      if (st.refund_address && !document.querySelector("form.refund-form")) { moving = true; window.location.reload(); return; }
      P.finish(root, visit, st.return_url, st.refund_address ? T.refund_address_needed : "");
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

  // Pay with a browser wallet (EIP-1193), on the order's network only: a wallet on another
  // chain is asked to switch (or to add the network first, EIP-3085), and the page checks
  // eth_chainId before sending; the transaction names its chain too. If the wallet is not on
  // the order's network in the end, nothing is sent.
  const btn = $("wallet"), msg = $("wallet-msg");
  const want = root.dataset.chainId;
  const sameChain = (a, b) => { try { return BigInt(a) === BigInt(b); } catch (e) { return false; } };
  const chainText = (s) => T[s].replaceAll("{network}", root.dataset.chainName).replaceAll("{want}", BigInt(want).toString());
  // unknownChain: the wallet does not know the chain (4902; some mobile wallets wrap it).
  const unknownChain = (e) => !!e && (e.code === 4902 || (e.data && e.data.originalError && e.data.originalError.code === 4902));
  const switchChain = (eth) => eth.request({ method: "wallet_switchEthereumChain", params: [{ chainId: want }] });
  const reason = (e) => String((e && (e.message || e.code)) || e);
  // notSwitched shows why the wallet is not on the order's chain (it refused to switch or to
  // add it) and returns false.
  const notSwitched = (e) => {
    msg.textContent = chainText("wallet_not_switched").replace("{reason}", reason(e).replace(/\.$/, ""));
    return false;
  };
  // onChain brings the wallet to the order's chain and says whether it is there (it shows why not).
  async function onChain(eth) {
    const current = () => eth.request({ method: "eth_chainId" });
    if (sameChain(await current(), want)) return true;
    msg.textContent = T.wallet_switching;
    try {
      await switchChain(eth);
    } catch (e) {
      if (!unknownChain(e)) return notSwitched(e);
      const rpc = root.dataset.rpcUrl;
      if (!rpc) { msg.textContent = chainText("wallet_no_chain"); return false; }
      msg.textContent = T.wallet_adding;
      const sym = root.dataset.nativeSymbol || "ETH";
      const chain = { chainId: want, chainName: root.dataset.chainName, nativeCurrency: { name: sym, symbol: sym, decimals: 18 }, rpcUrls: [rpc] };
      if (root.dataset.explorerUrl) chain.blockExplorerUrls = [root.dataset.explorerUrl];
      try {
        await eth.request({ method: "wallet_addEthereumChain", params: [chain] });
        // Most wallets switch to the chain they add; the others are asked to.
        if (sameChain(await current(), want)) return true;
        await switchChain(eth);
      } catch (e2) {
        return notSwitched(e2);
      }
    }
    const got = await current();
    if (sameChain(got, want)) return true;
    let gotText = String(got);
    try { gotText = BigInt(got).toString(); } catch (e) { /* shown as the wallet said it */ }
    msg.textContent = chainText("wallet_wrong_chain").replaceAll("{got}", gotText);
    return false;
  }
  if (btn) btn.addEventListener("click", async () => {
    const eth = window.ethereum;
    if (!eth || typeof eth.request !== "function") { msg.textContent = T.wallet_none; return; }
    btn.disabled = true;
    try {
      const accounts = await eth.request({ method: "eth_requestAccounts" });
      if (!(await onChain(eth))) { btn.disabled = false; return; }
      const units = BigInt(root.dataset.units || "0");
      if (units <= 0n) { btn.disabled = false; return; } // nothing is due
      msg.textContent = T.wallet_sending;
      const to = root.dataset.address, token = root.dataset.token;
      const tx = { from: accounts[0], chainId: want };
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
      msg.textContent = T.wallet_error + reason(e);
      btn.disabled = false;
    }
  });

})();
