// The lobby: every table (GET /tables, paged), live through the push: status, countdown, roads.
import { api, Live, session } from "./api.js";
import { h, money, timer } from "./dom.js";
import { number, t, term } from "./i18n.js";

export const gameName = (game) => term("game", game);

const STATUS_OF = { "round-opened": "betting", "betting-closed": "playing", "round-paused": "paused",
  "round-resumed": "playing", "round-result": "settling", "round-settled": "settled", "round-voided": "voided" };

export async function lobby(root) {
  const tables = new Map();
  const grid = h("div", { class: "tables" });
  const more = h("button", { class: "ghost", hidden: true }, t("lobby.more"));
  root.replaceChildren(h("section", {}, h("h1", {}, t("lobby.title")), grid, more));
  let cursor = null;
  let live = null;

  const card = (table) => {
    const who = session();
    const roads = table.roads;
    // betting closes a moment before the countdown the dealer deals from (the server says when)
    const until = table.round_status === "betting" ? table.bets_until ?? table.closes_at : null;
    return h("article", { class: "table-card", dataset: { table: table.table_id } },
      h("header", {}, h("h2", {}, table.name || table.table_id), h("span", { class: "game" }, gameName(table.game))),
      h("p", { class: "status" }, h("span", { class: `badge ${table.round_status || "idle"}` },
        term("status", table.round_status || "none")), until ? timer(until) : null,
      table.shoe ? h("span", { class: "muted" }, " ", t("lobby.shoe-round", { n: table.shoe.round_in_shoe ?? "–" })) : null,
      table.shoe?.last_round ? h("span", { class: "tag" }, t("table.last-round")) : null),
      h("p", { class: "limits" }, t("lobby.limits"), " ", table.play.bet_types.slice(0, 3)
        .map((b) => h("span", { class: "limit" }, t("lobby.limit", { type: term("bet", b.type), min: money(b.min), max: money(b.max) })))),
      table.free_seats ? h("p", { class: "muted" }, t("lobby.free-seats", {
        seats: table.free_seats.map((n) => number(n)).join(", ") || t("lobby.none") })) : null,
      roads ? road(table.play.kind, roads) : null,
      h("p", { class: "actions" },
        who.role === "player" ? h("a", { class: "button", href: `#/table/${table.table_id}` }, t("lobby.play")) : null,
        (who.role === "supervisor" || (who.role === "dealer" && who.table === table.table_id))
          ? h("a", { class: "button ghost", href: `#/dealer/${table.table_id}` }, t("nav.dealer")) : null));
  };

  const draw = (id) => {
    const table = tables.get(id);
    const old = grid.querySelector(`[data-table="${CSS.escape(id)}"]`);
    const fresh = card(table);
    if (old) old.replaceWith(fresh); else grid.append(fresh);
  };

  const onEvent = (event) => {
    const table = tables.get(event.table_id);
    if (!table) return;
    if (STATUS_OF[event.type]) table.round_status = STATUS_OF[event.type];
    if (event.type === "round-opened") {
      table.closes_at = event.closes_at; table.bets_until = event.bets_until; table.round_id = event.round_id;
    }
    if (event.type === "roads-updated") table.roads = event.roads;
    if (event.type === "seats-changed" && table.free_seats) {
      const count = table.free_seats.length + Object.keys(table.seats || {}).length;
      table.free_seats = Array.from({ length: count }, (_, i) => i + 1).filter((s) => !event.seats.includes(s));
    }
    if (event.type === "last-round" && table.shoe) table.shoe.last_round = true;
    draw(event.table_id);
  };

  const load = async () => {
    const page = await api("GET", `/tables?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    for (const table of page.tables) { tables.set(table.table_id, table); draw(table.table_id); }
    cursor = page.cursor;
    more.hidden = !cursor;
    if (!tables.size) grid.replaceChildren(h("p", { class: "muted" }, t("lobby.empty")));
    if (live) live.close();
    const ids = [...tables.keys()].slice(0, 50);
    if (ids.length) live = new Live(ids, { onEvent, onSnapshot: (s) => { tables.set(s.table_id, s.table); draw(s.table_id); },
      catchUp: false });  // up to 50 tables: each table's page catches up, not the lobby
  };
  more.addEventListener("click", load);
  await load();
  return () => live && live.close();
}

// A shoe's road, small: Baccarat's bead plate (P, B, T by round), Pok Deng's last rounds.
export function road(kind, roads) {
  if (kind === "baccarat") {
    const entries = roads.bead_plate?.entries || [];
    const stats = roads.statistics || {};
    return h("div", { class: "road" },
      h("div", { class: "bead", style: `--columns:${Math.max(8, roads.bead_plate?.columns || 0)}` },
        entries.map((e) => h("span", { class: `bead-${e.winner}`, role: "img",
          title: t("road.bead", { round: number(e.round), winner: term("hand", e.winner) }),
          "aria-label": t("road.bead", { round: number(e.round), winner: term("hand", e.winner) }),
          style: `grid-column:${e.column + 1};grid-row:${e.row + 1}` }, t(`road.letter-${e.winner}`)))),
      h("p", { class: "muted" }, t("road.stats", { banker: number(stats.banker ?? 0), player: number(stats.player ?? 0),
        tie: number(stats.tie ?? 0) })));
  }
  const entries = (roads.entries || []).slice(-6);
  const hands = Object.keys(entries[0] || {}).filter((k) => /^hand-\d+$/.test(k));
  return h("div", { class: "road" }, h("p", { class: "muted" }, t("road.rounds", { n: number(roads.rounds ?? 0) })),
    entries.length ? h("table", { class: "mini" }, h("tr", {}, h("th", {}, t("road.round")),
      hands.map((k) => h("th", {}, t("road.hand-short", { n: number(Number(k.slice(5))) })))),
    entries.map((e) => h("tr", {}, h("td", {}, number(e.round)),
      hands.map((k) => h("td", { class: e[k]?.result, title: term("outcome", e[k]?.result) },
        e[k]?.result ? t(`road.letter-${e[k].result}`) : "–")))))
      : null);
}
