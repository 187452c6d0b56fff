// The accessibility check of package browsertest. It runs in the page (Runtime.evaluate, so the
// page's CSP does not apply) and returns a list of violations, one line each; [] is a pass.
// It covers what a machine can judge reliably:
//   - the document has lang, a title, exactly one h1, and a viewport that allows zooming;
//   - every control (links, buttons, inputs, selects, text areas, focusable roles) has an
//     accessible name, and every form field a label;
//   - every img has an alt attribute; aria-labelledby/aria-describedby name existing ids;
//   - visible text contrasts with its effective background by at least 4.5:1, or 3:1 for large
//     text (24px, or 18.66px bold), by the WCAG 2 formula. Disabled controls are exempt.
(() => {
  const out = [];
  const add = (msg) => out.push(msg);

  const desc = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    else if (typeof el.className === "string" && el.className.trim()) s += "." + el.className.trim().split(/\s+/).join(".");
    const txt = (el.textContent || "").trim().replace(/\s+/g, " ");
    if (txt) s += ' "' + (txt.length > 40 ? txt.slice(0, 40) + "…" : txt) + '"';
    return s;
  };
  const clean = (s) => (s || "").replace(/\s+/g, " ").trim();
  const byIds = (ids) => clean(ids.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean)
    .map((e) => e.textContent).join(" "));

  // The name from content, as for buttons and links: text, and the alt text of images.
  const contentName = (el) => {
    let s = "";
    for (const n of el.childNodes) {
      if (n.nodeType === Node.TEXT_NODE) s += n.textContent;
      else if (n.nodeType === Node.ELEMENT_NODE) {
        if (n.hidden || n.getAttribute("aria-hidden") === "true") continue;
        if (n.getAttribute("aria-label")) s += " " + n.getAttribute("aria-label") + " ";
        else if (n.tagName === "IMG") s += " " + (n.getAttribute("alt") || "") + " ";
        else s += " " + contentName(n) + " ";
      }
    }
    return clean(s);
  };

  // A simplified accessible name computation (accname 1.2, without CSS generated content).
  const accName = (el) => {
    const lb = el.getAttribute("aria-labelledby");
    if (lb && byIds(lb)) return byIds(lb);
    if (clean(el.getAttribute("aria-label"))) return clean(el.getAttribute("aria-label"));
    if (el.labels && el.labels.length) {
      const n = clean([...el.labels].map((l) => l.textContent).join(" "));
      if (n) return n;
    }
    const tag = el.tagName, type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "INPUT" && ["submit", "reset", "button"].includes(type)) return clean(el.value);
    if (tag === "INPUT" && type === "image") return clean(el.getAttribute("alt"));
    if (tag === "IMG") return clean(el.getAttribute("alt"));
    if (tag === "BUTTON" || tag === "A" || tag === "SUMMARY" || ["button", "link", "tab", "menuitem"].includes(el.getAttribute("role"))) {
      const n = contentName(el);
      if (n) return n;
    }
    return clean(el.getAttribute("title"));
  };

  // Document-level checks.
  if (!clean(document.documentElement.getAttribute("lang"))) add("document: <html> has no lang");
  if (!clean(document.title)) add("document: no <title> text");
  const h1s = document.querySelectorAll("h1");
  if (h1s.length !== 1) add("document: " + h1s.length + " h1 elements, want exactly one");
  const vp = document.querySelector('meta[name="viewport"]');
  if (!vp) add('document: no <meta name="viewport">');
  else {
    const c = vp.getAttribute("content") || "";
    const max = /maximum-scale\s*=\s*([\d.]+)/.exec(c);
    if (/user-scalable\s*=\s*(no|0)/.test(c) || (max && parseFloat(max[1]) < 2)) add("document: the viewport forbids zooming: " + c);
  }

  // Names and labels.
  const controls = 'a[href], button, input, select, textarea, summary, [role="button"], [role="link"], [role="checkbox"], [role="tab"], [tabindex]:not([tabindex="-1"])';
  for (const el of document.querySelectorAll(controls)) {
    if (el.tagName === "INPUT" && el.type === "hidden") continue;
    if (!accName(el)) add("no accessible name: " + desc(el));
    const field = (el.tagName === "INPUT" && !["submit", "reset", "button", "image"].includes(el.type)) ||
      el.tagName === "SELECT" || el.tagName === "TEXTAREA";
    if (field && !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
      add("form field without a label: " + desc(el));
  }
  for (const img of document.querySelectorAll("img")) {
    if (!img.hasAttribute("alt")) add("img without alt: " + (img.id ? "img#" + img.id : (img.getAttribute("src") || "").slice(0, 60)));
  }
  for (const attr of ["aria-labelledby", "aria-describedby"]) {
    for (const el of document.querySelectorAll("[" + attr + "]")) {
      for (const id of el.getAttribute(attr).split(/\s+/).filter(Boolean)) {
        if (!document.getElementById(id)) add(attr + ' names a missing id "' + id + '": ' + desc(el));
      }
    }
  }

  // Contrast.
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const parse = (s) => {
    const m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(s);
    if (m) {
      let a = m[4] === undefined ? 1 : m[4].endsWith("%") ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
      return [+m[1], +m[2], +m[3], a];
    }
    // Any other syntax (color(), oklch()...): let the canvas convert it.
    g.clearRect(0, 0, 1, 1);
    g.fillStyle = s;
    g.fillRect(0, 0, 1, 1);
    const d = g.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, bottom) => { // top (with alpha) over an opaque bottom
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1);
  };
  const lum = (c) => {
    const ch = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2];
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  // The background behind el: its own and its ancestors' background colours, composed, over
  // white (the canvas). null when an image is in the way: a machine cannot tell.
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.backgroundImage && cs.backgroundImage !== "none") return null;
      const c = parse(cs.backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const seen = new Set();
  for (const el of document.body.querySelectorAll("*")) {
    if (["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "OPTION"].includes(el.tagName)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own.length) continue;
    if (el.closest("[hidden], [aria-hidden='true']")) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible" || cs.display === "none") continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue; // nothing to see (e.g. visually hidden)
    if (el.closest(":disabled")) continue; // WCAG 1.4.3 exempts inactive controls
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= parseFloat(getComputedStyle(e).opacity);
    const fg0 = parse(cs.color);
    const bg = background(el);
    if (!bg) continue;
    const fg = over([fg0[0], fg0[1], fg0[2], fg0[3] * opacity], bg);
    const size = parseFloat(cs.fontSize), weight = parseInt(cs.fontWeight, 10) || 400;
    const large = size >= 24 || (size >= 18.66 && weight >= 700);
    const need = large ? 3 : 4.5;
    const got = ratio(fg, bg);
    if (got < need) {
      const line = "contrast " + got.toFixed(2) + ":1, need " + need + ":1 (" + (large ? "large" : "normal") + " text, " +
        size + "px): " + desc(el) + " (" + hex(fg) + " on " + hex(bg) + ")";
      if (!seen.has(line)) { seen.add(line); add(line); }
    }
  }
  return out;
})()
