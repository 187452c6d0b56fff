// What every checkout page does alike (checkout.js and fiat.js use it): the countdown's words,
// the visit, user.widget.close once per visit, and the way back to the shop. No dependencies;
// texts come from the page (#i18n).
"use strict";
window.RampwayPage = (function () {
  const T = JSON.parse((document.getElementById("i18n") || { textContent: "{}" }).textContent);

  // duration is how long is left, as checkoutpage.humanDuration writes it: "m:ss" under an
  // hour, then hours and minutes (to the nearest minute), from a day on days and hours (to the
  // nearest hour).
  function duration(seconds) {
    const unit = (n, name) => (T["dur_" + name + (n === 1 ? "" : "s")] || "{n} " + name + "s").replace("{n}", n);
    const and = (n, name) => (n === 0 ? "" : " " + unit(n, name));
    if (seconds <= 0) return "0:00";
    if (seconds < 3600) return Math.floor(seconds / 60) + ":" + String(Math.floor(seconds % 60)).padStart(2, "0");
    const m = Math.floor((seconds + 30) / 60);
    if (m < 24 * 60) return unit(Math.floor(m / 60), "hour") + and(m % 60, "minute");
    const h = Math.floor((seconds + 1800) / 3600);
    return unit(Math.floor(h / 24), "day") + and(h % 24, "hour");
  }

  // countdown ticks el until at (ms since the epoch); done (optional) writes the end.
  function countdown(el, at, done) {
    if (!el || isNaN(at)) return;
    const tick = () => {
      const left = Math.max(0, Math.floor((at - Date.now()) / 1000));
      el.textContent = left > 0 || !done ? duration(left) : done;
    };
    tick();
    setInterval(tick, 1000);
  }

  // A visit is one stay of one browser tab on an order's page: reloads and the checkout's own
  // steps (its forms, the provider's pages) keep it; another tab is another. It lives in the
  // tab's sessionStorage (in memory only where that is refused).
  function randomID() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }
  function visit(orderID) {
    const key = "rampway.visit." + orderID;
    let mem = null; // where sessionStorage is refused
    const read = () => {
      let v = mem;
      try { v = JSON.parse(sessionStorage.getItem(key) || "null") || mem; } catch (e) { v = mem; }
      return v && typeof v.id === "string" && /^[0-9a-f]{32}$/.test(v.id) ? v : null;
    };
    const write = (v) => {
      mem = v;
      try { sessionStorage.setItem(key, JSON.stringify(v)); } catch (e) { /* in memory */ }
    };
    if (!read()) write({ id: randomID(), live: false, closed: false, stay: false });
    // Each read and change goes to the storage: another page of the visit (a reload) may
    // have changed it meanwhile.
    return {
      id: read().id,
      get: (field) => !!read()[field],
      set: (field, value) => { const v = read(); v[field] = value; write(v); },
    };
  }

  // leave tells the merchant, once per visit, that the user left the page (user.widget.close;
  // best effort: the browser sends it as the page goes away), unless moving() says the page
  // is only moving on within the checkout.
  function leave(root, v, moving) {
    window.addEventListener("pagehide", () => {
      if (moving() || v.get("closed") || !navigator.sendBeacon) return;
      v.set("closed", true);
      navigator.sendBeacon("/checkout/close", new URLSearchParams({ order_id: root.dataset.orderId, hash: root.dataset.hash, visit: v.id }));
    });
  }

  // finish shows the way back to the shop at a final status. When the order ended while this
  // visit watched it, the page goes back by itself after the root's data-return-after seconds
  // ("Returning to the shop in 5 s…"), unless the user stays ("Stay on this page", kept for the
  // visit); a page opened at its end stays. hold (optional) is a text that keeps the page (a
  // refund waiting for the user's address).
  function finish(root, v, url, hold) {
    const ret = document.getElementById("return"), link = document.getElementById("return-link");
    const note = document.getElementById("return-note"), stay = document.getElementById("stay");
    ret.hidden = false;
    if (url) link.href = url;
    if (hold) { note.textContent = hold; return; }
    if (!v.get("live") || v.get("stay")) return;
    let n = parseInt(root.dataset.returnAfter, 10) || 5;
    let timer = null;
    stay.hidden = false;
    stay.addEventListener("click", () => {
      clearTimeout(timer);
      v.set("stay", true);
      stay.hidden = true;
      note.textContent = T.staying || "";
    });
    const step = () => {
      if (v.get("stay")) { stay.hidden = true; note.textContent = T.staying || ""; return; }
      note.textContent = (T.returning || "").replace("{n}", n);
      if (n-- <= 0) {
        v.set("live", false); // back at the shop: coming back to this page does not send the user off again
        window.location.assign(link.href);
        return;
      }
      timer = setTimeout(step, 1000);
    };
    step();
  }

  // copyButtons makes every button.copy copy its data-copy, saying so for a moment.
  function copyButtons() {
    document.querySelectorAll("button.copy").forEach((b) => {
      b.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(b.dataset.copy);
          const old = b.textContent;
          b.textContent = T.copied || "✓";
          setTimeout(() => { b.textContent = old; }, 1500);
        } catch (e) { /* the text stays visible and selectable */ }
      });
    });
  }

  return { T, duration, countdown, visit, leave, finish, copyButtons };
})();
