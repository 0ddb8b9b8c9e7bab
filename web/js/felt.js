// The betting felt: the table's betting spots (from the `play` block the server sends: its bet
// types, limits, seats, modes and reservations; the page knows no rule of its own), chips that fit
// the table's limits, undo / clear / rebet, the total at stake and what it reserves before it is
// placed, a countdown on the felt, each bet's outcome on its spot; and the roads as the grids
// players read (Baccarat's bead plate, big road and derived roads; Pok Deng's hands), from the
// server's roads.
import { h, money, signed, timer } from "./dom.js";
import { number, t, term } from "./i18n.js";

const NICE = [1, 5];
const cls = (...names) => names.filter(Boolean).join(" ");
const MAX_CHIPS = 6;

// Chip denominations for the table's limits: the smallest minimum of its bets, then the 1-5
// values above it (500, 1,000, 5,000...) up to the largest maximum, at most six.
export function chipValues(betTypes) {
  if (!betTypes.length) return [];
  const low = Math.max(1, Math.min(...betTypes.map((b) => b.min)));
  const high = Math.max(...betTypes.map((b) => b.max));
  const values = [low];
  for (let scale = 1; scale <= high && values.length < MAX_CHIPS; scale *= 10) {
    for (const n of NICE) if (n * scale > low && n * scale <= high && values.length < MAX_CHIPS) values.push(n * scale);
  }
  return values;
}

// A spot's key: its bet type, its seat (blackjack), its mode (Baccarat's Banker).
const keyOf = (bet) => [bet.type, bet.seat ?? "", bet.mode ?? ""].join("|");

// The spots of the table, in the server's order, grouped as the felt lays them out: a blackjack
// table by seat (every bet type offered on a seat, for each seat), any other table by the number
// a bet type carries (Pok Deng's hand and its pair together), the rest one group each.
function groupsOf(play, seatOrder) {
  if (play.kind === "blackjack") {
    return seatOrder.map((seat) => ({ seat, spots: play.bet_types.filter((b) => b.seat).map((b) => ({ type: b.type, seat })) }));
  }
  const groups = [];
  const numbered = new Map();
  for (const b of play.bet_types) {
    const n = /-(\d+)(?:-|$)/.exec(b.type)?.[1];
    if (n && numbered.has(n)) { numbered.get(n).spots.push({ type: b.type }); continue; }
    const group = { spots: [{ type: b.type }] };
    if (n) numbered.set(n, group);
    groups.push(group);
  }
  return groups;
}

// The betting felt of a table. `ctx`: play (the server's), view() (the round), mySeats(),
// myBets(), sending() (a bet in flight), place(bets) (sends them; its Idempotency-Key is the
// caller's).
export function bettingFelt(ctx) {
  const { play } = ctx;
  const typeOf = (kind) => play.bet_types.find((b) => b.type === kind);
  const chips = chipValues(play.bet_types);
  let chip = chips[0] ?? 0;
  const modeOf = Object.fromEntries(play.bet_types.filter((b) => b.modes?.length).map((b) => [b.type, b.modes[0]]));
  const stakes = new Map();  // key -> bet wanted (not placed yet)
  let history = [];          // each stake added, in order (undo takes the last back)
  const placedByRound = new Map();  // round id -> the bets placed in it (rebet: the last round's)
  let pending = null;        // bets waiting for their confirmation (a reservation shown first)

  const countdown = h("div", { class: "countdown", "aria-live": "off" });
  const closed = h("p", { class: "closed muted" }, t("form.closed"));
  const summary = h("p", { class: "at-stake", role: "status" });
  const refusal = h("p", { class: "refusal", role: "alert" });
  const confirm = h("div", { class: "confirm", hidden: true });
  const place = h("button", { type: "submit", class: "place" }, t("form.place"));
  const undo = h("button", { type: "button", class: "ghost undo", onclick: () => { const last = history.pop(); if (last) unstake(last); draw(); } }, t("felt.undo"));
  const clear = h("button", { type: "button", class: "ghost clear", onclick: () => { stakes.clear(); history = []; pending = null; draw(); } }, t("felt.clear"));
  const rebet = h("button", { type: "button", class: "ghost rebet", onclick: () => rebetLast() }, t("felt.rebet"));
  const confirmButton = h("button", { type: "button", class: "confirm-bet", onclick: () => pending && ctx.place(pending) }, t("form.confirm"));

  const chipButtons = chips.map((value) => h("button", {
    type: "button", class: "chip", dataset: { chip: String(value) }, "aria-label": t("felt.chip", { amount: money(value) }),
    onclick: () => { chip = value; draw(); } }, money(value)));

  function unstake({ key, amount }) {
    const bet = stakes.get(key);
    if (!bet) return;
    bet.amount -= amount;
    if (bet.amount <= 0) stakes.delete(key);
  }

  function stake(spot) {
    if (!chip) return;
    const bet = { type: spot.type };
    if (spot.seat) bet.seat = spot.seat;
    if (modeOf[spot.type]) bet.mode = modeOf[spot.type];
    const key = keyOf(bet);
    const wanted = stakes.get(key) || { ...bet, amount: 0 };
    wanted.amount += chip;
    stakes.set(key, wanted);
    history.push({ key, amount: chip });
    pending = null;
    refusal.textContent = "";
    draw();
  }

  function lastRound() {
    const current = ctx.view()?.round_id;
    const ids = [...placedByRound.keys()].filter((id) => id !== current);
    return ids.length ? placedByRound.get(ids[ids.length - 1]) : null;
  }

  function rebetLast() {
    const last = lastRound();
    if (!last) return;
    stakes.clear();
    history = [];
    for (const bet of last) {
      const wanted = { type: bet.type, amount: bet.amount };
      if (bet.seat) wanted.seat = bet.seat;
      if (bet.mode) wanted.mode = bet.mode;
      const key = keyOf(wanted);
      const sum = stakes.get(key);
      if (sum) sum.amount += bet.amount; else stakes.set(key, wanted);
      history.push({ key, amount: bet.amount });
    }
    pending = null;
    draw();
  }

  const wanted = () => [...stakes.values()].map((b) => ({ ...b }));
  const reservedOf = (list) => list.reduce((sum, b) => sum + b.amount * (typeOf(b.type)?.reserves ?? 1), 0);

  const submit = (event) => {
    event.preventDefault();
    refusal.textContent = "";
    const list = wanted();
    if (!list.length) { refusal.textContent = t("felt.nothing"); return; }
    if (list.some((b) => (typeOf(b.type)?.reserves ?? 1) > 1)) { pending = list; draw(); return; }  // shown before it is placed
    ctx.place(list);
  };

  // the spots, built once (a keyboard's focus stays on its button); draw() updates them
  const spotEls = new Map();  // key of type|seat -> { button, spot }
  const board = h("div", { class: `spots ${play.kind}`, role: "group", "aria-label": t("felt.spots") });
  let seatsShown = "";

  function buildSpots() {
    const mine = [...ctx.mySeats()].sort((a, b) => a - b);
    const order = [...mine, ...Array.from({ length: play.seats || 0 }, (_, i) => i + 1).filter((n) => !mine.includes(n))];
    if (order.join() === seatsShown && spotEls.size) return;
    seatsShown = order.join();
    spotEls.clear();
    board.replaceChildren(...groupsOf(play, order).map((group) => h("div", {
      class: cls("spot-group", group.seat && mine.includes(group.seat) && "mine"), dataset: group.seat ? { seat: group.seat } : {} },
    group.seat ? h("div", { class: "seat-name" }, t(mine.includes(group.seat) ? "felt.seat-yours" : "felt.seat", { n: group.seat })) : null,
    group.spots.map((spot) => {
      const type = typeOf(spot.type);
      const button = h("button", { type: "button", class: `spot ${spot.type}`, dataset: { spot: spot.type, ...(spot.seat ? { seat: spot.seat } : {}) },
        onclick: () => stake(spot) });
      const modes = type.modes?.length ? h("div", { class: "modes", role: "group", "aria-label": t("form.mode") },
        type.modes.map((mode) => h("button", { type: "button", class: "mode", dataset: { mode },
          onclick: () => { modeOf[spot.type] = mode; draw(); } }, term("mode", mode)))) : null;
      spotEls.set(`${spot.type}|${spot.seat ?? ""}`, { button, spot, modes });
      return h("div", { class: "spot-box" }, button, modes);
    }))));
  }

  function drawSpot({ button, spot, modes }, view, open, busy) {
    const type = typeOf(spot.type);
    const staked = [...stakes.values()].filter((b) => b.type === spot.type && (b.seat ?? "") === (spot.seat ?? ""))
      .reduce((sum, b) => sum + b.amount, 0);
    const placed = ctx.myBets().filter((b) => b.type === spot.type && (b.seat ?? null) === (spot.seat ?? null));
    const amount = placed.reduce((sum, b) => sum + b.amount, 0);
    const results = placed.filter((b) => b.result);
    const net = results.reduce((sum, b) => sum + (b.result.net ?? 0), 0);
    const outcome = results.length ? results[results.length - 1].result.outcome : null;
    const won = view?.result?.winner === spot.type || results.some((b) => b.result.outcome === "win" || b.result.outcome === "blackjack");
    const name = term("bet", spot.type);
    const limits = t("felt.limits", { min: money(type.min), max: money(type.max) });
    // the button's accessible name is its own text (what is seen, in order), with the words a
    // screen reader needs and the eye does not (the seat, what a spot reserves) as hidden text
    const hidden = (text) => h("span", { class: "sr-only" }, text);
    button.removeAttribute("aria-label");
    button.disabled = !open || busy;
    button.classList.toggle("won", Boolean(won));
    button.classList.toggle("staked", staked > 0);
    button.classList.toggle("placed", amount > 0);
    button.replaceChildren(...[
      spot.seat ? hidden(`${t("form.seat-n", { n: spot.seat })}: `) : null,
      h("span", { class: "spot-name" }, name),
      hidden(", "),
      h("span", { class: "spot-limits" }, limits),
      type.reserves > 1 ? hidden(`, ${t("felt.spot-reserves", { n: type.reserves })}`) : null,
      // an amount is read once: in the words that say what it is (hidden), not again as its figure
      ...(staked ? [hidden(`, ${t("felt.staking", { amount: money(staked) })}`),
        h("span", { class: "stake", "aria-hidden": "true", dataset: { amount: String(staked) } }, money(staked))] : []),
      ...(amount ? [hidden(`, ${t("felt.placed", { amount: money(amount) })}`),
        h("span", { class: "placed-amount", "aria-hidden": "true", dataset: { amount: String(amount) } }, money(amount))] : []),
      outcome ? hidden(", ") : null,
      outcome ? h("span", { class: `outcome ${outcome}`, dataset: { outcome } }, `${term("outcome", outcome)} ${signed(net)}`) : null,
    ].filter((child) => child !== null));  // the DOM's replaceChildren writes a null as the text "null"
    if (modes) {
      for (const el of modes.children) {
        el.setAttribute("aria-pressed", String(el.dataset.mode === modeOf[spot.type]));
        el.disabled = !open || busy;
      }
    }
  }

  function draw() {
    const view = ctx.view();
    const busy = ctx.sending();
    // betting closes a moment before the countdown the dealer deals from (the server says when)
    const betsUntil = view ? view.bets_until ?? view.closes_at : 0;
    const open = Boolean(view && view.status === "betting" && betsUntil > Date.now());
    buildSpots();
    for (const el of spotEls.values()) drawSpot(el, view, open, busy);
    for (const b of chipButtons) {
      const on = Number(b.dataset.chip) === chip;
      b.setAttribute("aria-pressed", String(on));
      b.classList.toggle("selected", on);
      b.disabled = !open || busy;
    }
    const list = wanted();
    const total = list.reduce((sum, b) => sum + b.amount, 0);
    const reserved = reservedOf(list);
    summary.replaceChildren(total ? t("felt.total", { amount: money(total) }) : t("felt.pick-chip"),
      total && reserved !== total ? ` · ${t("felt.reserves-total", { amount: money(reserved) })}` : "");
    summary.dataset.total = String(total);
    summary.dataset.reserved = String(reserved);
    undo.disabled = !history.length || busy;
    clear.disabled = !stakes.size || busy;
    rebet.disabled = !open || busy || !lastRound();
    place.disabled = !open || busy;
    confirmButton.disabled = !open || busy;
    place.toggleAttribute("aria-busy", busy);
    closed.hidden = open;
    const until = open ? String(betsUntil) : "";
    if (countdown.dataset.shown !== until) {
      countdown.dataset.shown = until;
      countdown.replaceChildren(h("span", { class: "countdown-label" }, open ? t("felt.countdown") : ""), open ? timer(betsUntil) || "" : "");
    }
    countdown.hidden = !open;
    confirm.hidden = !pending;
    if (pending) {
      confirm.replaceChildren(
        ...pending.filter((b) => (typeOf(b.type)?.reserves ?? 1) > 1).map((b) => h("p", {}, t("form.reserves", {
          bet: term("bet", b.type), amount: money(b.amount), reserved: money(b.amount * typeOf(b.type).reserves), n: typeOf(b.type).reserves }))),
        confirmButton, " ",
        h("button", { type: "button", class: "ghost", onclick: () => { pending = null; draw(); } }, t("form.cancel")));
    } else confirm.replaceChildren();
  }

  const notes = play.mirror_seat_bets ? [h("p", { class: "muted" }, t("form.mirrors"))] : [];
  const panel = h("form", { class: "bet-form felt-board", onsubmit: submit },
    countdown, closed, board,
    h("div", { class: "chips", role: "group", "aria-label": t("felt.chips") }, chipButtons),
    summary,
    h("div", { class: "buttons" }, place, undo, clear, rebet),
    confirm, notes, refusal);

  return {
    panel, refusal, draw,
    // the bets the server accepted: off the stakes, on their spots, remembered for the next rebet
    accepted(bets) {
      const id = ctx.view()?.round_id;
      if (id) placedByRound.set(id, [...(placedByRound.get(id) || []), ...bets]);
      while (placedByRound.size > 2) placedByRound.delete(placedByRound.keys().next().value);
      stakes.clear();
      history = [];
      pending = null;
      draw();
    },
  };
}

// --- roads ----------------------------------------------------------------------------------

// A grid of `rows` rows: each mark at its drawn (column, row), at least `min` columns wide.
function grid(name, rows, columns, marks, min = 12) {
  return h("div", { class: `grid ${name}`, style: `--rows:${rows};--columns:${Math.max(min, columns)}` }, marks);
}

function cell(entry, kind, text, label) {
  return h("span", { class: `mark ${kind}`, role: "img", title: label, "aria-label": label,
    style: `grid-column:${entry.column + 1};grid-row:${entry.row + 1}` }, text);
}

const ROADS = [["big_eye_boy", "road.big-eye-boy"], ["small_road", "road.small-road"], ["cockroach_pig", "road.cockroach-pig"]];

// A shoe's roads, as the server computes them (croupier.roads), as the grids players read.
export function roadGrids(kind, roads) {
  if (!roads) return null;
  if (kind === "baccarat") {
    const rows = roads.bead_plate?.rows || 6;
    const stats = roads.statistics || {};
    const bead = (roads.bead_plate?.entries || []).map((e) => cell(e, cls(`bead-${e.winner}`, e.player_pair && "pp", e.banker_pair && "bp"),
      t(`road.letter-${e.winner}`), t("road.bead", { round: number(e.round), winner: term("hand", e.winner) })));
    const big = (roads.big_road?.entries || []).map((e) => cell(e, cls(`ring-${e.winner}`, e.player_pair && "pp", e.banker_pair && "bp"),
      e.ties ? number(e.ties) : "", t(e.ties ? "road.big-ties" : "road.bead", { round: number(e.round), winner: term("hand", e.winner), ties: number(e.ties) })));
    return h("div", { class: "roads" },
      h("h4", {}, t("road.bead-plate")), grid("bead-plate", rows, roads.bead_plate?.columns || 0, bead, 8),
      h("h4", {}, t("road.big-road")), grid("big-road", rows, roads.big_road?.columns || 0, big),
      h("div", { class: "derived" }, ROADS.map(([field, key]) => h("div", {},
        h("h4", {}, t(key)), grid(`derived-${field}`, roads[field]?.rows || 6, roads[field]?.columns || 0,
          (roads[field]?.entries || []).map((e) => cell(e, `dot-${e.colour}`, "",
            t("road.mark", { round: number(e.round), colour: t(`road.colour-${e.colour}`) }))), 8)))),
      h("p", { class: "muted" }, t("road.stats", { banker: number(stats.banker ?? 0), player: number(stats.player ?? 0),
        tie: number(stats.tie ?? 0) })));
  }
  // Pok Deng: each hand's history against the Banker, round by round (the server's roadmap)
  const entries = (roads.entries || []).slice(-16);
  const hands = Object.keys(entries[0] || {}).filter((k) => /^hand-\d+$/.test(k));
  return h("div", { class: "roads" }, h("h4", {}, t("road.hand-history")),
    h("p", { class: "muted" }, t("road.rounds", { n: number(roads.rounds ?? 0) })),
    entries.length ? h("div", { class: "hand-rows" }, hands.map((k) => h("div", { class: "hand-row", dataset: { hand: k } },
      h("span", { class: "hand-label" }, term("hand", k)),
      h("div", { class: "grid hand-history", style: `--rows:1;--columns:${Math.max(8, entries.length)}` },
        entries.map((e, i) => h("span", { class: `mark res-${e[k]?.result || "none"}${e[k]?.double ? " double" : ""}`, role: "img",
          style: `grid-column:${i + 1};grid-row:1`,
          "aria-label": t("road.hand-result", { round: number(e.round), hand: term("hand", k), result: term("outcome", e[k]?.result) }),
          title: e[k]?.reason || term("outcome", e[k]?.result) }, e[k]?.result ? t(`road.letter-${e[k].result}`) : "–")))))) : null);
}
