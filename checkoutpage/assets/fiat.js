// The fiat checkout's live parts: the quote's countdown, copy buttons, the card's expiry field,
// the order's status over server-sent events (the page reloads when it changes: the server
// renders each step), and at the end the way back to the shop (assets/common.js).
(function () {
  "use strict";
  const root = document.getElementById("checkout");
  if (!root) return;
  const P = window.RampwayPage;
  const q = "order_id=" + encodeURIComponent(root.dataset.orderId) + "&hash=" + encodeURIComponent(root.dataset.hash);
  const finalStates = ["SUCCESS", "FAILED", "REFUND_PENDING", "REFUNDED", "EXPIRED", "CANCELLED"];
  const initial = root.dataset.status;

  P.copyButtons();
  P.countdown(document.getElementById("countdown"), Date.parse(root.dataset.expiresAt));

  // The expiry field: MM/YY as the user types.
  const exp = document.getElementById("expiry");
  if (exp) {
    exp.addEventListener("input", () => {
      const d = exp.value.replace(/\D/g, "").slice(0, 4);
      exp.value = d.length > 2 ? d.slice(0, 2) + "/" + d.slice(2) : d;
    });
  }

  // The visit: opened before the end, the page returns to the shop by itself at the end.
  const visit = P.visit(root.dataset.orderId);
  // user.widget.close once per visit, when the user leaves the checkout (to the shop, by
  // cancelling, or anywhere else), not when it moves on by itself (a reload at a new status)
  // or through its own steps (a form, the provider's page).
  let moving = false;
  document.querySelectorAll("form:not(#cancel-form), a#pay-link").forEach((el) => {
    el.addEventListener(el.tagName === "FORM" ? "submit" : "click", () => { moving = true; });
  });
  P.leave(root, visit, () => moving);

  if (finalStates.includes(initial)) {
    P.finish(root, visit, "", "");
    return;
  }
  visit.set("live", true);

  // Live status: the page reloads when the order moves on (the server renders each step). At
  // a final status nothing more comes: no stream is opened, and one is closed.
  const live = document.getElementById("live");
  // Not while a form the user sent is on its way (Cancel, a step): its answer is the page to
  // show, and a reload would abort it (a Cancel's status arriving first left the user on the
  // checkout page instead of back at the shop).
  let sending = false;
  // (Last to hear of a submit: a widget that sends its form itself, Stripe's, prevents it.)
  document.addEventListener("submit", (e) => { if (!e.defaultPrevented) sending = true; });
  const changed = (st) => { if (!sending && st && st.status && st.status !== initial) { moving = true; location.reload(); } };
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
