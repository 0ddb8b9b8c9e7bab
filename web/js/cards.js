// Cards as the API and the pushes send them: "9S", "TD", or "??" for a face-down card (shown as
// its back: the server never sends what it hides).
import { h } from "./dom.js";

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

export function card(code) {
  if (!code || code === "??") return h("span", { class: "card back", title: "face down", dataset: { card: "??" } });
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  return h("span", { class: `card ${"HD".includes(suit) ? "red" : "black"}`, dataset: { card: code },
                     title: code }, rank, h("small", {}, SUITS[suit] || suit));
}

// One hand: its name, its cards, and the points the API gave (none while they are not known).
export function hand(name, cards, points, extra = "") {
  return h("div", { class: "hand", dataset: { hand: name } },
    h("div", { class: "hand-name" }, name, points !== undefined && points !== null
      ? h("span", { class: "points", title: "points, as the API reports them" }, String(points)) : null,
      extra ? h("span", { class: "tag" }, extra) : null),
    h("div", { class: "cards" }, (cards || []).map(card)));
}
