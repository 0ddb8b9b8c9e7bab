// A table's help, in the page's language, made from the table's rules as the server holds them
// (`play.rules` of GET /tables/{id}): how the game is played, what each bet pays, the limits, the
// timers, the side bets, Pok Deng's special combinations in their order, the blackjack options;
// and from GET /tables/{id}/help, the exact RTP of each bet under the table's rules and Baccarat's
// drawing rules as the engine holds them. No figure is written here: each one is read from the
// server, so a change of a table's rules changes its help at its next read.
import { api } from "./api.js";
import { h, money } from "./dom.js";
import { gameName } from "./lobby.js";
import { number, t, term } from "./i18n.js";

// "11:1" (a ratio of the rules) with the language's digits.
const ratio = (text) => String(text).split(":").map((part) => number(Number(part))).join(":");

function value(key, v) {
  if (v === null || v === undefined) return t("help.none");
  if (typeof v === "boolean") return v ? t("shoe.yes") : t("shoe.no");
  if (typeof v === "number") return key === "countdown" || key === "decision" || key === "follow"
    || key === "insurance" || key === "pause_void" || key === "early_card" ? t("timer.seconds", { n: v }) : number(v);
  if (/^\d+:\d+$/.test(String(v))) return h("span", { dir: "ltr", class: "ratio" }, ratio(v));
  return term("value", String(v));
}

// A section of the rules as a list of rule and value (nested sections inside).
function facts(rules, skip = []) {
  const rows = Object.entries(rules).filter(([key]) => !skip.includes(key));
  return h("dl", { class: "facts" }, rows.flatMap(([key, v]) => {
    const name = h("dt", {}, term("rule", key));
    if (Array.isArray(v)) return [name, h("dd", {}, v.map((x) => term("value", x)).join(", "))];
    if (v && typeof v === "object") return [name, h("dd", { dataset: { rule: key } }, facts(v))];
    return [name, h("dd", { dataset: { rule: key } }, value(key, v))];
  }));
}

// A bet of the RTP report in words (Baccarat's Banker bet without commission is the Banker bet in that mode).
function betName(bet) {
  if (bet === "banker-no-commission") return `${term("bet", "banker")} (${term("mode", "no-commission")})`;
  if (bet === "insurance") return term("action", "insurance");
  return term("bet", bet);
}

const percent = (v) => number(v, { style: "percent", minimumFractionDigits: 4, maximumFractionDigits: 4 });

// Each bet's exact return to player under the table's rules, and its house edge.
function returns(figures) {
  return [h("h2", {}, t("help.rtp")), h("p", {}, t("help.rtp-intro")),
    h("table", { class: "bets rtp" }, h("tr", {}, h("th", {}, t("record.bet")), h("th", {}, t("help.rtp-col")),
      h("th", {}, t("help.edge"))),
    figures.rtp.map((r) => h("tr", { dataset: { rtp: r.bet } }, h("td", {}, betName(r.bet)),
      h("td", { class: "num" }, percent(r.rtp)), h("td", { class: "num" }, percent(1 - r.rtp))))),
    figures.not_computed.length ? h("p", { class: "muted not-computed" }, t("help.rtp-not-computed",
      { bets: figures.not_computed.map((n) => betName(n.bet)).join(", ") })) : null];
}

// Baccarat's drawing rules, as the server's engine holds them: the Player's rule, the Banker's when
// the Player stood, and the Banker's table by its two-card total and the Player's third card.
function drawing(d) {
  const word = (draws) => h("td", { class: draws ? "draws" : "stands" }, t(draws ? "help.draws" : "help.stands"));
  const byTotal = (id, head, row) => h("table", { class: `bets tableau ${id}` },
    h("tr", {}, h("th", {}, head), row.map((_, total) => h("th", { class: "num" }, number(total)))),
    h("tr", {}, h("th", {}, t("help.then")), row.map(word)));
  return [h("h2", {}, t("help.drawing")),
    h("p", {}, t("help.natural", { totals: d.natural.map((n) => number(n)).join(", ") })),
    h("h3", {}, t("help.player-rule")), byTotal("player-rule", t("help.player-total"), d.player_draws),
    h("h3", {}, t("help.banker-stood")), byTotal("banker-stood", t("help.banker-total"), d.banker_draws_player_stood),
    h("h3", {}, t("help.banker-table")), h("p", {}, t("help.banker-table-how")),
    h("table", { class: "bets tableau banker-table" },
      h("tr", {}, h("th", {}, t("help.banker-total")), d.banker[0].draws.map((_, third) => h("th", { class: "num" }, number(third)))),
      d.banker.map((row) => h("tr", { dataset: { banker: row.banker } }, h("th", { class: "num" }, number(row.banker)),
        row.draws.map(word))))];
}

export async function tableHelp(root, tableId) {
  const [table, figures] = await Promise.all([api("GET", `/tables/${encodeURIComponent(tableId)}`),
    api("GET", `/tables/${encodeURIComponent(tableId)}/help`)]);
  const { play } = table;
  const rules = play.rules;
  /** @type {import("./dom.js").Child[]} */
  const sections = [
    h("h1", {}, t("help.title", { game: gameName(table.game), table: table.name || table.table_id })),
    h("p", {}, t(`help.how-${play.kind}`)),
    h("h2", {}, t("help.limits")),
    h("table", { class: "bets limits" }, h("tr", {}, h("th", {}, t("record.bet")), h("th", {}, t("help.min")),
      h("th", {}, t("help.max"))),
    play.bet_types.map((b) => h("tr", { dataset: { bet: b.type } }, h("td", {}, term("bet", b.type)),
      h("td", { class: "num" }, money(b.min)), h("td", { class: "num" }, money(b.max))))),
  ];
  if (play.kind === "pok-deng") {
    sections.push(h("h2", {}, t("help.combinations")), h("p", {}, t("help.combinations-order")),
      h("ol", { class: "combinations" }, rules.special_combinations.map((c) => h("li", { dataset: { combination: c.name } },
        term("pattern", c.name)))));
  }
  if (figures.drawing) sections.push(...drawing(figures.drawing));
  sections.push(...returns(figures));
  sections.push(h("h2", {}, t("help.rules")), facts(rules, ["limits", "special_combinations"]));
  root.replaceChildren(h("section", { class: "help panel", dataset: { table: tableId } }, sections,
    h("p", {}, h("a", { href: `#/table/${encodeURIComponent(tableId)}` }, t("help.back")))));
  return null;
}
