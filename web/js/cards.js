// Cards as the API and the pushes send them: "9S", "TD", or "??" for a face-down card (shown as
// its back: the server never sends what it hides).
import { h } from "./dom.js";
import { number, t } from "./i18n.js";

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

export function card(code) {
  if (!code || code === "??") {
    return h("span", { class: "card back", role: "img", title: t("card.down"), "aria-label": t("card.down"),
                       dataset: { card: "??" } });
  }
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  const name = t("card.name", { rank: t(`rank.${code[0]}`), suit: t(`suit.${suit}`) });
  return h("span", { class: `card ${"HD".includes(suit) ? "red" : "black"}`, dataset: { card: code }, dir: "ltr",
                     role: "img", title: name, "aria-label": name }, rank, h("small", { "aria-hidden": "true" }, SUITS[suit] || suit));
}

// One hand: its name, its cards, and the points the API gave (none while they are not known);
// `key` names it for the page's own use (data-hand), whatever the language.
export function hand(name, cards, points, extra = "", key = name) {
  return h("div", { class: "hand", dataset: { hand: key } },
    h("div", { class: "hand-name" }, name, points !== undefined && points !== null
      ? h("span", { class: "points", title: t("hand.points") }, number(points)) : null,
      extra ? h("span", { class: "tag" }, extra) : null),
    h("div", { class: "cards", dir: "ltr" }, (cards || []).map((code) => card(code))));
}
