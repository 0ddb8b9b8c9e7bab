// The player's table: the round as it happens, betting with the table's bet types and limits,
// blackjack decisions (exactly the prompt's legal actions, with its timer), insurance and follow
// windows, the balance and the bet record.
import { api, ApiError, Live, session } from "./api.js";
import { h, label, money, signed, timer, toast } from "./dom.js";
import { gameName, road } from "./lobby.js";
import { felt, RoundState } from "./round.js";

const BLACKJACK = ["deluxe-blackjack", "blackjack"];

export async function playerTable(root, tableId) {
  const me = session().subject;
  const path = `/tables/${encodeURIComponent(tableId)}`;
  let table = await api("GET", path);
  const bets = new Map();       // my bets in the current round, by id
  let wallet = null;
  let record = null;
  const round = new RoundState(() => draw());
  const parts = { head: h("div"), felt: h("div"), prompt: h("div", { class: "prompt" }), bet: h("div"),
                  mine: h("div"), seats: h("div"), wallet: h("div"), record: h("div"), roads: h("div") };
  root.replaceChildren(h("section", { class: "player" },
    parts.head,
    h("div", { class: "layout" },
      h("div", { class: "main" }, parts.felt, parts.prompt, parts.mine, parts.bet),
      h("aside", {}, parts.wallet, parts.seats, parts.roads, parts.record))));

  const blackjack = BLACKJACK.includes(table.game);
  const mySeats = () => new Set(Object.entries(table.seats || {}).filter(([, s]) => s.yours).map(([n]) => Number(n)));
  const myBets = () => [...bets.values()];

  const refreshMoney = async () => {
    try {
      // the table's wallet: Croupier's own, or the operator's (a seamless table)
      [wallet, record] = await Promise.all([api("GET", `/tables/${encodeURIComponent(table.table_id)}/wallets/${encodeURIComponent(me)}`),
        api("GET", `/players/${encodeURIComponent(me)}/bets?limit=8`)]);
    } catch (err) { toast(err.message, "error"); }
    drawMoney();
  };

  function draw() {
    const view = round.view;
    parts.head.replaceChildren(h("header", { class: "table-head" },
      h("h1", {}, table.name || table.table_id, h("span", { class: "game" }, gameName(table.game))),
      view ? h("p", { class: "status" }, h("span", { class: `badge ${view.status}` }, label(view.status)),
        view.status === "betting" && view.closes_at ? timer(view.closes_at) : null,
        ` round ${view.round_in_shoe ?? ""} of the shoe`, view.last_round ? h("span", { class: "tag" }, "last round") : null,
        view.paused ? h("span", { class: "tag warn" }, `paused: ${view.pause_reason || ""}`) : null)
        : h("p", { class: "muted" }, "Waiting for the dealer to open a round.")));
    parts.felt.replaceChildren(felt(view, { mine: mySeats() }));
    drawPrompt();
    drawBets();
    drawBetForm();
    drawSeats();
    parts.roads.replaceChildren(table.roads ? h("div", { class: "panel" }, h("h3", {}, "Roads"), road(table.game, table.roads)) : "");
  }

  // --- decisions and windows ----------------------------------------------------------------
  const decide = async (body) => {
    try {
      await api("POST", `/rounds/${encodeURIComponent(round.id)}/decisions`, body, { idempotent: true });
      toast(`${label(body.action)}: sent`);
      refreshMoney();
    } catch (err) { toast(err.message, "error"); }
  };

  function drawPrompt() {
    const wait = round.expected();
    const view = round.view;
    parts.prompt.replaceChildren();
    if (!wait || !view) return;
    const seats = mySeats();
    const seatBets = myBets().filter((b) => b.type === "seat").map((b) => b.seat);
    const behind = myBets().filter((b) => b.type === "behind").map((b) => b.seat);
    if (wait.kind === "decision") {
      const yours = seats.has(wait.seat) || seatBets.includes(wait.seat);
      const hand = wait.seat_hand ?? wait.hand ?? 0;
      const legal = (wait.legal || []).filter((a) => a !== "timeout");  // the timer's own action, not a player's
      parts.prompt.append(h("div", { class: `panel ask${yours ? " yours" : ""}` },
        h("p", {}, yours ? `Your decision, seat ${wait.seat}${hand ? ` hand ${hand + 1}` : ""}` : `Seat ${wait.seat} decides`,
          " ", timer(wait.deadline)),
        yours ? h("div", { class: "buttons" }, legal.map((action) => h("button", {
          class: "action", dataset: { action }, onclick: () => decide({ seat: wait.seat, action, hand }) }, label(action))))
          : null));
    } else if (wait.kind === "insurance") {
      const mine = [...seatBets.map((seat) => ({ seat, action: "insurance" })),
                    ...behind.map((seat) => ({ seat, action: "insurance", behind: true }))];
      parts.prompt.append(h("div", { class: "panel ask" }, h("p", {}, "Insurance is open (the dealer shows an ace) ",
        timer(wait.deadline)), mine.length ? h("div", { class: "buttons" }, mine.map((body) => h("button", {
        class: "action", dataset: { action: "insurance" }, onclick: () => decide(body) },
      `Insure seat ${body.seat}${body.behind ? " (behind)" : ""}`))) : null));
    } else if (wait.kind === "follow") {
      const mine = behind.includes(wait.seat);
      const action = `follow-${wait.what}`;
      parts.prompt.append(h("div", { class: "panel ask" }, h("p", {}, `Seat ${wait.seat} chose to ${wait.what} `,
        timer(wait.deadline)), mine ? h("div", { class: "buttons" }, h("button", {
        class: "action", dataset: { action },
        onclick: () => decide({ seat: wait.seat, action, behind: true, hand: wait.seat_hand ?? 0 }) },
      `Follow the ${wait.what}`)) : null));
    } else if (wait.kind === "card") {
      parts.prompt.append(h("p", { class: "muted" }, `Dealing: next card to ${label(wait.hand)}`));
    } else if (wait.kind === "settle") {
      parts.prompt.append(h("p", { class: "muted" }, "Settling…"));
    }
  }

  // --- my bets in this round ------------------------------------------------------------------
  function drawBets() {
    const list = myBets();
    parts.mine.replaceChildren(list.length ? h("div", { class: "panel" }, h("h3", {}, "Your bets this round"),
      h("table", { class: "bets" }, list.map((b) => h("tr", { dataset: { bet: b.bet_id } },
        h("td", {}, b.type === "seat" ? "" : label(b.type), b.seat ? ` seat ${b.seat}` : "", b.mode ? ` (${b.mode})` : ""),
        h("td", { class: "num" }, money(b.amount)),
        h("td", { class: "num muted" }, b.taken !== undefined && b.taken !== b.amount ? `reserved ${money(b.taken)}` : ""),
        h("td", { class: `outcome ${b.result?.outcome || ""}` }, b.result ? `${label(b.result.outcome)} ${signed(b.result.net)}`
          + (b.result.reason ? ` (${b.result.reason})` : "") : label(b.status || "open")))))) : "");
  }

  // --- placing bets ---------------------------------------------------------------------------
  let pending = null;  // a Pok Deng bet waiting for its confirmation (the reservation shown first)

  const place = async (wanted) => {
    try {
      const answer = await api("POST", `${path}/bets`, { bets: wanted }, { idempotent: true });
      for (const bet of answer.bets) bets.set(bet.bet_id, { ...bets.get(bet.bet_id), ...bet, status: "open" });
      toast(`Bet accepted: ${answer.bets.map((b) => `${label(b.type)}${b.seat ? ` ${b.seat}` : ""} ${money(b.amount)}`).join(", ")}`);
      pending = null;
      form.showConfirm();
      draw();
      refreshMoney();
    } catch (err) {
      form.refusal.textContent = err instanceof ApiError ? err.message : String(err);
      toast(err.message, "error");
    }
  };

  // The form is built once (what the player typed survives the pushes); draw() updates its state.
  const seatCount = () => (table.free_seats?.length || 0) + Object.keys(table.seats || {}).length || 7;
  const form = (() => {
    const types = Object.keys(table.limits || {});
    const amount = h("input", { type: "number", name: "amount", min: 1, step: 1, value: 1000, "aria-label": "amount" });
    const type = h("select", { name: "type", "aria-label": "bet type" }, types.map((t) => h("option", { value: t },
      `${label(t)} (${money(table.limits[t].min)}–${money(table.limits[t].max)})`)));
    const seat = h("select", { name: "seat", "aria-label": "seat" });
    const modes = table.rules?.modes || ["commission", "no-commission"];
    const mode = h("select", { name: "mode", "aria-label": "banker mode" }, modes.map((m) => h("option", { value: m }, label(m))));
    const button = h("button", { type: "submit" }, "Place bet");
    const closed = h("p", { class: "muted" }, "Betting is closed: bets open with the next round.");
    const refusal = h("p", { class: "refusal", role: "alert" });
    const confirm = h("div", { class: "confirm", hidden: true });
    const reservation = table.rules?.reservation ?? 2;  // the table's rule: 2 unless the table overrides it
    const wanted = () => {
      const bet = { type: type.value, amount: Number(amount.value) };
      if (blackjack) bet.seat = Number(seat.value);
      if (table.game === "baccarat" && type.value === "banker") bet.mode = mode.value;
      return bet;
    };
    const showConfirm = () => {
      confirm.hidden = !pending;
      if (!pending) { confirm.replaceChildren(); return; }
      confirm.replaceChildren(
        h("p", {}, `${label(pending.type)} ${money(pending.amount)} reserves ${money(pending.amount * reservation)} of your `,
          `balance (${reservation} × the stake, for a Banker win that takes double); what is not lost comes back at settlement.`),
        h("button", { onclick: () => place([pending]) }, "Confirm"), " ",
        h("button", { class: "ghost", onclick: () => { pending = null; showConfirm(); } }, "Cancel"));
    };
    const submit = (event) => {
      event.preventDefault();
      refusal.textContent = "";
      const bet = wanted();
      if (table.game === "pok-deng" && /^player-\d$/.test(bet.type)) { pending = bet; showConfirm(); return; }
      place([bet]);
    };
    const syncFields = () => {
      seat.hidden = !blackjack;
      mode.hidden = !(table.game === "baccarat" && type.value === "banker");
    };
    type.addEventListener("change", syncFields);
    syncFields();
    const notes = [];
    if (table.rules?.mirror_seat_bets ?? table.game === "deluxe-blackjack") {
      notes.push("This table mirrors seat bets: adding to one of your seats raises your other seat to the same total.");
    }
    const panel = h("div", { class: "panel" }, h("h3", {}, "Bet"), closed,
      h("form", { class: "bet-form", onsubmit: submit }, type, seat, mode, amount, button), confirm,
      notes.map((n) => h("p", { class: "muted" }, n)), refusal);
    parts.bet.replaceChildren(panel);
    let seatsShown = "";
    return {
      refusal, showConfirm,
      update() {
        const view = round.view;
        const open = Boolean(view && view.status === "betting" && view.closes_at > Date.now());
        button.disabled = !open;
        closed.hidden = open;
        const mine = [...mySeats()].sort((a, b) => a - b);
        const order = [...mine, ...Array.from({ length: seatCount() }, (_, i) => i + 1).filter((n) => !mine.includes(n))];
        if (order.join() !== seatsShown) {
          seatsShown = order.join();
          seat.replaceChildren(...order.map((n) => h("option", { value: n }, `seat ${n}${mine.includes(n) ? " (yours)" : ""}`)));
        }
      },
    };
  })();
  // betting closes by the clock: the button follows the countdown
  const closer = setInterval(() => form.update(), 500);

  function drawBetForm() { form.update(); }

  // --- seats (blackjack) ----------------------------------------------------------------------
  const seatAction = async (method, number) => {
    try {
      table = await api(method, `${path}/seats/${number}`);
      draw();
    } catch (err) { toast(err.message, "error"); }
  };

  function drawSeats() {
    if (!blackjack) { parts.seats.replaceChildren(); return; }
    const count = seatCount();
    parts.seats.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Seats"), h("div", { class: "seat-grid" },
      Array.from({ length: count }, (_, i) => i + 1).map((n) => {
        const seat = table.seats?.[n];
        if (seat?.yours) return h("button", { class: "seat-button yours", dataset: { seat: n }, onclick: () => seatAction("DELETE", n) }, `${n}: yours (leave)`);
        if (seat) return h("button", { class: "seat-button", disabled: true }, `${n}: taken`);
        return h("button", { class: "seat-button free", dataset: { seat: n }, onclick: () => seatAction("PUT", n) }, `${n}: sit`);
      }))));
  }

  // --- wallet and record ------------------------------------------------------------------------
  function drawMoney() {
    parts.wallet.replaceChildren(h("div", { class: "panel" },
      h("h3", {}, wallet?.mode === "seamless" ? `Balance at ${wallet.operator}` : "Balance"),
      h("p", { class: "balance", id: "balance" }, wallet ? money(wallet.balance) : "–")));
    const rows = (record?.bets || []).map((b) => h("tr", {}, h("td", {}, label(b.type), b.seat ? ` ${b.seat}` : ""),
      h("td", { class: "num" }, money(b.amount)),
      h("td", { class: `outcome ${b.result?.outcome || ""}` }, b.result ? signed(b.result.net) : label(b.status),
        b.result?.reason ? h("small", { class: "muted" }, ` ${b.result.reason}`) : null),
      h("td", { class: "num muted" }, b.balance_after !== undefined ? money(b.balance_after) : "")));
    parts.record.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Bet record"),
      rows.length ? h("table", { class: "bets record" }, h("tr", {}, h("th", {}, "bet"), h("th", {}, "amount"),
        h("th", {}, "net"), h("th", {}, "balance")), rows) : h("p", { class: "muted" }, "No bets yet.")));
  }

  // --- the push -----------------------------------------------------------------------------
  const onEvent = (event) => {
    if (event.table_id !== tableId) return;
    if (event.type === "round-opened" && event.round_id !== round.id) bets.clear();
    if ((event.type === "bet-placed" || event.type === "bet-settled") && event.round_id === (round.id || event.round_id)) {
      bets.set(event.bet.bet_id, { ...bets.get(event.bet.bet_id), ...event.bet });
      if (event.type === "bet-settled") refreshMoney();
    }
    if (event.type === "roads-updated") table.roads = event.roads;
    if (["seats-changed", "shoe-ready", "round-settled", "round-refunded"].includes(event.type)) {
      api("GET", path).then((t) => { table = t; draw(); }).catch(() => {});
    }
    if (event.type === "round-refunded") refreshMoney();
    round.push(event);
    draw();
  };
  const onSnapshot = (snapshot) => {
    table = snapshot.table;
    if (snapshot.round) {
      if (snapshot.round.round_id !== round.id) bets.clear();
      for (const bet of snapshot.round.bets || []) bets.set(bet.bet_id, bet);
      round.setView(snapshot.round);
    }
    draw();
  };
  const live = new Live([tableId], { onEvent, onSnapshot });
  draw();
  refreshMoney();
  return () => { live.close(); clearInterval(closer); };
}
