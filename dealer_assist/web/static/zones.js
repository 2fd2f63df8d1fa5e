/* The admin's seat zones: a photo of the table's empty layout (the one on record, or one
 * taken or uploaded now), on which the admin clicks the corners of each seat's zone and the
 * dealer's. Save sends the photo and the zones (in the photo's pixels) to the server, which
 * checks and records them; its message shows here when it refuses. Every rule (what a zone
 * must be) is the server's: this script only draws and collects.
 */
(function () {
  "use strict";

  const cfg = JSON.parse(document.getElementById("zones-config").textContent);
  const $ = (sel) => document.querySelector(sel);
  const SVG = "http://www.w3.org/2000/svg";
  const form = $("#zones-form");
  const img = $("#zones-img");
  const overlay = $("#zones-overlay");
  const fileInput = $("#zones-file");

  let zones = {};
  for (const [key, poly] of Object.entries(cfg.zones || {})) zones[key] = poly.map((p) => [p[0], p[1]]);
  let size = cfg.size;            // [w, h] of the photo the zones are in
  let current = "1";

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function label(key) {
    return key === "dealer" ? "Dealer" : "Seat " + key;
  }

  function status(text) {
    $("#zones-status").textContent = text;
  }

  function error(text) {
    $("#zones-error").textContent = text || "";
  }

  function sync() {
    const kept = {};
    for (const [key, poly] of Object.entries(zones)) if (poly.length) kept[key] = poly;
    $("#zones-json").value = JSON.stringify(kept);
    for (const btn of document.querySelectorAll(".zone-pick")) {
      const key = btn.dataset.zone;
      const n = (zones[key] || []).length;
      btn.classList.toggle("primary", key === current);
      btn.setAttribute("aria-pressed", key === current ? "true" : "false");
      btn.classList.toggle("drawn", n >= 3);
      btn.title = n ? `${n} points` : "not drawn";
    }
    const n = (zones[current] || []).length;
    if (size) {
      status(`${label(current)}: ${n} point${n === 1 ? "" : "s"}` +
             (n < 3 ? " (click its corners on the photo)" : ""));
    }
  }

  function render() {
    overlay.replaceChildren();
    if (!size) return;
    overlay.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
    const scale = Math.max(size[0], size[1]) / 1000;
    for (const [key, poly] of Object.entries(zones)) {
      if (!poly.length) continue;
      const g = svg("g", {class: "zone" + (key === current ? " current" : ""), "data-zone": key});
      const pts = poly.map((p) => p.join(",")).join(" ");
      g.append(svg(poly.length >= 3 ? "polygon" : "polyline", {points: pts}));
      if (key === current) {
        for (const [x, y] of poly) g.append(svg("circle", {cx: x, cy: y, r: 6 * scale}));
      }
      const cx = poly.reduce((a, p) => a + p[0], 0) / poly.length;
      const cy = poly.reduce((a, p) => a + p[1], 0) / poly.length;
      g.append(svg("text", {x: cx, y: cy, "font-size": 22 * scale, "text-anchor": "middle",
                            "dominant-baseline": "middle"}, label(key)));
      overlay.append(g);
    }
  }

  function show() {
    $("#zones-empty").hidden = Boolean(size);
    render();
    sync();
  }

  img.addEventListener("load", () => {
    const fresh = [img.naturalWidth, img.naturalHeight];
    if (size && (size[0] !== fresh[0] || size[1] !== fresh[1])) {
      // the same frame at another resolution keeps its zones where they were
      const sx = fresh[0] / size[0];
      const sy = fresh[1] / size[1];
      for (const key of Object.keys(zones)) zones[key] = zones[key].map(([x, y]) => [x * sx, y * sy]);
    }
    size = fresh;
    show();
  });

  img.addEventListener("error", () => {
    if (img.getAttribute("src")) error("that file is not a photo the browser can show (take a JPEG or PNG)");
  });

  fileInput.addEventListener("change", () => {
    const file = fileInput.files && fileInput.files[0];
    if (!file) return;
    error("");
    const reader = new FileReader();  // a data: URL: the page's policy allows no blob: images
    reader.onload = () => { img.src = reader.result; };
    reader.onerror = () => error("the photo could not be read from the device");
    reader.readAsDataURL(file);
  });

  overlay.addEventListener("click", (event) => {
    if (!size) return;
    const ctm = overlay.getScreenCTM();
    if (!ctm) return;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(ctm.inverse());
    if (p.x < 0 || p.y < 0 || p.x > size[0] || p.y > size[1]) return;  // beside the photo
    const poly = zones[current] || (zones[current] = []);
    if (poly.length >= cfg.most_points) {
      error(`${label(current)} has ${poly.length} points, the most a zone takes`);
      return;
    }
    poly.push([Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10]);
    error("");
    show();
  });

  for (const btn of document.querySelectorAll(".zone-pick")) {
    btn.addEventListener("click", () => {
      current = btn.dataset.zone;
      show();
    });
  }

  $("#zones-undo").addEventListener("click", () => {
    (zones[current] || []).pop();
    show();
  });

  $("#zones-erase").addEventListener("click", () => {
    delete zones[current];
    show();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    sync();
    const short = Object.entries(zones).filter(([, poly]) => poly.length && poly.length < 3);
    if (short.length) {
      const [key, poly] = short[0];
      error(`${label(key)} has ${poly.length} point${poly.length === 1 ? "" : "s"}: ` +
            "click at least 3 corners, or erase it");
      return;
    }
    const save = $("#zones-save");
    save.disabled = true;
    status("Saving…");
    try {
      const response = await fetch(form.action, {method: "POST", body: new FormData(form),
                                                 headers: {Accept: "application/json"}});
      const data = await response.json().catch(() => ({}));
      if (!response.ok) {
        error(data.message || `the server refused the zones (HTTP ${response.status})`);
        sync();
        return;
      }
      window.location.assign(data.location || window.location.href);
    } catch (e) {
      error("the zones could not be sent: " + e.message);
    } finally {
      save.disabled = false;
    }
  });

  if (cfg.photo) img.src = cfg.photo;
  show();
}());
