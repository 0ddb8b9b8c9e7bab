// A table's help, in the page's language, made from the table's rules as the server holds them
// (`play.rules` of GET /tables/{id}): how the game is played, what each bet pays, the limits, the
// timers, the side bets, Pok Deng's special combinations in their order, the blackjack options.
// No figure is written here: each one is read from the rules, so a change of a table's rules
// changes its help at its next read.
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

export async function tableHelp(root, tableId) {
  const table = await api("GET", `/tables/${encodeURIComponent(tableId)}`);
  const { play } = table;
  const rules = play.rules;
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
  sections.push(h("h2", {}, t("help.rules")), facts(rules, ["limits", "special_combinations"]));
  root.replaceChildren(h("section", { class: "help panel", dataset: { table: tableId } }, sections,
    h("p", {}, h("a", { href: `#/table/${encodeURIComponent(tableId)}` }, t("help.back")))));
  return null;
}
