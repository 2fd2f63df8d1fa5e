/* The dealer screen's camera scan: Scan opens the tablet camera (live preview, Capture) or
 * takes a photo file (phones: the camera app), sends it to the server, draws what was read
 * over the photo, and places every seat's cards in its card field. Doubtful reads (low
 * confidence, a card seen twice, a hand that is not three cards, cards that could not be
 * read) stay highlighted until the dealer confirms or fixes them; Settle waits for that.
 * The round is then logged with the photo's SHA-256 (source "scan"; the server keeps the
 * photo). Every rule stays on the server: this script only shows and collects.
 */
(function () {
  "use strict";

  const screen = window.dealerScreen;
  if (!screen) return;
  const cfg = JSON.parse(document.getElementById("dealer-config").textContent);
  const csrf = document.querySelector("meta[name=csrf-token]").content;
  const $ = (sel, root) => (root || document).querySelector(sel);
  const SVG = "http://www.w3.org/2000/svg";
  const SUIT_SYMBOL = {S: "♠", H: "♥", D: "♦", C: "♣"};

  const dialog = $("#scan-dialog");
  const video = $("#scan-video");
  const img = $("#scan-img");
  const overlay = $("#scan-overlay");
  let stream = null;
  let busy = false;
  let shown = null;          // {data, url}: the result in the dialog, not yet placed
  let scan = null;           // the placed scan: {sha, data, url, doubts, general, ...}

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function pretty(card) {
    return card ? card.slice(0, -1) + (SUIT_SYMBOL[card.slice(-1)] || card.slice(-1)) : "?";
  }

  function handKey(seat) {
    if (seat === "dealer") return "dealer";
    if (Number.isInteger(seat) && seat >= 1 && seat <= cfg.seats) return String(seat);
    return null;
  }

  function where(key) {
    return key === "dealer" ? "Dealer" : "Seat " + key;
  }

  /* A note of no hand, with the seat whose zone holds the place it points at, if any. */
  function noteText(item) {
    const key = item.region ? handKey(item.seat) : null;
    return key ? `${where(key)}: ${item.reason}` : item.reason;
  }

  function status(text) {
    $("#scan-status").textContent = text;
  }

  function error(text) {
    $("#scan-error").textContent = text || "";
  }

  /* ---- the dialog: camera, capture, upload ------------------------------------------ */

  function stage(name) {
    // "camera": live preview; "reading": the photo, waiting; "result": the photo read
    dialog.dataset.stage = name;
    video.hidden = name !== "camera";
    $("#scan-photo").hidden = name === "camera";
    $("#scan-capture").hidden = name !== "camera";
    $("#scan-retake").hidden = name !== "result";
    $("#scan-use").hidden = name !== "result";
    $("#scan-upload").hidden = name === "reading";
    $("#scan-summary").hidden = name !== "result";
  }

  function stopCamera() {
    if (stream) for (const track of stream.getTracks()) track.stop();
    stream = null;
    video.srcObject = null;
  }

  async function startCamera() {
    stage("camera");
    $("#scan-capture").disabled = true;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      status("No camera here (it needs HTTPS): use Upload a photo.");
      return;
    }
    status("Starting the camera…");
    try {
      // as sharp as the camera gives, up to 4K: the small indices of a hand's lower cards
      // read surer (held-out tables 2026-12-03: sure 65.5% at 1080p, 69.4% at 2160p, the
      // same cards right; 151 against 190 ms to read); a camera that cannot gives less
      stream = await navigator.mediaDevices.getUserMedia({
        audio: false,
        video: {facingMode: {ideal: "environment"}, width: {ideal: 3840},
                height: {ideal: 2160}}});
    } catch (e) {
      status(`No camera (${e.name || e}): use Upload a photo.`);
      return;
    }
    if (dialog.hidden) { stopCamera(); return; }
    video.srcObject = stream;
    try { await video.play(); } catch (e) { /* autoplay: the stream shows anyway */ }
    $("#scan-capture").disabled = false;
    // what reads worst is said first (held out, 2026-12-04: the camera moving 78% of the
    // cards right, tilted 94%, held still above the table 98%; card_models/README.md)
    status("Hold the tablet still, straight above the table, every hand in view; then Capture.");
    $("#scan-capture").focus();
  }

  function openScan() {
    if (busy || !$("#result").hidden || !$("#misdeal-dialog").hidden) return;
    shown = null;
    error("");
    dialog.hidden = false;
    $("#entry").setAttribute("aria-hidden", "true");
    startCamera();
  }

  function closeScan() {
    stopCamera();
    dialog.hidden = true;
    $("#entry").removeAttribute("aria-hidden");
  }

  function toBlob(canvas) {
    return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
  }

  function dataUrl(blob) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    });
  }

  async function capture() {
    if (busy || !stream || !video.videoWidth) return;
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    stopCamera();
    await send(await toBlob(canvas));
  }

  /* A photo file as the phone or tablet gives it: sent as it is when it is a JPEG or PNG
   * within the limits (the kept photo is then the very file); otherwise drawn again as a
   * JPEG within the pixel limit (HEIC, huge photos), when this browser can decode it. */
  async function prepare(file) {
    const plain = (file.type === "image/jpeg" || file.type === "image/png")
      && file.size <= cfg.scanMaxBytes;
    let bitmap = null;
    try {
      bitmap = await createImageBitmap(file, {imageOrientation: "from-image"});
    } catch (e) {
      return file;                         // the server says what is wrong with it
    }
    const pixels = bitmap.width * bitmap.height;
    if (plain && pixels <= cfg.scanMaxPixels) { bitmap.close(); return file; }
    const scale = Math.min(1, Math.sqrt(cfg.scanMaxPixels * 0.95 / pixels));
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.floor(bitmap.width * scale));
    canvas.height = Math.max(1, Math.floor(bitmap.height * scale));
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return toBlob(canvas);
  }

  async function upload(ev) {
    const file = ev.target.files && ev.target.files[0];
    ev.target.value = "";
    if (!file || busy) return;
    stopCamera();
    await send(await prepare(file));
  }

  async function send(blob) {
    busy = true;
    error("");
    let url = "";
    try {
      url = await dataUrl(blob);
      img.src = url;
      overlay.replaceChildren();
      stage("reading");
      status("Reading the cards…");
      const response = await fetch(cfg.scanUrl, {
        method: "POST", credentials: "same-origin", body: blob,
        headers: {"Content-Type": blob.type || "application/octet-stream",
                  "Accept": "application/json", "X-CSRFToken": csrf}});
      let data = null;
      try { data = await response.json(); } catch (e) { data = null; }
      if (response.ok && data) {
        showResult(data, url);
        return;
      }
      const why = data && data.error ? data.error.message : `HTTP ${response.status}`;
      error(`Not read: ${why}.`);
    } catch (e) {
      error("Not read: the server cannot be reached. Try again.");
    } finally {
      busy = false;
    }
    if (!dialog.hidden && dialog.dataset.stage !== "result") startCamera();
  }

  /* ---- what was read, over the photo ------------------------------------------------ */

  function doubtsOf(data) {
    // hand index -> {cards: Map card -> item, notes: [reason]}; items of no hand apart
    const byHand = new Map();
    const general = [];
    for (const item of data.needs_confirmation) {
      if (item.hand === null || item.hand === undefined) { general.push(item); continue; }
      if (!byHand.has(item.hand)) byHand.set(item.hand, {cards: new Map(), notes: []});
      const d = byHand.get(item.hand);
      if (item.card) {
        const seen = d.cards.get(item.card);
        d.cards.set(item.card, seen ? {...seen, reason: seen.reason + "; " + item.reason}
          : item);
        if (item.hands) {
          // a card seen twice: every hand it is in is in doubt
          for (const other of item.hands) {
            if (other === item.hand) continue;
            if (!byHand.has(other)) byHand.set(other, {cards: new Map(), notes: []});
            byHand.get(other).cards.set(item.card, item);
          }
        }
      } else d.notes.push(item.reason);
    }
    return {byHand, general};
  }

  function drawOverlay(data) {
    const w = data.image.width;
    const h = data.image.height;
    overlay.setAttribute("viewBox", `0 0 ${w} ${h}`);
    overlay.replaceChildren();
    const {byHand} = doubtsOf(data);
    const size = Math.max(14, Math.round(h / 34));
    const centres = new Map();
    const labels = [];       // placed label boxes [x0, y0, x1, y1]: labels never overlap
    const free = (b) => labels.every((o) => b[2] <= o[0] || b[0] >= o[2] || b[3] <= o[1]
                                            || b[1] >= o[3]);
    const outlines = [];
    const tags = [];
    data.cards.forEach((c, i) => {
      const doubt = byHand.has(c.hand) && byHand.get(c.hand).cards.has(c.card);
      const sure = c.confidence >= data.threshold && !doubt;
      const cls = "scan-card " + (sure ? "sure" : "doubt");
      const g = svg("g", {"class": cls, "data-card": c.card, "data-hand": c.hand,
                          "data-index": i});
      g.append(svg("polygon", {points: c.corners.map((p) => p.join(",")).join(" ")}));
      outlines.push(g);
      // the label sits above the card's index corner, moved up or down past other labels
      const [x, y] = c.corners[0];
      const text = pretty(c.card) + (sure ? "" : ` ${Math.round(c.confidence * 100)}%`);
      const width = size * 0.62 * text.length + size * 0.5;
      const height = size * 1.2;
      let top = y - size * 1.25;
      for (let step = 1; step < 40; step++) {
        if (free([x - width / 2, top, x + width / 2, top + height])) break;
        top = y - size * 1.25 + (step % 2 ? -1 : 1) * Math.ceil(step / 2) * (height + 2);
      }
      labels.push([x - width / 2, top, x + width / 2, top + height]);
      const tag = svg("g", {"class": "scan-label " + (sure ? "sure" : "doubt"), "data-label": i});
      tag.append(svg("rect", {x: x - width / 2, y: top, width, height, rx: size * 0.2}));
      tag.append(svg("text", {x, y: top + size * 0.9, "font-size": size,
                              "text-anchor": "middle"}, text));
      tags.push(tag);
      const sum = centres.get(c.hand) || [0, 0, 0, c.seat];
      for (const [px, py] of c.corners) { sum[0] += px; sum[1] += py; sum[2] += 1; }
      centres.set(c.hand, sum);
    });
    overlay.append(...outlines);
    for (const [hand, [sx, sy, n, seat]] of centres) {
      // the hand's seat, on the far side of the hand from the photo's centre
      const key = handKey(seat);
      const label = key === "dealer" ? "D" : key ? "S" + key : "?";
      const cls = "scan-seat" + (byHand.has(hand) ? " doubt" : "") + (key ? "" : " unseated");
      const [cx, cy] = [sx / n, sy / n];
      const away = Math.hypot(cx - w / 2, cy - h / 2) || 1;
      const push = size * 3.2;
      const [bx, by] = [cx + (cx - w / 2) / away * push, cy + (cy - h / 2) / away * push];
      const g = svg("g", {"class": cls, "data-hand": hand});
      g.append(svg("circle", {cx: bx, cy: by, r: size * 0.95}));
      g.append(svg("text", {x: bx, y: by + size * 0.36, "font-size": size,
                            "text-anchor": "middle"}, label));
      overlay.append(g);
    }
    overlay.append(...tags);
    for (const item of data.needs_confirmation) {
      if (!item.region) continue;
      // a region not read, or a hand lying face down (the reader says which)
      const g = svg("g", {"class": "scan-unread", "data-face-down": item.face_down ? "1" : "0"});
      g.append(svg("polygon", {points: item.region.map((p) => p.join(",")).join(" ")}));
      const [x, y] = item.region[0];
      g.append(svg("text", {x, y: y - size * 0.3, "font-size": size},
                   item.face_down ? "face down" : "not read"));
      overlay.append(g);
    }
  }

  function summaryOf(data) {
    const {byHand, general} = doubtsOf(data);
    const box = $("#scan-summary");
    box.replaceChildren();
    const list = el("ul", "scan-hands");
    data.hands.forEach((hand, i) => {
      const key = handKey(hand.seat);
      const li = el("li", byHand.has(i) ? "doubt" : "sure");
      li.dataset.hand = i;
      li.append(el("strong", "", key ? where(key) : "No seat"));
      for (const c of hand.cards) {
        const doubt = byHand.has(i) && byHand.get(i).cards.has(c);
        li.append(el("span", "scan-card-name" + (doubt ? " doubt" : ""), pretty(c)));
      }
      list.append(li);
    });
    box.append(list);
    const parts = [];
    if (byHand.size) parts.push(`${byHand.size} of ${data.hands.length} hands to confirm`);
    if (general.length) parts.push(`${general.length} note${general.length === 1 ? "" : "s"}`);
    const head = el("p", parts.length ? "scan-count doubt" : "scan-count sure",
                    parts.length ? parts.join(" · ") : "Every card read clearly");
    head.dataset.testid = "scan-count";
    box.prepend(head);
    if (data.deck_sha256) {
      // the table's enrolled deck (vision enroll-table) read this photo
      const deck = el("p", "scan-deck", "Read with this table's enrolled deck");
      deck.title = "deck " + data.deck_sha256.slice(0, 12);
      deck.dataset.testid = "scan-deck";
      head.after(deck);
    }
    const reasons = el("ul", "scan-reasons");
    // what is said of the whole photo first (blurred, no seat zones): it bears on every read
    for (const item of general) reasons.append(el("li", "scan-photo-note", noteText(item)));
    for (const [i, d] of byHand) {
      const hand = data.hands[i];
      const key = hand ? handKey(hand.seat) : null;
      for (const [card, item] of d.cards) {
        reasons.append(el("li", "", `${key ? where(key) : "No seat"} ${pretty(card)}: ${item.reason}`));
      }
      for (const note of d.notes) reasons.append(el("li", "", `${key ? where(key) : "No seat"}: ${note}`));
    }
    box.append(reasons);
  }

  function showResult(data, url) {
    shown = {data, url};
    stage("result");
    drawOverlay(data);
    summaryOf(data);
    const n = data.cards.length;
    status(`${n} card${n === 1 ? "" : "s"} in ${data.hands.length} hand${data.hands.length === 1 ? "" : "s"}.`);
    $("#scan-use").focus();
  }

  /* ---- placing the cards, and what the dealer must confirm -------------------------- */

  function place() {
    if (!shown) return;
    const {data, url} = shown;
    const {byHand, general} = doubtsOf(data);
    const doubts = {};
    const unseated = [];
    for (const hand of ["dealer", ...Array.from({length: cfg.seats}, (_, i) => String(i + 1))]) {
      screen.cardsInput(hand).value = "";
    }
    data.hands.forEach((hand, i) => {
      const key = handKey(hand.seat);
      if (!key) {
        // why it has no seat, in the reader's words (outside every zone, cards too small)
        const notes = byHand.has(i) ? byHand.get(i).notes : [];
        const why = notes.length ? notes.join("; ")
          : hand.seat === null ? "outside every seat zone" : `seat ${hand.seat}`;
        unseated.push(`${hand.cards.map(pretty).join(" ")} \u2014 ${why}`);
        return;
      }
      const input = screen.cardsInput(key);
      const value = [input.value.trim(), ...hand.cards].filter(Boolean).join(" ");
      input.value = value;
      if (byHand.has(i)) {
        const d = doubts[key] || {cards: new Map(), notes: [], confirmed: false};
        for (const [card, item] of byHand.get(i).cards) d.cards.set(card, item);
        d.notes.push(...byHand.get(i).notes);
        doubts[key] = d;
      }
    });
    for (const [key, d] of Object.entries(doubts)) d.placed = screen.cardsInput(key).value;
    // a seat with a bet and no hand read: the reader can miss a whole hand (cards no whiter
    // than a light table) without a word, as it does not know which seats play
    const bare = [];
    for (let n = 1; n <= cfg.seats; n++) {
      if (screen.seatHasStake(n) && !screen.cardsInput(String(n)).value.trim()) {
        bare.push(`Seat ${n} has a bet but no hand was read there: enter its cards, ` +
                  "or take the photo again");
      }
    }
    scan = {sha: data.photo_sha256, data, url, doubts, unseated,
            general: [...general.map(noteText), ...bare], generalConfirmed: false};
    closeScan();
    screen.invalidatePreview();
    screen.renderAll();
    const first = pendingHands()[0];
    screen.focusHand(first || "dealer");
  }

  /* A hand in doubt waits until the dealer taps Cards OK or changes its cards (typing,
   * the picker, taking a card back): either way they have looked at it. Taking one of a
   * doubtful card's alternatives settles that card only. */
  function untouched(key) {
    const d = scan && scan.doubts[key];
    return Boolean(d && !d.confirmed && screen.cardsInput(key).value === d.placed);
  }

  function pendingCards(key) {
    if (!untouched(key)) return [];
    const now = screen.handCards(key);
    return Array.from(scan.doubts[key].cards.keys()).filter((c) => now.includes(c));
  }

  function pendingNotes(key) {
    return untouched(key) ? scan.doubts[key].notes : [];
  }

  function pendingHands() {
    if (!scan) return [];
    return Object.keys(scan.doubts).filter((k) => pendingCards(k).length || pendingNotes(k).length);
  }

  function generalPending() {
    return Boolean(scan && !scan.generalConfirmed && (scan.general.length || scan.unseated.length));
  }

  function replaceCard(key, from, to) {
    const input = screen.cardsInput(key);
    const cards = input.value.split(/[\s,;]+/).filter(Boolean);
    const i = cards.findIndex((t) => screen.parseCard(t) === from);
    if (i >= 0) cards[i] = to; else cards.push(to);
    input.value = cards.join(" ");
    const d = scan.doubts[key];
    d.cards.delete(from);
    d.placed = input.value;
    screen.invalidatePreview();
    screen.renderAll();
  }

  /* A reason in a few words, for the narrow seat column (the full one is its title). */
  function short(reason) {
    const parts = [];
    for (const r of reason.split("; ")) {
      let m;
      if ((m = /low confidence ([\d.]+)/.exec(r))) parts.push(`${Math.round(m[1] * 100)}% sure`);
      else if ((m = /could also be (\w+)/.exec(r))) parts.push(`or ${pretty(m[1])}?`);
      else if ((m = /seen (\d+) times/.exec(r))) parts.push(`seen ${m[1]}×`);
      else if ((m = /hand has (\d+) cards?/.exec(r))) parts.push(`${m[1]} card${m[1] === "1" ? "" : "s"}, not 3`);
      else if (/look face down/.test(r)) parts.push("face down: turn them over");
      else parts.push(r);
    }
    return parts.join(", ");
  }

  function renderNotes() {
    for (const box of document.querySelectorAll(".scan-note[data-scan-note]")) {
      const key = box.dataset.scanNote;
      const hand = $(`.hand[data-hand="${key}"]`);
      const cards = pendingCards(key);
      const notes = pendingNotes(key);
      const pending = cards.length + notes.length > 0;
      hand.classList.toggle("needs-confirm", pending);
      box.hidden = !pending;
      box.replaceChildren();
      if (!pending) continue;
      const d = scan.doubts[key];
      const full = [];
      for (const card of cards) {
        const item = d.cards.get(card);
        const line = el("div", "scan-doubt");
        line.dataset.card = card;
        line.append(el("span", "why", `${pretty(card)}? ${short(item.reason)}`));
        full.push(`${card}: ${item.reason}`);
        // the reader's next guess, one tap away
        const alt = (item.alternatives || []).map((a) => a[0]).find((a) => a !== card);
        if (alt && !screen.handCards(key).includes(alt)) {
          const b = el("button", "alt", pretty(alt) + "?");
          b.type = "button";
          b.tabIndex = -1;
          b.title = `Replace ${card} with ${alt}`;
          b.dataset.testid = `scan-alt-${key}-${card}`;
          b.addEventListener("click", () => replaceCard(key, card, alt));
          line.append(b);
        }
        box.append(line);
      }
      for (const note of notes) {
        box.append(el("div", "scan-doubt", short(note)));
        full.push(note);
      }
      box.title = full.join("\n");
      const ok = el("button", "btn small ok", "Cards OK");
      ok.type = "button";
      ok.dataset.testid = "scan-ok-" + key;
      ok.addEventListener("click", () => {
        d.confirmed = true;
        screen.renderAll();
        const next = pendingHands()[0];
        if (next) screen.focusHand(next);
      });
      box.append(ok);
    }
    renderBanner();
  }

  function button(text, testid, action, title) {
    const b = el("button", "btn small", text);
    b.type = "button";
    b.dataset.testid = testid;
    if (title) b.title = title;
    b.addEventListener("click", action);
    return b;
  }

  /* Above the seats while a scan is placed: what is left to confirm, the notes that belong
   * to no seat (cards not read, hands outside every zone), the photo, and Discard. */
  function renderBanner() {
    const banner = $("#scan-banner");
    banner.hidden = !scan;
    banner.replaceChildren();
    if (!scan) return;
    banner.dataset.photo = scan.sha;
    const left = pendingHands().length;
    const text = el("span", "");
    text.append(el("strong", "", "Scanned"));
    text.append(" " + (left ? `${left} hand${left === 1 ? "" : "s"} to confirm or fix (highlighted)`
      : "every hand confirmed") + ".");
    banner.append(text);
    if (generalPending()) {
      const list = el("ul", "scan-general");
      list.dataset.testid = "scan-general";
      for (const u of scan.unseated) list.append(el("li", "", "Not placed: " + u));
      for (const g of scan.general) list.append(el("li", "", g));
      banner.append(list, button("Checked", "scan-general-ok", () => {
        scan.generalConfirmed = true;
        screen.renderAll();
      }));
    }
    banner.append(button("Photo", "scan-show", showPlaced),
                  button("Discard scan", "scan-discard", discard,
                         "Keep the cards, log the round as typed (no photo)"));
  }

  function showPlaced() {
    if (!scan) return;
    dialog.hidden = false;
    $("#entry").setAttribute("aria-hidden", "true");
    img.src = scan.url;
    showResult(scan.data, scan.url);
    // the cards are placed already (and maybe fixed): nothing to place again
    $("#scan-use").hidden = true;
    $("#scan-cancel").focus();
  }

  let shownMessage = "";

  function clearStaleMessage() {
    // the message Settle gave while cards waited, once nothing waits any more
    const box = $("#general-error");
    if (shownMessage && !pendingMessage() && box.textContent === shownMessage) box.textContent = "";
  }

  function faceClass(key, card) {
    return pendingCards(key).includes(card) ? "doubt" : "";
  }

  function pendingMessage() {
    if (!scan) return "";
    const hands = pendingHands();
    if (hands.length) {
      return `Confirm or fix the scanned cards first: ${hands.map(where).join(", ")} ` +
        "(highlighted). Tap Cards OK when they are right, or change them.";
    }
    if (generalPending()) return "Check the scan's notes above the seats, then tap Checked.";
    return "";
  }

  function discard() {
    scan = null;
    screen.invalidatePreview();
    screen.renderAll();
  }

  /* ---- wiring ----------------------------------------------------------------------- */

  screen.hooks.faceClass = faceClass;
  screen.hooks.render = () => { renderNotes(); clearStaleMessage(); };
  screen.hooks.pending = () => (shownMessage = pendingMessage());
  screen.hooks.photo = () => (scan ? scan.sha : null);
  screen.hooks.reset = () => { scan = null; shown = null; };
  screen.hooks.open = () => !dialog.hidden;

  $("#scan").addEventListener("click", openScan);
  $("#scan-cancel").addEventListener("click", closeScan);
  $("#scan-capture").addEventListener("click", capture);
  $("#scan-retake").addEventListener("click", () => { shown = null; error(""); startCamera(); });
  $("#scan-use").addEventListener("click", place);
  $("#scan-file").addEventListener("change", upload);
  document.addEventListener("keydown", (ev) => {
    if (dialog.hidden) return;
    if (ev.key === "Escape") { ev.preventDefault(); closeScan(); }
  });
  screen.renderAll();
  window.dealerScan = {state: () => scan, shown: () => shown};
})();
