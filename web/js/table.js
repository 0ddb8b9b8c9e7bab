// The player's table: the round as it happens, betting with the table's bet types and limits,
// blackjack decisions (exactly the prompt's legal actions, with its timer), insurance and follow
// windows, the balance and the bet record.
import { api, ApiError, Intents, lastAsking, Live, session } from "./api.js";
import { h, money, signed, timer, toast } from "./dom.js";
import { gameName } from "./lobby.js";
import { felt, RoundState } from "./round.js";
import { bettingFelt, roadGrids } from "./felt.js";
import { has, t, term } from "./i18n.js";

// A bet in words: its type, its seat, its mode ("behind seat 2", "banker (no commission)").
function betName(b) {
  const type = b.type === "seat" && b.seat ? "" : term("bet", b.type);
  const seat = b.seat ? t("form.seat-n", { n: b.seat }) : "";
  return [type, seat].filter(Boolean).join(" ") + (b.mode ? ` (${term("mode", b.mode)})` : "");
}

// A hand's name from its code ("seat-2/1", "hand-3", "banker").
function handName(code) {
  const seat = /^seat-(\d+)(?:\/(\d))?$/.exec(code || "");
  if (seat) return t("form.seat-n", { n: seat[1] });
  return term("hand", code);
}

// Why the round is paused, in the page's language: the pause's code in words; the server's own
// words for a code the page has none for.
function pauseWords(view) {
  const key = `pause.${view.pause_code}`;
  return view.pause_code && has(key) ? t(key) : (view.pause_reason || t("pause.default"));
}

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
      h("div", { class: "main" }, parts.felt, parts.prompt, parts.bet, parts.mine),
      h("aside", {}, parts.wallet, parts.seats, parts.roads, parts.record))));

  // what the table's game is, as the server says it (the page knows no rule of its own)
  const blackjack = table.play.kind === "blackjack";
  const mySeats = () => new Set(Object.entries(table.seats || {}).filter(([, s]) => s.yours).map(([n]) => Number(n)));
  const myBets = () => [...bets.values()];

  // the wallet and the record, asked for again after each bet, decision and settlement: only the
  // last asking's answers are shown
  const askMoney = lastAsking();
  const askTable = lastAsking();  // the table (its seats), read again after a seat change or an event
  const refreshMoney = async () => {
    const last = askMoney();
    try {
      // the table's wallet: Croupier's own, or the operator's (a seamless table)
      const answers = await Promise.all([api("GET", `/tables/${encodeURIComponent(table.table_id)}/wallets/${encodeURIComponent(me)}`),
        api("GET", `/players/${encodeURIComponent(me)}/bets?limit=8`)]);
      if (!last()) return;
      [wallet, record] = answers;
    } catch (err) {
      if (!last()) return;
      toast(err.message, "error");
    }
    drawMoney();
  };

  function draw() {
    const view = round.view;
    parts.head.replaceChildren(h("header", { class: "table-head" },
      h("h1", {}, table.name || table.table_id, h("span", { class: "game" }, gameName(table.game)), " ",
        h("a", { class: "help-link", href: `#/help/${encodeURIComponent(table.table_id)}` }, t("help.link"))),
      view ? h("p", { class: "status" }, h("span", { class: `badge ${view.status}` }, term("status", view.status)),
        view.status === "betting" && view.closes_at ? timer(view.bets_until ?? view.closes_at) : null,
        " ", t("table.round-of-shoe", { n: view.round_in_shoe ?? "" }),
        view.last_round ? h("span", { class: "tag" }, t("table.last-round")) : null)
        : h("p", { class: "muted" }, t("table.waiting")),
      // a paused round, in words (the card, scan and log number are the staff's)
      view?.paused ? h("p", { class: "pause", role: "alert", dataset: { code: view.pause_code || "" } },
        t("pause.title"), " ", pauseWords(view)) : null));
    parts.felt.replaceChildren(felt(view, table.play, { mine: mySeats() }));
    drawPrompt();
    drawBets();
    drawBetForm();
    drawSeats();
    parts.roads.replaceChildren(table.roads ? h("div", { class: "panel" }, h("h3", {}, t("table.roads")), roadGrids(table.play.kind, table.roads)) : "");
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
      toast(t("table.sent", { action: term("action", body.action) }));
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
        h("p", {}, yours ? t(hand ? "ask.yours-hand" : "ask.yours", { seat: wait.seat, hand: hand + 1 })
          : t("ask.seat-decides", { seat: wait.seat }), " ", timer(wait.deadline)),
        yours ? h("div", { class: "buttons" }, legal.map((action) => h("button", {
          class: "action", dataset: { action }, disabled: deciding,
          onclick: () => decide({ seat: wait.seat, action, hand }) }, term("action", action))))
          : null));
    } else if (wait.kind === "insurance") {
      /** @type {{ seat: number, action: string, behind?: boolean }[]} */
      const mine = [...seatBets.map((seat) => ({ seat, action: "insurance" })),
                    ...behind.map((seat) => ({ seat, action: "insurance", behind: true }))];
      parts.prompt.append(h("div", { class: "panel ask" }, h("p", {}, t("ask.insurance"), " ",
        timer(wait.deadline)), mine.length ? h("div", { class: "buttons" }, mine.map((body) => h("button", {
        class: "action", dataset: { action: "insurance" }, disabled: deciding, onclick: () => decide(body) },
      t(body.behind ? "ask.insure-behind" : "ask.insure", { seat: body.seat })))) : null));
    } else if (wait.kind === "follow") {
      const mine = behind.includes(wait.seat);
      const action = `follow-${wait.what}`;
      parts.prompt.append(h("div", { class: "panel ask" }, h("p", {}, t("ask.chose", { seat: wait.seat, what: term("action", wait.what) }), " ",
        timer(wait.deadline)), mine ? h("div", { class: "buttons" }, h("button", {
        class: "action", dataset: { action }, disabled: deciding,
        onclick: () => decide({ seat: wait.seat, action, behind: true, hand: wait.seat_hand ?? 0 }) },
      term("action", action))) : null));
    } else if (wait.kind === "card") {
      parts.prompt.append(h("p", { class: "muted" }, t("ask.dealing", { hand: handName(wait.hand) })));
    } else if (wait.kind === "settle") {
      parts.prompt.append(h("p", { class: "muted" }, t("ask.settling")));
    }
  }

  // --- my bets in this round ------------------------------------------------------------------
  function drawBets() {
    const list = myBets();
    parts.mine.replaceChildren(list.length ? h("div", { class: "panel" }, h("h3", {}, t("table.your-bets")),
      h("table", { class: "bets" }, list.map((b) => h("tr", { dataset: { bet: b.bet_id } },
        h("td", {}, betName(b)),
        h("td", { class: "num" }, money(b.amount)),
        h("td", { class: "num muted" }, b.taken !== undefined && b.taken !== b.amount
          ? t("table.reserved", { amount: money(b.taken) }) : ""),
        h("td", { class: `outcome ${b.result?.outcome || ""}` }, b.result ? `${term("outcome", b.result.outcome)} ${signed(b.result.net)}`
          + (b.result.reason ? ` (${b.result.reason})` : "") : term("status", b.status || "open")))))) : "");
  }

  // --- placing bets: chips on the felt's spots ------------------------------------------------
  const placing = new Intents();
  let sending = false;  // a bet in flight: the spots, chips, place and confirm buttons wait for its answer
  const place = async (wanted) => {
    if (sending) return;
    sending = true;
    board.draw();
    const key = placing.key(round.id, wanted);
    try {
      const answer = await api("POST", `${path}/bets`, { bets: wanted }, { key });
      placing.done();
      for (const bet of answer.bets) bets.set(bet.bet_id, { ...bets.get(bet.bet_id), ...bet, status: "open" });
      toast(t("table.accepted", { bets: answer.bets.map((b) => `${betName(b)} ${money(b.amount)}`).join(", ") }));
      sending = false;
      board.accepted(answer.bets);
      draw();
      refreshMoney();
    } catch (err) {
      placing.done(err);
      board.refusal.textContent = err instanceof ApiError ? err.message : String(err);
      toast(err.message, "error");
    }
    sending = false;
    board.draw();
  };

  // The board is built once (the chips staked survive the pushes); draw() updates it.
  const seatCount = () => table.play.seats || 0;
  const board = bettingFelt({ play: table.play, view: () => round.view, mySeats, myBets, sending: () => sending, place });
  parts.bet.replaceChildren(board.panel);
  // betting closes by the clock: the spots follow the countdown
  const closer = setInterval(() => board.draw(), 500);

  function drawBetForm() { board.draw(); }

  // --- seats (blackjack) ----------------------------------------------------------------------
  const seatAction = async (method, number) => {
    const last = askTable();  // as the table read again after an event: the last asking's answer only
    try {
      const seats = await api(method, `${path}/seats/${number}`);
      if (!last()) return;
      table = { ...table, ...seats };  // the seats; the rest stays
      draw();
    } catch (err) { toast(err.message, "error"); }
  };

  function drawSeats() {
    if (!blackjack) { parts.seats.replaceChildren(); return; }
    const count = seatCount();
    parts.seats.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("seats.title")), h("div", { class: "seat-grid" },
      Array.from({ length: count }, (_, i) => i + 1).map((n) => {
        const seat = table.seats?.[n];
        if (seat?.yours) return h("button", { class: "seat-button yours", dataset: { seat: n }, onclick: () => seatAction("DELETE", n) }, t("seats.yours", { n }));
        if (seat) return h("button", { class: "seat-button", disabled: true }, t("seats.taken", { n }));
        return h("button", { class: "seat-button free", dataset: { seat: n }, onclick: () => seatAction("PUT", n) }, t("seats.sit", { n }));
      }))));
  }

  // --- wallet and record ------------------------------------------------------------------------
  function drawMoney() {
    parts.wallet.replaceChildren(h("div", { class: "panel" },
      h("h3", {}, wallet?.mode === "seamless" ? t("wallet.at", { operator: wallet.operator }) : t("wallet.balance")),
      h("p", { class: "balance", id: "balance" }, wallet ? money(wallet.balance, wallet.currency) : "–")));
    const rows = (record?.bets || []).map((b) => h("tr", {}, h("td", {}, betName(b)),
      h("td", { class: "num" }, money(b.amount)),
      h("td", { class: `outcome ${b.result?.outcome || ""}` }, b.result ? signed(b.result.net) : term("status", b.status),
        b.result?.reason ? h("small", { class: "muted" }, ` ${b.result.reason}`) : null),
      h("td", { class: "num muted" }, b.balance_after !== undefined ? money(b.balance_after) : "")));
    parts.record.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("record.title")),
      rows.length ? h("table", { class: "bets record" }, h("tr", {}, h("th", {}, t("record.bet")), h("th", {}, t("record.amount")),
        h("th", {}, t("record.net")), h("th", {}, t("record.balance"))), rows) : h("p", { class: "muted" }, t("record.none"))));
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
      const last = askTable();
      api("GET", path).then((fresh) => { if (last()) { table = fresh; draw(); } }).catch(() => {});
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
