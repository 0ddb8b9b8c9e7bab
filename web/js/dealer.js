// The dealer console: what the round expects next (which hand gets the next card), the shoe (burn,
// cut card, last round), the reader's events (device-event pushes and GET /tables/{id}/log), and
// locally a form that sends test scans through the page server (as `croupier device` does).
import { api, config, lastAsking, Live, local, session } from "./api.js";
import { h, timer, toast } from "./dom.js";
import { number, t, term } from "./i18n.js";
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
      h("h1", {}, t("dealer.title", { table: table.name || table.table_id }), h("span", { class: "game" }, gameName(table.game))),
      view ? h("p", { class: "status" }, h("span", { class: `badge ${view.status}` }, term("status", view.status)),
        view.status === "betting" ? timer(view.closes_at) : null, " ", t("table.round-of-shoe", { n: view.round_in_shoe ?? "" }),
        view.paused ? h("span", { class: "tag warn" }, t("dealer.paused-tag", { reason: view.pause_reason || "" })) : null)
        : h("p", { class: "muted" }, t("dealer.no-round"))));
    const wait = round.expected();
    let next = t("dealer.nothing");
    if (view?.status === "betting") next = t("dealer.betting");
    if (wait?.kind === "card") next = t(wait.face_up === false ? "dealer.next-card-down" : "dealer.next-card", { hand: term("hand", wait.hand) });
    else if (wait?.kind === "decision") {
      next = t(wait.seat_hand ? "dealer.decides-hand" : "dealer.decides", { seat: wait.seat, hand: (wait.seat_hand || 0) + 1,
        actions: (wait.legal || []).filter((a) => a !== "timeout").map((a) => term("action", a)).join(", ") });
    } else if (wait?.kind === "insurance") next = t("dealer.insurance");
    else if (wait?.kind === "follow") next = t("dealer.follow", { seat: wait.seat, what: term("action", wait.what) });
    else if (wait?.kind === "settle") next = t("dealer.settling");
    if (view?.paused) next = t("dealer.paused", { reason: view.pause_reason || "" });
    parts.next.replaceChildren(h("div", { class: "panel next" }, h("h3", {}, t("dealer.expected")),
      h("p", { class: "expected", id: "expected" }, next, " ", wait?.deadline ? timer(wait.deadline) : null)));
    parts.felt.replaceChildren(felt(view, table.play));
    drawShoe();
  }

  function drawShoe() {
    const shoe = table.shoe;
    parts.shoe.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("shoe.title")), shoe ? h("dl", { class: "facts" },
      h("dt", {}, t("shoe.id")), h("dd", {}, shoe.shoe_id), h("dt", {}, t("shoe.phase")),
      h("dd", { id: "shoe-phase" }, term("phase", shoe.phase)),
      h("dt", {}, t("shoe.burn-left")), h("dd", {}, number(shoe.burn_remaining ?? 0)),
      h("dt", {}, t("shoe.drawn")), h("dd", {}, number(shoe.cards_drawn ?? 0)),
      h("dt", {}, t("shoe.round")), h("dd", {}, number(shoe.round_in_shoe ?? 0)),
      h("dt", {}, t("shoe.cut")), h("dd", {}, shoe.cut_card_out ? t("shoe.cut-out") : t("shoe.cut-not-yet")),
      h("dt", {}, t("shoe.last-round")), h("dd", {}, shoe.last_round ? t("shoe.yes") : t("shoe.no")))
      : h("p", { class: "muted" }, t("shoe.none"))));
  }

  function drawLog() {
    const entries = [...log.values()].sort((a, b) => b.n - a.n).slice(0, 40);
    parts.log.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("log.title")),
      h("table", { class: "log" }, h("tr", {}, h("th", {}, "#"), h("th", {}, t("log.event")), h("th", {}, t("log.card")),
        h("th", {}, t("log.fate"))),
      entries.map((e) => h("tr", { dataset: { n: e.n } }, h("td", {}, number(e.n)), h("td", {}, term("kind", e.kind)),
        h("td", { class: "code", dir: "ltr" }, e.card || ""),
        h("td", { class: e.state }, term("state", e.state), e.hand ? ` → ${term("hand", e.hand)}` : "",
          e.use && e.use !== "round" ? ` (${term("use", e.use)})` : "",
          e.reason ? `: ${e.reason}` : "", e.blocked ? ` ${t("log.blocked", { reason: e.blocked })}` : ""))))));
  }

  // --- controls -------------------------------------------------------------------------------
  const run = async (what, fn) => {
    try { await fn(); toast(what); } catch (err) { toast(err.message, "error"); }
  };
  const cards = h("input", { name: "cards", placeholder: t("console.cards-example"), "aria-label": t("console.cards"),
                             autocomplete: "off", dir: "ltr" });
  const fates = h("ul", { class: "fates" });
  const device = (body) => run(t("console.sent", { action: term("device", body.action) }), async () => {
    const devices = /** @type {NonNullable<import("./api.js").Config["local"]>} */ (config().local).devices;  // mode local
    const answer = await local(devices.replace("{table}", encodeURIComponent(tableId)), body, session().token);
    fates.replaceChildren(...answer.events.map((e) => h("li", { class: e.ok ? "" : "bad" }, e.fate)));
  });
  parts.controls.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("console.title")),
    h("div", { class: "buttons" },
      h("button", { onclick: () => run(t("console.opened"), () => api("POST", `${path}/rounds`)) }, t("console.open")),
      h("button", { class: "ghost", onclick: () => run(t("console.shoe-made"), () => api("POST", `${path}/shoes`, {})) },
        t("console.new-shoe"))),
    config().mode === "local" ? h("form", { class: "scan", onsubmit: (event) => {
      event.preventDefault();
      const list = cards.value.trim().toUpperCase().split(/[\s,]+/).filter(Boolean);
      if (list.length) device({ action: "scan", cards: list });
    } }, h("h4", {}, t("console.test-scans")), cards, h("button", { type: "submit" }, t("console.scan")),
    h("div", { class: "buttons" },
      ["shuffle", "burn", "cut", "fail"].map((action) => h("button", { type: "button", class: "ghost",
        onclick: () => device({ action }) }, term("device-button", action)))),
    fates) : null));

  // --- the push -----------------------------------------------------------------------------
  const askTable = lastAsking();
  const onEvent = (event) => {
    if (event.table_id !== tableId) return;
    if (event.type === "device-event") { log.set(event.entry.n, event.entry); drawLog(); }
    if (event.type.startsWith("shoe-") || ["last-round", "round-settled", "round-opened"].includes(event.type)) {
      const last = askTable();  // the shoe as the last asking found it
      api("GET", path).then((fresh) => { if (last()) { table = fresh; drawShoe(); } }).catch(() => {});
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
