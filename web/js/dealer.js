// The dealer console: what the round expects next (which hand gets the next card), the shoe (burn,
// cut card, last round), the reader's events (device-event pushes and GET /tables/{id}/log), and
// locally a form that sends test scans through the page server (as `croupier device` does).
import { api, config, Live, local, session } from "./api.js";
import { h, label, timer, toast } from "./dom.js";
import { gameName } from "./lobby.js";
import { felt, RoundState } from "./round.js";

export async function dealerConsole(root, tableId) {
  const path = `/tables/${encodeURIComponent(tableId)}`;
  let table = await api("GET", path);
  const log = new Map();  // device-log entries by n
  const round = new RoundState(() => draw(), table.play);
  const parts = { head: h("div"), next: h("div", { class: "next" }), felt: h("div"), shoe: h("div"), log: h("div"),
                  controls: h("div") };
  root.replaceChildren(h("section", { class: "dealer" }, parts.head,
    h("div", { class: "layout" }, h("div", { class: "main" }, parts.next, parts.felt, parts.log),
      h("aside", {}, parts.controls, parts.shoe))));

  const loadLog = async () => {
    try {
      const answer = await api("GET", `${path}/log`);
      for (const entry of answer.entries) log.set(entry.n, entry);
      drawLog();
    } catch (err) { toast(err.message, "error"); }
  };

  function draw() {
    const view = round.view;
    parts.head.replaceChildren(h("header", { class: "table-head" },
      h("h1", {}, `Dealer console: ${table.name || table.table_id}`, h("span", { class: "game" }, gameName(table.game))),
      view ? h("p", { class: "status" }, h("span", { class: `badge ${view.status}` }, label(view.status)),
        view.status === "betting" ? timer(view.closes_at) : null, ` round ${view.round_in_shoe ?? ""} of the shoe`,
        view.paused ? h("span", { class: "tag warn" }, `paused: ${view.pause_reason || ""}`) : null)
        : h("p", { class: "muted" }, "No round yet.")));
    const wait = round.expected();
    let next = "Nothing expected now.";
    if (view?.status === "betting") next = "Betting is open: deal when the countdown shows zero.";
    if (wait?.kind === "card") next = `Next card: ${label(wait.hand)}${wait.face_up === false ? " (face down)" : ""}`;
    else if (wait?.kind === "decision") next = `Seat ${wait.seat}${wait.seat_hand ? ` hand ${wait.seat_hand + 1}` : ""} decides: ${(wait.legal || []).filter((a) => a !== "timeout").join(", ")}`;
    else if (wait?.kind === "insurance") next = "Insurance window open";
    else if (wait?.kind === "follow") next = `Follow window: seat ${wait.seat} ${wait.what}`;
    else if (wait?.kind === "settle") next = "Settling";
    if (view?.paused) next = `Paused: ${view.pause_reason || ""} (the supervisor decides)`;
    parts.next.replaceChildren(h("div", { class: "panel next" }, h("h3", {}, "Expected next"),
      h("p", { class: "expected", id: "expected" }, next, " ", wait?.deadline ? timer(wait.deadline) : null)));
    parts.felt.replaceChildren(felt(view, table.play));
    drawShoe();
  }

  function drawShoe() {
    const shoe = table.shoe;
    parts.shoe.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Shoe"), shoe ? h("dl", { class: "facts" },
      h("dt", {}, "shoe"), h("dd", {}, shoe.shoe_id), h("dt", {}, "phase"), h("dd", { id: "shoe-phase" }, label(shoe.phase)),
      h("dt", {}, "burn left"), h("dd", {}, String(shoe.burn_remaining ?? 0)),
      h("dt", {}, "cards drawn"), h("dd", {}, String(shoe.cards_drawn ?? 0)),
      h("dt", {}, "round"), h("dd", {}, String(shoe.round_in_shoe ?? 0)),
      h("dt", {}, "cut card"), h("dd", {}, shoe.cut_card_out ? "out" : "not yet"),
      h("dt", {}, "last round"), h("dd", {}, shoe.last_round ? "yes" : "no")) : h("p", { class: "muted" }, "No shoe: shuffle one.")));
  }

  function drawLog() {
    const entries = [...log.values()].sort((a, b) => b.n - a.n).slice(0, 40);
    parts.log.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Reader and console events"),
      h("table", { class: "log" }, h("tr", {}, h("th", {}, "#"), h("th", {}, "event"), h("th", {}, "card"),
        h("th", {}, "what became of it")),
      entries.map((e) => h("tr", { dataset: { n: e.n } }, h("td", {}, e.n), h("td", {}, label(e.kind)),
        h("td", { class: "code" }, e.card || ""),
        h("td", { class: e.state }, label(e.state), e.hand ? ` → ${label(e.hand)}` : "", e.use && e.use !== "round" ? ` (${e.use})` : "",
          e.reason ? `: ${e.reason}` : "", e.blocked ? ` blocked: ${e.blocked}` : ""))))));
  }

  // --- controls -------------------------------------------------------------------------------
  const run = async (what, fn) => {
    try { await fn(); toast(what); } catch (err) { toast(err.message, "error"); }
  };
  const cards = h("input", { name: "cards", placeholder: "4S 2H 4D 5C", "aria-label": "cards to scan", autocomplete: "off" });
  const fates = h("ul", { class: "fates" });
  const device = (body) => run(`${body.action} sent`, async () => {
    const answer = await local(config().local.devices.replace("{table}", encodeURIComponent(tableId)), body, session().token);
    fates.replaceChildren(...answer.events.map((e) => h("li", { class: e.ok ? "" : "bad" }, e.fate)));
  });
  parts.controls.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Console"),
    h("div", { class: "buttons" },
      h("button", { onclick: () => run("round opened", () => api("POST", `${path}/rounds`)) }, "Open round"),
      h("button", { class: "ghost", onclick: () => run("new shoe", () => api("POST", `${path}/shoes`, {})) }, "New shoe")),
    config().mode === "local" ? h("form", { class: "scan", onsubmit: (event) => {
      event.preventDefault();
      const list = cards.value.trim().toUpperCase().split(/[\s,]+/).filter(Boolean);
      if (list.length) device({ action: "scan", cards: list });
    } }, h("h4", {}, "Test scans (local stack only)"), cards, h("button", { type: "submit" }, "Scan"),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "ghost", onclick: () => device({ action: "shuffle" }) }, "Shuffled"),
      h("button", { type: "button", class: "ghost", onclick: () => device({ action: "burn" }) }, "Burn done"),
      h("button", { type: "button", class: "ghost", onclick: () => device({ action: "cut" }) }, "Cut card"),
      h("button", { type: "button", class: "ghost", onclick: () => device({ action: "fail" }) }, "Failed scan")),
    fates) : null));

  // --- the push -----------------------------------------------------------------------------
  const onEvent = (event) => {
    if (event.table_id !== tableId) return;
    if (event.type === "device-event") { log.set(event.entry.n, event.entry); drawLog(); }
    if (event.type.startsWith("shoe-") || ["last-round", "round-settled", "round-opened"].includes(event.type)) {
      api("GET", path).then((t) => { table = t; drawShoe(); }).catch(() => {});
    }
    round.push(event);
  };
  const onSnapshot = (snapshot) => {
    table = snapshot.table;
    if (snapshot.round) round.setView(snapshot.round);
    draw();
  };
  const live = new Live([tableId], { onEvent, onSnapshot });
  draw();
  drawLog();
  loadLog();
  return () => live.close();
}
