// The lobby: every table (GET /tables, paged), live through the push: status, countdown, roads.
import { api, Live, session } from "./api.js";
import { h, label, money, timer } from "./dom.js";

const GAMES = { baccarat: "Baccarat", "pok-deng": "Pok Deng", "deluxe-blackjack": "Deluxe Blackjack",
                blackjack: "Blackjack" };
export const gameName = (game) => GAMES[game] || game;

const STATUS_OF = { "round-opened": "betting", "betting-closed": "playing", "round-paused": "paused",
  "round-resumed": "playing", "round-result": "settling", "round-settled": "settled", "round-voided": "voided" };

export async function lobby(root) {
  const tables = new Map();
  const grid = h("div", { class: "tables" });
  const more = h("button", { class: "ghost", hidden: true }, "More tables");
  root.replaceChildren(h("section", {}, h("h1", {}, "Lobby"), grid, more));
  let cursor = null;
  let live = null;

  const card = (table) => {
    const who = session();
    const roads = table.roads;
    const open = table.round_status === "betting" && table.closes_at;
    return h("article", { class: "table-card", dataset: { table: table.table_id } },
      h("header", {}, h("h2", {}, table.name || table.table_id), h("span", { class: "game" }, gameName(table.game))),
      h("p", { class: "status" }, h("span", { class: `badge ${table.round_status || "idle"}` },
        label(table.round_status || "no round")), open ? timer(table.closes_at) : null,
      table.shoe ? h("span", { class: "muted" }, ` shoe round ${table.shoe.round_in_shoe ?? "–"}`) : null,
      table.shoe?.last_round ? h("span", { class: "tag" }, "last round") : null),
      h("p", { class: "limits" }, "Limits ", Object.entries(table.limits || {}).slice(0, 3)
        .map(([type, l]) => h("span", { class: "limit" }, `${label(type)} ${money(l.min)}–${money(l.max)}`))),
      table.free_seats ? h("p", { class: "muted" }, `Free seats: ${table.free_seats.join(", ") || "none"}`) : null,
      roads ? road(table.play.kind, roads) : null,
      h("p", { class: "actions" },
        who.role === "player" ? h("a", { class: "button", href: `#/table/${table.table_id}` }, "Play") : null,
        (who.role === "supervisor" || (who.role === "dealer" && who.table === table.table_id))
          ? h("a", { class: "button ghost", href: `#/dealer/${table.table_id}` }, "Dealer console") : null));
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
    if (event.type === "round-opened") { table.closes_at = event.closes_at; table.round_id = event.round_id; }
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
    if (!tables.size) grid.replaceChildren(h("p", { class: "muted" }, "No table yet: an operator creates them."));
    if (live) live.close();
    const ids = [...tables.keys()].slice(0, 50);
    if (ids.length) live = new Live(ids, { onEvent, onSnapshot: (s) => { tables.set(s.table_id, s.table); draw(s.table_id); } });
  };
  more.addEventListener("click", load);
  await load();
  return () => live && live.close();
}

// A shoe's road, small: Baccarat's bead plate (P, B, T by round), Pok Deng's last rounds.
export function road(game, roads) {
  if (game === "baccarat") {
    const entries = roads.bead_plate?.entries || [];
    const stats = roads.statistics || {};
    return h("div", { class: "road" },
      h("div", { class: "bead", style: `--columns:${Math.max(8, roads.bead_plate?.columns || 0)}` },
        entries.map((e) => h("span", { class: `bead-${e.winner}`, title: `round ${e.round}: ${e.winner}`,
          style: `grid-column:${e.column + 1};grid-row:${e.row + 1}` }, e.winner[0].toUpperCase()))),
      h("p", { class: "muted" }, `Banker ${stats.banker ?? 0} · Player ${stats.player ?? 0} · Tie ${stats.tie ?? 0}`));
  }
  const entries = (roads.entries || []).slice(-6);
  return h("div", { class: "road" }, h("p", { class: "muted" }, `${roads.rounds ?? 0} rounds this shoe`),
    entries.length ? h("table", { class: "mini" }, h("tr", {}, h("th", {}, "round"),
      [1, 2, 3, 4, 5].map((n) => h("th", {}, `H${n}`))),
    entries.map((e) => h("tr", {}, h("td", {}, e.round),
      [1, 2, 3, 4, 5].map((n) => h("td", { class: e[`hand-${n}`]?.result }, e[`hand-${n}`]?.result?.[0] || "–")))))
      : null);
}
