/* The dealer screen: enter a round by taps or keys, settle it on the server, confirm and log.
 *
 * Every rule is the server's (the domain): this script only collects the entry, shows card
 * faces for what was typed, greys out cards already used, and renders what the server says.
 *
 * Keyboard lane: dealer cards -> seat 1 cards -> seat 1 play/fold (P or F) -> seat 2 ... ->
 * Settle. Three typed cards move on by themselves; Enter moves on early. Stakes: Enter in
 * any stake box goes to the next seat's ante (Tab reaches pair plus, six card, prime), and
 * from the last seat to the dealer's cards. Ctrl+Enter settles from anywhere; in the
 * settlement, Enter confirms and Esc goes back.
 */
(function () {
  "use strict";

  const cfg = JSON.parse(document.getElementById("dealer-config").textContent);
  const csrf = document.querySelector("meta[name=csrf-token]").content;
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const SEATS = cfg.seats;
  const STAKES = ["ante", "pair_plus", "six_card", "prime"];
  const BET_LABEL = {ante: "Ante", play: "Play", ante_bonus: "Ante bonus", pair_plus: "Pair plus",
                     six_card: "Six card", prime: "Prime"};
  const SUIT_SYMBOL = {S: "♠", H: "♥", D: "♦", C: "♣"};
  const RANK_TOKENS = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8",
                       "9": "9", "10": "10", "T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"};
  const SUIT_TOKENS = {C: "C", D: "D", H: "H", S: "S", "♣": "C", "♧": "C", "♦": "D", "♢": "D",
                       "♥": "H", "♡": "H", "♠": "S", "♤": "S"};

  /* ---- small helpers ---------------------------------------------------------------- */

  function money(cents, sign) {
    const neg = cents < 0;
    const abs = Math.abs(cents);
    const whole = Math.floor(abs / 100).toLocaleString("en-US");
    const part = abs % 100;
    const text = cfg.currency + whole + (part ? "." + String(part).padStart(2, "0") : "");
    return (neg ? "-" : (sign && cents > 0 ? "+" : "")) + text;
  }

  function dollars(cents) {
    if (!cents) return "";
    return cents % 100 ? (cents / 100).toFixed(2) : String(cents / 100);
  }

  function parseAmount(text) {
    const t = text.trim().replace(/^\$/, "").replace(/,/g, "");
    if (t === "") return 0;
    if (!/^\d+(\.\d{1,2})?$/.test(t)) return null;
    const [whole, part] = t.split(".");
    return parseInt(whole, 10) * 100 + (part ? parseInt(part.padEnd(2, "0"), 10) : 0);
  }

  function parseCard(token) {
    const t = token.trim().toUpperCase();
    if (t.length < 2) return null;
    const rank = RANK_TOKENS[t.slice(0, -1)];
    const suit = SUIT_TOKENS[t.slice(-1)];
    return rank && suit ? rank + suit : null;
  }

  function tokens(text) {
    return text.split(/[\s,;]+/).filter(Boolean);
  }

  function newKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function face(card, extra) {
    const rank = card.slice(0, -1);
    const suit = card.slice(-1);
    const node = el("span", "face suit-" + suit + (extra ? " " + extra : ""));
    node.dataset.card = card;
    node.append(el("span", "rank", rank), el("span", "sym", SUIT_SYMBOL[suit]));
    node.title = card;
    return node;
  }

  /* ---- state ------------------------------------------------------------------------ */

  const hands = ["dealer"];
  for (let n = 1; n <= SEATS; n++) hands.push(String(n));
  const decisions = {};          // seat -> "play" | "fold"
  let lastStakes = cfg.lastStakes || [];
  let activeHand = "dealer";
  let activeStake = $('.stake-input[data-seat="1"][data-stake="ante"]');
  let preview = null;            // {payload, key, response, photo}
  let busy = false;
  /* The camera scan (scan.js) plugs in here: a class for a doubtful card's face, its notes
   * under the hands, a message while a scanned card awaits confirmation (Settle waits), the
   * scanned photo's SHA-256 for the log, and a reset once the round is logged. */
  const hooks = {faceClass: () => "", render: () => {}, pending: () => "", photo: () => null,
                 reset: () => {}, open: () => false};

  $(".seats").style.setProperty("--seats", String(SEATS));

  const cardsInput = (hand) => document.getElementById("cards-" + hand);
  const stakeInput = (seat, key) => $(`.stake-input[data-seat="${seat}"][data-stake="${key}"]`);
  const decisionBox = (seat) => $(`.decision[data-seat="${seat}"]`);

  function handCards(hand) {
    return tokens(cardsInput(hand).value).map(parseCard);
  }

  function seatHasStake(seat) {
    return STAKES.some((k) => (parseAmount(stakeInput(seat, k).value) || 0) > 0);
  }

  function usedCards() {
    const used = new Map();
    for (const hand of hands) {
      for (const card of handCards(hand)) if (card && !used.has(card)) used.set(card, hand);
    }
    return used;
  }

  /* ---- rendering the entry ---------------------------------------------------------- */

  function renderHand(hand) {
    const box = $(`.faces[data-faces="${hand}"]`);
    box.replaceChildren();
    const seen = new Map();
    for (const h of hands) {
      if (h === hand) break;
      for (const c of handCards(h)) if (c) seen.set(c, h);
    }
    const raw = tokens(cardsInput(hand).value);
    raw.forEach((token, i) => {
      const card = parseCard(token);
      if (!card) {
        const bad = el("span", "face bad", "?");
        bad.title = `"${token}" is not a card`;
        box.append(bad);
        return;
      }
      const dup = seen.has(card) || raw.slice(0, i).map(parseCard).includes(card);
      const node = face(card, [dup ? "dup" : "", hooks.faceClass(hand, card)].join(" ").trim());
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", "Remove " + card);
      box.append(node);
      seen.set(card, hand);
    });
    for (let i = raw.length; i < 3; i++) box.append(el("span", "face empty"));
  }

  function renderPicker() {
    const used = usedCards();
    const active = new Set(handCards(activeHand).filter(Boolean));
    for (const button of $$(".pick")) {
      const card = button.dataset.card;
      button.classList.toggle("used", used.has(card) && !active.has(card));
      button.classList.toggle("in-active", active.has(card));
      button.setAttribute("aria-disabled", used.has(card) && !active.has(card) ? "true" : "false");
    }
  }

  function renderSeat(seat) {
    const box = $(`.seat[data-seat="${seat}"]`);
    box.classList.toggle("has-bet", seatHasStake(seat));
    const d = decisions[seat];
    for (const b of $$("[data-decide]", decisionBox(seat))) {
      b.classList.toggle("on", b.dataset.decide === d);
      b.setAttribute("aria-pressed", b.dataset.decide === d ? "true" : "false");
    }
  }

  function renderAll() {
    hands.forEach(renderHand);
    for (let n = 1; n <= SEATS; n++) renderSeat(n);
    renderPicker();
    for (const h of $$(".hand")) h.classList.toggle("active", h.dataset.hand === activeHand);
    for (const s of $$(".stake-input")) s.classList.toggle("active", s === activeStake);
    hooks.render();
  }

  function clearErrors() {
    for (const e of $$(".field-error")) e.textContent = "";
    for (const e of $$(".invalid")) e.classList.remove("invalid");
    $("#general-error").textContent = "";
  }

  function showError(message, field, seatsSent) {
    // field from the domain: "dealer", "seats[2].cards", "seats[0].ante", ...
    const m = /^seats\[(\d+)\](?:\.(\w+))?/.exec(field || "");
    let target = null;
    let where = null;
    if (m && seatsSent && seatsSent[+m[1]]) {
      const seat = seatsSent[+m[1]].seat;
      target = $(`.field-error[data-error="${seat}"]`);
      const key = m[2];
      if (STAKES.includes(key)) where = stakeInput(seat, key);
      else if (key === "play") where = decisionBox(seat);
      else where = $(`.hand[data-hand="${seat}"]`);
    } else if (field === "dealer") {
      target = $('.field-error[data-error="dealer"]');
      where = $('.hand[data-hand="dealer"]');
    }
    if (where) where.classList.add("invalid");
    (target || $("#general-error")).textContent = message;
  }

  /* ---- lane (keyboard order) and active hand ---------------------------------------- */

  function lane() {
    const out = [cardsInput("dealer")];
    for (let n = 1; n <= SEATS; n++) {
      if (!seatHasStake(n) && !cardsInput(String(n)).value.trim()) continue;
      out.push(cardsInput(String(n)));
      if ((parseAmount(stakeInput(n, "ante").value) || 0) > 0) out.push(decisionBox(n));
    }
    out.push($("#settle"));
    return out;
  }

  function advanceFrom(node) {
    const order = lane();
    const i = order.indexOf(node);
    const next = order[i + 1] || $("#settle");
    next.focus();
  }

  function nextHand(hand) {
    const order = lane().filter((n) => n.classList.contains("cards-input"))
      .map((n) => n.dataset.hand);
    const i = order.indexOf(hand);
    return i >= 0 && i + 1 < order.length ? order[i + 1] : null;
  }

  function setActiveHand(hand) {
    activeHand = hand;
    renderAll();
  }

  function handFull(hand) {
    const cards = handCards(hand);
    return cards.length >= 3 && cards.every(Boolean);
  }

  /* ---- entry events ----------------------------------------------------------------- */

  for (const input of $$(".cards-input")) {
    input.addEventListener("focus", () => setActiveHand(input.dataset.hand));
    input.addEventListener("input", (ev) => {
      invalidatePreview();
      renderAll();
      const typed = (ev.inputType || "").startsWith("insert");
      const last = input.value.slice(-1).toUpperCase();
      if (typed && handCards(input.dataset.hand).length === 3 && handFull(input.dataset.hand)
          && SUIT_TOKENS[last] && input.selectionStart === input.value.length) {
        advanceFrom(input);
      }
    });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.ctrlKey) {
        ev.preventDefault();
        advanceFrom(input);
      }
    });
  }

  for (const box of $$(".faces")) {
    box.addEventListener("click", (ev) => {
      const hand = box.dataset.faces;
      const target = ev.target.closest(".face");
      if (target && target.dataset.card) {
        const input = cardsInput(hand);
        const kept = tokens(input.value).filter((t) => parseCard(t) !== target.dataset.card);
        input.value = kept.join(" ");
        invalidatePreview();
      }
      setActiveHand(hand);
    });
  }
  for (const label of $$(".hand-label, .seat-head")) {
    label.addEventListener("click", () => {
      const hand = label.closest("[data-hand]") ? label.closest("[data-hand]").dataset.hand
        : label.closest(".seat").dataset.seat;
      setActiveHand(hand);
    });
  }

  $("#picker").addEventListener("click", (ev) => {
    const button = ev.target.closest(".pick");
    if (!button) return;
    const card = button.dataset.card;
    const input = cardsInput(activeHand);
    const current = tokens(input.value);
    if (current.map(parseCard).includes(card)) {          // tap again: take it back
      input.value = current.filter((t) => parseCard(t) !== card).join(" ");
    } else if (usedCards().has(card)) {
      return;
    } else if (handFull(activeHand)) {
      $("#general-error").textContent =
        `${activeHand === "dealer" ? "the dealer" : "seat " + activeHand} already has 3 cards: ` +
        "tap one of them to take it back";
      return;
    } else {
      input.value = current.concat([card]).join(" ");
      if (handFull(activeHand)) {
        const next = nextHand(activeHand);
        if (next) activeHand = next;
      }
    }
    invalidatePreview();
    renderAll();
  });

  for (const box of $$(".decision")) {
    const seat = box.dataset.seat;
    box.addEventListener("click", (ev) => {
      const b = ev.target.closest("[data-decide]");
      if (!b) return;
      decisions[seat] = b.dataset.decide;
      invalidatePreview();
      renderSeat(seat);
    });
    box.addEventListener("keydown", (ev) => {
      const k = ev.key.toLowerCase();
      if (k === "p" || k === "f") {
        ev.preventDefault();
        decisions[seat] = k === "p" ? "play" : "fold";
        invalidatePreview();
        renderSeat(seat);
        advanceFrom(box);
      } else if (ev.key === "Enter" && !ev.ctrlKey) {
        ev.preventDefault();
        advanceFrom(box);
      }
    });
  }

  for (const input of $$(".stake-input")) {
    input.addEventListener("focus", () => {
      activeStake = input;
      renderAll();
    });
    input.addEventListener("input", () => {
      invalidatePreview();
      renderSeat(input.dataset.seat);
    });
    input.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter" || ev.ctrlKey) return;
      ev.preventDefault();
      const seat = parseInt(input.dataset.seat, 10);
      if (seat < SEATS) stakeInput(seat + 1, "ante").focus();
      else cardsInput("dealer").focus();
    });
  }

  for (const chip of $$(".chip")) {
    chip.addEventListener("click", () => {
      const now = parseAmount(activeStake.value) || 0;
      activeStake.value = dollars(now + parseInt(chip.dataset.chip, 10));
      invalidatePreview();
      renderAll();
    });
  }
  $("#clear-stake").addEventListener("click", () => {
    activeStake.value = "";
    invalidatePreview();
    renderAll();
  });

  function applyStakes(list) {
    for (let n = 1; n <= SEATS; n++) for (const k of STAKES) stakeInput(n, k).value = "";
    for (const s of list) {
      if (s.seat < 1 || s.seat > SEATS) continue;
      for (const k of STAKES) stakeInput(s.seat, k).value = dollars(s[k] || 0);
    }
  }

  $("#same-as-last").addEventListener("click", () => {
    applyStakes(lastStakes);
    invalidatePreview();
    renderAll();
  });

  /* ---- building the round ----------------------------------------------------------- */

  function collect() {
    const errors = [];
    const seats = [];
    for (let n = 1; n <= SEATS; n++) {
      const stakes = {};
      for (const k of STAKES) {
        const input = stakeInput(n, k);
        const cents = parseAmount(input.value);
        if (cents === null) {
          errors.push([n, `seat ${n}: "${input.value}" is not an amount (like 25 or 12.50)`,
                       input]);
          stakes[k] = 0;
        } else stakes[k] = cents;
      }
      const text = cardsInput(String(n)).value.trim();
      const any = STAKES.some((k) => stakes[k] > 0);
      if (!any && !text) continue;
      if (stakes.ante > 0 && !decisions[n]) {
        errors.push([n, `seat ${n}: choose play or fold`, decisionBox(n)]);
      }
      seats.push({seat: n, cards: tokens(text), play: decisions[n] === "play", ...stakes});
    }
    return {payload: {dealer: tokens(cardsInput("dealer").value), seats}, errors};
  }

  function currentStakes() {
    const out = [];
    for (let n = 1; n <= SEATS; n++) {
      const s = {seat: n};
      for (const k of STAKES) s[k] = parseAmount(stakeInput(n, k).value) || 0;
      if (STAKES.some((k) => s[k] > 0)) out.push(s);
    }
    return out;
  }

  async function post(url, body, headers) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json",
                "X-CSRFToken": csrf, ...(headers || {})},
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return {status: response.status, ok: response.ok, data};
  }

  /* ---- settle and confirm ----------------------------------------------------------- */

  function invalidatePreview() {
    preview = null;
  }

  async function settle() {
    if (busy) return;
    clearErrors();
    const {payload, errors} = collect();
    if (errors.length) {
      for (const [seat, message, where] of errors) {
        $(`.field-error[data-error="${seat}"]`).textContent = message;
        where.classList.add("invalid");
      }
      return;
    }
    const waiting = hooks.pending();
    if (waiting) {
      $("#general-error").textContent = waiting;
      return;
    }
    busy = true;
    $("#settle").disabled = true;
    try {
      const r = await post(cfg.settleUrl, payload);
      if (r.ok && r.data) {
        preview = {payload, key: newKey(), response: r.data, photo: hooks.photo()};
        showResult(r.data, null);
      } else if (r.data && r.data.error) {
        if (r.status === 401) $("#general-error").textContent =
          "Your sign-in has expired: sign in again in another tab, then press Settle.";
        showError(r.data.error.message, r.data.error.field, payload.seats);
      } else {
        $("#general-error").textContent =
          `The server could not settle this round (HTTP ${r.status}). Your entry is kept: press Settle to try again.`;
      }
    } catch (e) {
      $("#general-error").textContent =
        "The server cannot be reached. Your entry is kept: press Settle to try again.";
    } finally {
      busy = false;
      $("#settle").disabled = false;
    }
  }

  function chipsText(plan) {
    if (!plan.chips.length) return "";
    const parts = plan.chips.map((c) => `${c.count} × ${money(c.denomination)}`);
    if (plan.remainder) parts.push(`${money(plan.remainder)} in change`);
    return parts.join(", ");
  }

  function showResult(data, logged) {
    const s = data.settlement;
    const plans = {};
    for (const p of data.pay_plan) plans[p.seat] = p;
    const dealerBox = $("#result-dealer");
    dealerBox.replaceChildren(el("span", "label", "Dealer"));
    for (const c of s.dealer.cards) dealerBox.append(face(c, "small"));
    if (s.dealer.hand) {
      dealerBox.append(el("span", "hand-name", s.dealer.hand.name));
      dealerBox.append(el("span", s.dealer.qualifies ? "badge ok" : "badge warn",
                          s.dealer.qualifies ? "qualifies" : "does not qualify"));
    }
    if (s.misdeal) dealerBox.append(el("span", "badge warn", "misdeal: every stake returned"));
    let pay = 0;
    let take = 0;
    for (const p of data.pay_plan) { pay += p.pay; take += p.collect; }
    $("#result-totals").textContent =
      `Pay ${money(pay)} · Collect ${money(take)} · Players net ${money(s.total, true)}`;
    // One line with every seat, so nothing to pay is below the fold.
    const strip = $("#result-strip");
    strip.replaceChildren();
    for (const p of data.pay_plan) {
      const pill = el("span", "pill" + (p.flagged ? " flagged" : "") +
                      (p.net > 0 ? " pos" : p.net < 0 ? " neg" : ""));
      pill.dataset.seat = p.seat;
      pill.append(el("strong", "", `S${p.seat} `));
      pill.append(p.pay ? `Pay ${money(p.pay)}` : p.collect ? `Collect ${money(p.collect)}`
                  : "Push");
      if (p.pay && p.collect) pill.append(el("small", "", ` / collect ${money(p.collect)}`));
      strip.append(pill);
    }
    const list = $("#result-seats");
    list.replaceChildren();
    for (const seat of s.seats) {
      const plan = plans[seat.seat];
      const box = el("article", "seat-result" + (plan.flagged ? " flagged" : ""));
      box.dataset.seat = seat.seat;
      box.dataset.testid = "result-seat-" + seat.seat;
      const head = el("header", "seat-result-head");
      head.append(el("strong", "", `Seat ${seat.seat}`));
      const cards = el("span", "cards");
      for (const c of seat.cards) cards.append(face(c, "small"));
      head.append(cards);
      if (seat.hand) head.append(el("span", "hand-name", seat.hand.name));
      if (seat.decision !== "none" && !s.misdeal) head.append(el("span", "badge", seat.decision));
      box.append(head);
      const rows = el("table", "bets");
      for (const bet of seat.bets) {
        const tr = el("tr", "bet " + bet.outcome);
        tr.dataset.bet = bet.bet;
        const name = el("td", "bet-name", BET_LABEL[bet.bet] || bet.bet);
        if (bet.stake) name.append(el("span", "stake-amt", " " + money(bet.stake)));
        tr.append(name);
        tr.append(el("td", "outcome", {win: "WIN", lose: "LOSE", push: "PUSH",
                                       no_action: "—"}[bet.outcome] || bet.outcome));
        tr.append(el("td", "amount", bet.net ? money(bet.net, true) : money(0)));
        tr.append(el("td", "reason", bet.reason));
        rows.append(tr);
      }
      box.append(rows);
      const foot = el("footer", "seat-total");
      if (plan.pay) foot.append(el("span", "pay", `Pay ${money(plan.pay)}`));
      if (plan.collect) foot.append(el("span", "collect", `Collect ${money(plan.collect)}`));
      foot.append(el("span", "net " + (seat.total >= 0 ? "pos" : "neg"),
                     `Net ${money(seat.total, true)}`));
      box.append(foot);
      if (plan.pay) {
        const chips = el("div", "chips-line");
        chips.dataset.testid = "chips-" + seat.seat;
        for (const c of plan.chips) {
          const chip = el("span", "mini-chip chip-" + c.denomination,
                          `${c.count} × ${money(c.denomination)}`);
          chips.append(chip);
        }
        if (plan.remainder) chips.append(el("span", "muted", `+ ${money(plan.remainder)} change`));
        chips.title = chipsText(plan);
        box.append(chips);
      }
      if (plan.flagged) {
        box.append(el("div", "flag",
                      `Over ${money(data.threshold)}: call a supervisor before paying`));
      }
      list.append(box);
    }
    $("#result-error").textContent = "";
    hideApproval();
    $("#result").hidden = false;
    $("#entry").setAttribute("aria-hidden", "true");
    const confirm = $("#confirm");
    confirm.hidden = Boolean(logged);
    confirm.disabled = false;
    $("#result-title").textContent = logged ? `Round ${logged.serial} logged` : "Settlement";
    (logged ? $("#back-to-edit") : confirm).focus();
  }

  function hideResult() {
    $("#result").hidden = true;
    $("#entry").removeAttribute("aria-hidden");
  }

  function startNextRound(logged) {
    lastStakes = currentStakes();
    for (const h of hands) cardsInput(h).value = "";
    for (const k of Object.keys(decisions)) delete decisions[k];
    preview = null;
    hooks.reset();
    $("#misdeal-reason").value = "";
    hideResult();
    clearErrors();
    activeHand = "dealer";
    renderAll();
    const toast = $("#toast");
    toast.textContent = `Round ${logged.serial} logged` + (logged.replayed ? " (already logged)" : "");
    toast.classList.add("show");
    cardsInput("dealer").focus();
  }

  /* A payout over the table's threshold: the server answers 403 approval_required and
   * logs nothing. The supervisor types their name and password here; the same round goes
   * again with the approval and the same Idempotency-Key (so it is logged once). */
  function showApproval(message) {
    const form = $("#approval");
    form.hidden = false;
    $("#approval-why").textContent = message;
    $("#approval-error").textContent = "";
    $("#confirm").hidden = true;
    $("#approval-password").value = "";
    ($("#approval-name").value ? $("#approval-password") : $("#approval-name")).focus();
  }

  function hideApproval() {
    $("#approval").hidden = true;
    $("#approval-password").value = "";
    $("#approval-error").textContent = "";
  }

  async function approveAndLog(ev) {
    ev.preventDefault();
    if (!preview || busy) return;
    const name = $("#approval-name").value.trim();
    const password = $("#approval-password").value;
    if (!name || !password) {
      $("#approval-error").textContent = "The supervisor types their name and password.";
      return;
    }
    busy = true;
    const button = $("#approval-submit");
    button.disabled = true;
    $("#approval-error").textContent = "";
    try {
      const r = await post(cfg.logUrl, {...logBody(), approval: {supervisor: name, password}},
                           {"Idempotency-Key": preview.key});
      $("#approval-password").value = "";
      if (r.ok && r.data) {
        hideApproval();
        startNextRound(r.data);
        return;
      }
      const why = r.data && r.data.error ? r.data.error.message : `HTTP ${r.status}`;
      $("#approval-error").textContent =
        `Not logged: ${why}. The round is kept: try again, or go back to edit.`;
      $("#approval-password").focus();
    } catch (e) {
      $("#approval-error").textContent =
        "Not logged: the server cannot be reached. The round is kept: press Approve and " +
        "log to try again (it is never logged twice).";
    } finally {
      busy = false;
      button.disabled = false;
    }
  }

  /* The round as logged: a scanned round names its photo (kept by the server). */
  function logBody() {
    return preview.photo ? {...preview.payload, photo_sha256: preview.photo} : preview.payload;
  }

  async function confirmAndLog() {
    if (!preview || busy) return;
    busy = true;
    const button = $("#confirm");
    button.disabled = true;
    $("#result-error").textContent = "";
    try {
      const r = await post(cfg.logUrl, logBody(), {"Idempotency-Key": preview.key});
      if (r.ok && r.data) {
        startNextRound(r.data);
        return;
      }
      if (r.status === 403 && r.data && r.data.error
          && r.data.error.code === "approval_required") {
        showApproval(r.data.error.message);
        return;
      }
      if (r.data && r.data.error && r.status >= 400 && r.status < 500 && r.status !== 409
          && r.status !== 401 && r.status !== 429) {
        const sent = preview.payload.seats;
        hideResult();
        preview = null;
        showError(r.data.error.message, r.data.error.field, sent);
        return;
      }
      const why = r.data && r.data.error ? r.data.error.message : `HTTP ${r.status}`;
      $("#result-error").textContent =
        `Not logged: ${why}. Your round is kept: press Confirm and log to try again ` +
        "(it is never logged twice).";
    } catch (e) {
      $("#result-error").textContent =
        "Not logged: the server cannot be reached. Your round is kept: press Confirm and " +
        "log to try again (it is never logged twice).";
    } finally {
      busy = false;
      button.disabled = false;
    }
  }

  /* ---- misdeal (RULES.md §7): every stake returned, logged like any round ----------- */

  function misdealPayload(reason) {
    const seats = [];
    for (let n = 1; n <= SEATS; n++) {
      const stakes = {};
      for (const k of STAKES) stakes[k] = parseAmount(stakeInput(n, k).value) || 0;
      const cards = tokens(cardsInput(String(n)).value);
      if (!STAKES.some((k) => stakes[k] > 0)) continue;
      seats.push({seat: n, cards, play: decisions[n] === "play", ...stakes});
    }
    return {dealer: tokens(cardsInput("dealer").value), seats, misdeal: true,
            misdeal_reason: reason};
  }

  function openMisdeal() {
    if (busy || !$("#result").hidden) return;
    clearErrors();
    const seats = misdealPayload("").seats.map((s) => s.seat);
    $("#misdeal-seats").textContent = seats.length ? seats.join(", ") : "none";
    $("#misdeal-error").textContent = seats.length ? "" :
      "Enter the stakes of the seats in the round first: they are what is returned.";
    $("#misdeal-go").disabled = !seats.length;
    $("#misdeal-dialog").hidden = false;
    $("#entry").setAttribute("aria-hidden", "true");
    $("#misdeal-reason").focus();
  }

  function closeMisdeal() {
    $("#misdeal-dialog").hidden = true;
    $("#entry").removeAttribute("aria-hidden");
  }

  async function settleMisdeal() {
    if (busy) return;
    const reason = $("#misdeal-reason").value.trim();
    if (!reason) {
      $("#misdeal-error").textContent = "Give the reason for the misdeal.";
      $("#misdeal-reason").focus();
      return;
    }
    const payload = misdealPayload(reason);
    busy = true;
    $("#misdeal-go").disabled = true;
    try {
      const r = await post(cfg.settleUrl, payload);
      if (r.ok && r.data) {
        closeMisdeal();
        preview = {payload, key: newKey(), response: r.data, photo: hooks.photo()};
        showResult(r.data, null);
        $("#result-title").textContent = "Misdeal: every stake returned";
      } else {
        const why = r.data && r.data.error ? r.data.error.message : `HTTP ${r.status}`;
        $("#misdeal-error").textContent = `Not settled: ${why}.`;
      }
    } catch (e) {
      $("#misdeal-error").textContent =
        "The server cannot be reached. Your entry is kept: try again.";
    } finally {
      busy = false;
      $("#misdeal-go").disabled = false;
    }
  }

  $("#misdeal").addEventListener("click", openMisdeal);
  $("#misdeal-cancel").addEventListener("click", closeMisdeal);
  $("#misdeal-go").addEventListener("click", settleMisdeal);
  $("#misdeal-reason").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { ev.preventDefault(); settleMisdeal(); }
  });
  for (const b of $$("[data-reason]")) {
    b.addEventListener("click", () => {
      $("#misdeal-reason").value = b.dataset.reason;
      $("#misdeal-error").textContent = "";
      $("#misdeal-go").focus();
    });
  }
  $("#approval").addEventListener("submit", approveAndLog);

  $("#settle").addEventListener("click", settle);
  $("#confirm").addEventListener("click", confirmAndLog);
  $("#back-to-edit").addEventListener("click", () => {
    hideResult();
    cardsInput(activeHand).focus();
  });

  document.addEventListener("keydown", (ev) => {
    if (hooks.open()) return;
    if (!$("#misdeal-dialog").hidden) {
      if (ev.key === "Escape") {
        ev.preventDefault();
        closeMisdeal();
        cardsInput(activeHand).focus();
      }
      return;
    }
    if (!$("#result").hidden) {
      if (ev.key === "Escape") {
        ev.preventDefault();
        hideResult();
        cardsInput(activeHand).focus();
      }
      return;
    }
    if (ev.key === "Enter" && ev.ctrlKey) {
      ev.preventDefault();
      settle();
    }
  });

  /* ---- start ------------------------------------------------------------------------ */

  applyStakes(lastStakes);
  renderAll();
  if (lastStakes.length) cardsInput("dealer").focus();
  else stakeInput(1, "ante").focus();
  window.dealerScreen = {
    collect, lane: () => lane().map((n) => n.id || n.dataset.seat), hooks, cardsInput, handCards,
    parseCard, renderAll, invalidatePreview, seatHasStake,
    focusHand: (hand) => { setActiveHand(hand); cardsInput(hand).focus(); }};
})();
