// The player's table: the round as it happens, betting with the table's bet types and limits,
// blackjack decisions (exactly the prompt's legal actions, with its timer), insurance and follow
// windows, the balance and the bet record.
import { api, ApiError, Intents, Live, session } from "./api.js";
import { h, label, money, signed, timer, toast } from "./dom.js";
import { gameName, road } from "./lobby.js";
import { felt, RoundState } from "./round.js";

export async function playerTable(root, tableId) {
  const me = session().subject;
  const path = `/tables/${encodeURIComponent(tableId)}`;
  let table = await api("GET", path);
  const bets = new Map();       // my bets in the current round, by id
  let wallet = null;
  let record = null;
  const round = new RoundState(() => draw(), table.play);
  const parts = { head: h("div"), felt: h("div"), prompt: h("div", { class: "prompt" }), bet: h("div"),
                  mine: h("div"), seats: h("div"), wallet: h("div"), record: h("div"), roads: h("div") };
  root.replaceChildren(h("section", { class: "player" },
    parts.head,
    h("div", { class: "layout" },
      h("div", { class: "main" }, parts.felt, parts.prompt, parts.mine, parts.bet),
      h("aside", {}, parts.wallet, parts.seats, parts.roads, parts.record))));

  // what the table's game is, as the server says it (the page knows no rule of its own)
  const blackjack = table.play.kind === "blackjack";
  const betType = (kind) => table.play.bet_types.find((b) => b.type === kind);
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
    parts.felt.replaceChildren(felt(view, table.play, { mine: mySeats() }));
    drawPrompt();
    drawBets();
    drawBetForm();
    drawSeats();
    parts.roads.replaceChildren(table.roads ? h("div", { class: "panel" }, h("h3", {}, "Roads"), road(table.play.kind, table.roads)) : "");
  }

  // --- decisions and windows ----------------------------------------------------------------
  const decisions = new Intents();
  let deciding = false;  // a decision in flight: its buttons stay disabled until it is answered
  const decide = async (body) => {
    if (deciding) return;
    deciding = true;
    drawPrompt();
    const key = decisions.key(round.id, body);
    try {
      await api("POST", `/rounds/${encodeURIComponent(round.id)}/decisions`, body, { key });
      decisions.done();
      toast(`${label(body.action)}: sent`);
      refreshMoney();
    } catch (err) { decisions.done(err); toast(err.message, "error"); }
    deciding = false;
    drawPrompt();
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
          class: "action", dataset: { action }, disabled: deciding,
          onclick: () => decide({ seat: wait.seat, action, hand }) }, label(action))))
          : null));
    } else if (wait.kind === "insurance") {
      const mine = [...seatBets.map((seat) => ({ seat, action: "insurance" })),
                    ...behind.map((seat) => ({ seat, action: "insurance", behind: true }))];
      parts.prompt.append(h("div", { class: "panel ask" }, h("p", {}, "Insurance is open (the dealer shows an ace) ",
        timer(wait.deadline)), mine.length ? h("div", { class: "buttons" }, mine.map((body) => h("button", {
        class: "action", dataset: { action: "insurance" }, disabled: deciding, onclick: () => decide(body) },
      `Insure seat ${body.seat}${body.behind ? " (behind)" : ""}`))) : null));
    } else if (wait.kind === "follow") {
      const mine = behind.includes(wait.seat);
      const action = `follow-${wait.what}`;
      parts.prompt.append(h("div", { class: "panel ask" }, h("p", {}, `Seat ${wait.seat} chose to ${wait.what} `,
        timer(wait.deadline)), mine ? h("div", { class: "buttons" }, h("button", {
        class: "action", dataset: { action }, disabled: deciding,
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

  const placing = new Intents();
  let sending = false;  // a bet in flight: the place and confirm buttons wait for its answer
  const place = async (wanted) => {
    if (sending) return;
    sending = true;
    form.update();
    const key = placing.key(round.id, wanted);
    try {
      const answer = await api("POST", `${path}/bets`, { bets: wanted }, { key });
      placing.done();
      for (const bet of answer.bets) bets.set(bet.bet_id, { ...bets.get(bet.bet_id), ...bet, status: "open" });
      toast(`Bet accepted: ${answer.bets.map((b) => `${label(b.type)}${b.seat ? ` ${b.seat}` : ""} ${money(b.amount)}`).join(", ")}`);
      pending = null;
      form.showConfirm();
      draw();
      refreshMoney();
    } catch (err) {
      placing.done(err);
      form.refusal.textContent = err instanceof ApiError ? err.message : String(err);
      toast(err.message, "error");
    }
    sending = false;
    form.update();
  };

  // The form is built once (what the player typed survives the pushes); draw() updates its state.
  const seatCount = () => table.play.seats || 0;
  const form = (() => {
    const types = table.play.bet_types.map((b) => b.type);
    const amount = h("input", { type: "number", name: "amount", min: 1, step: 1, value: 1000, "aria-label": "amount" });
    const type = h("select", { name: "type", "aria-label": "bet type" }, types.map((t) => h("option", { value: t },
      `${label(t)} (${money(betType(t).min)}–${money(betType(t).max)})`)));
    const seat = h("select", { name: "seat", "aria-label": "seat" });
    const modes = table.play.bet_types.flatMap((b) => b.modes || []).filter((m, i, all) => all.indexOf(m) === i);
    const mode = h("select", { name: "mode", "aria-label": "banker mode" }, modes.map((m) => h("option", { value: m }, label(m))));
    const button = h("button", { type: "submit" }, "Place bet");
    const closed = h("p", { class: "muted" }, "Betting is closed: bets open with the next round.");
    const refusal = h("p", { class: "refusal", role: "alert" });
    const confirm = h("div", { class: "confirm", hidden: true });
    const confirmButton = h("button", { class: "confirm-bet", onclick: () => place([pending]) }, "Confirm");
    const wanted = () => {
      const bet = { type: type.value, amount: Number(amount.value) };
      if (betType(type.value)?.seat) bet.seat = Number(seat.value);
      if (betType(type.value)?.modes) bet.mode = mode.value;
      return bet;
    };
    const showConfirm = () => {
      confirm.hidden = !pending;
      if (!pending) { confirm.replaceChildren(); return; }
      const reservation = betType(pending.type).reserves;  // the table's rule, as the server says it
      confirm.replaceChildren(
        h("p", {}, `${label(pending.type)} ${money(pending.amount)} reserves ${money(pending.amount * reservation)} of your `,
          `balance (${reservation} × the stake, for a Banker win that takes double); what is not lost comes back at settlement.`),
        confirmButton, " ",
        h("button", { class: "ghost", onclick: () => { pending = null; showConfirm(); } }, "Cancel"));
    };
    const submit = (event) => {
      event.preventDefault();
      refusal.textContent = "";
      const bet = wanted();
      if (betType(bet.type)?.reserves > 1) { pending = bet; showConfirm(); return; }  // shown before it is placed
      place([bet]);
    };
    const syncFields = () => {
      seat.hidden = !betType(type.value)?.seat;
      mode.hidden = !betType(type.value)?.modes;
    };
    type.addEventListener("change", syncFields);
    syncFields();
    const notes = [];
    if (table.play.mirror_seat_bets) {
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
        button.disabled = !open || sending;
        confirmButton.disabled = !open || sending;
        button.toggleAttribute("aria-busy", sending);
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
      table = { ...table, ...await api(method, `${path}/seats/${number}`) };  // the seats; the rest stays
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
