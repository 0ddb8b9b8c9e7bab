// A round as a screen follows it: the API's view (GET /rounds/{id} or a snapshot's round) plus
// the pushed events above its seq, applied as they come (cards appear as dealt, face-down ones as
// backs). Points are the API's: after cards arrive the view is fetched again (debounced) and the
// events above its seq are applied on top. No game rule is computed here.
import { api } from "./api.js";
import { h, label } from "./dom.js";
import { t, term } from "./i18n.js";
import { hand } from "./cards.js";

const ROUND_STATUS = { "round-opened": "betting", "betting-closed": "playing", "round-paused": "paused",
  "round-resumed": "playing", "round-result": "settling", "round-settled": "settled", "round-voided": "voided" };

export class RoundState {
  constructor(onChange, play) {
    this.onChange = onChange;
    this.play = play;     // the table's game as the server describes it (the felt's layout)
    this.view = null;     // the API's view of the round
    this.events = [];     // this round's events pushed since
    this.waiting = null;  // the latest waiting-for prompt
    this.handless = false;  // the API's view counts cards it does not show (Pok Deng while bets are open)
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timerId = undefined;
    this.seen = new Set();
  }

  get id() { return this.view?.round_id || null; }

  // A view from the API (or a snapshot): it replaces the last one if it is not older.
  setView(view) {
    if (!view) return;
    if (this.view && view.round_id === this.view.round_id && (view.seq ?? 0) < (this.view.seq ?? 0)) return;
    if (this.view?.round_id !== view.round_id) { this.events = []; this.seen = new Set(); this.waiting = null; }
    this.view = structuredClone(view);
    this.view.hands = this.view.hands || null;
    // a view without hands (a Pok Deng round's cards dealt face down while bets are open) counts
    // its cards but shows none: the face-down cards pushed so far stay on the felt
    this.handless = this.view.hands === null;
    for (const event of this.events) if (!(!this.handless && covered(event, view.seq))) this.apply(event);
    this.onChange();
  }

  // A pushed event of this table: a new round starts a new state; this round's events apply.
  push(event) {
    if (event.type === "round-opened" && event.round_id !== this.id) {
      this.view = { round_id: event.round_id, table_id: event.table_id, game: event.game, status: "betting",
                    round_in_shoe: event.round_in_shoe, closes_at: event.closes_at, bets_until: event.bets_until,
                    last_round: event.last_round,
                    seq: event.seq, hands: null, bets: [] };
      this.events = [];
      this.seen = new Set();
      this.waiting = null;
      this.onChange();
      return;
    }
    if (!this.view || event.round_id !== this.id) return;
    if (event.seq !== undefined) {
      const key = event.delivery || JSON.stringify(event);
      if (this.seen.has(key)) return;  // the same delivery again (a reconnect's overlap)
      this.seen.add(key);
      this.events.push(event);
      // already in the view; a view without hands counts a card it does not show, so a card
      // pushed after that view was read is still drawn
      if (!this.handless && covered(event, this.view.seq)) return;
    }
    this.apply(event);
    if (["card-dealt", "cards-revealed", "round-result", "decision-made", "round-resumed", "window-closed"]
      .includes(event.type)) this.refresh();
    this.onChange();
  }

  apply(event) {
    const view = this.view;
    if (ROUND_STATUS[event.type]) view.status = ROUND_STATUS[event.type];
    if (event.seq !== undefined) view.seq = Math.max(view.seq ?? 0, event.seq);
    if (event.type === "card-dealt") addCard(view, event.hand, event.card, this.play);
    else if (event.type === "cards-revealed") for (const c of event.cards) reveal(view, c.hand, c.card, this.play);
    else if (event.type === "waiting-for") this.waiting = event;
    else if (event.type === "round-paused") { view.paused = true; view.pause_reason = event.reason; view.pause_code = event.code; }
    else if (event.type === "round-resumed") { view.paused = false; view.pause_reason = null; view.pause_code = null; }
    else if (event.type === "round-result") { view.result = event.result; this.waiting = null; }
    else if (event.type === "round-voided") { view.void_reason = event.reason; this.waiting = null; }
    else if (event.type === "last-round") view.last_round = true;
    else if (event.type === "decision-made" && this.waiting?.kind === "decision") this.waiting = null;
    else if (event.type === "window-closed") this.waiting = null;
  }

  refresh() {
    clearTimeout(this.timerId);
    const id = this.id;
    this.timerId = setTimeout(async () => {
      try {
        const view = await api("GET", `/rounds/${encodeURIComponent(id)}`);
        if (view.round_id === this.id) this.setView(view);
      } catch (err) { console.warn("round refresh:", err.message); }
    }, 250);
  }

  // What the round waits for: the latest prompt, or the view's `expected` (after a reconnect).
  expected() {
    if (!this.view || ["settled", "voided", "betting"].includes(this.view.status)) return null;
    return this.waiting || this.view.expected || null;
  }
}

// Is this event already in a view of the round at `seq`? A card or a decision adds to the round's
// events (its seq counts it). The other events say what the round is at their seq: one below the
// view's is older than the view (a push held up on its way, delivered after the page caught up
// from a snapshot), and applying it would bring back what the view has left behind (a prompt
// whose decision, already in the view, is skipped as covered); one at the view's seq, applied
// again in order, gives the same state.
function covered(event, seq) {
  return event.seq < (seq ?? -1) || (["card-dealt", "decision-made"].includes(event.type) && event.seq <= (seq ?? -1));
}

function handsOf(view, play) {
  if (!view.hands) view.hands = play?.kind === "blackjack" ? { dealer: { cards: [] }, seats: {} } : {};
  return view.hands;
}

function blackjackHand(hands, name, create) {
  if (name === "dealer") return (hands.dealer ||= { cards: [] });
  const match = /^seat-(\d+)(?:\/(\d))?$/.exec(name);
  if (!match) return null;
  const seat = (hands.seats[match[1]] ||= { hands: [], behind: [] });
  const index = Number(match[2] || 0);
  if (!seat.hands[index] && create) seat.hands[index] = { hand: name, cards: [] };
  return seat.hands[index] || null;
}

function slot(view, name, play) {
  const hands = handsOf(view, play);
  if (hands.seats) return blackjackHand(hands, name, true);
  return (hands[name] ||= { cards: [] });
}

function addCard(view, name, code, play) {
  const target = slot(view, name, play);
  if (!target) return;
  target.cards = [...(target.cards || []), code];
  // the points of a hand that just got a card come with the next view from the API
  delete target.points; delete target.score;
}

function reveal(view, name, code, play) {
  const target = slot(view, name, play);
  if (!target) return;
  const cards = target.cards || [];
  const at = cards.indexOf("??");
  if (at >= 0) cards[at] = code; else if (!cards.includes(code)) cards.push(code);
  target.cards = cards;
}

// The hands on the felt, for every game, from the view alone.
export function felt(view, play, { mine = new Set() } = {}) {
  const hands = view?.hands;
  if (!hands) return h("div", { class: "felt empty" }, h("p", { class: "muted" },
    view?.status === "betting" ? t("felt.place-bets") : t("felt.no-cards")));
  if (hands.seats) {
    const dealer = hands.dealer || { cards: [] };
    const seats = Object.entries(hands.seats).sort((a, b) => Number(a[0]) - Number(b[0]));
    return h("div", { class: "felt blackjack" },
      h("div", { class: "row dealer" }, hand(term("hand", "dealer"), dealer.cards, dealer.score, "", "Dealer")),
      h("div", { class: "row seats" }, seats.map(([number, seat]) => h("div", {
        class: `seat${mine.has(Number(number)) ? " mine" : ""}`, dataset: { seat: number } },
      h("div", { class: "seat-name" }, t(mine.has(Number(number)) ? "felt.seat-yours" : "felt.seat", { n: number }),
        seat.insured ? h("span", { class: "tag" }, t("felt.insured")) : null),
      (seat.hands || []).filter(Boolean).map((one, i) => hand(seat.hands.length > 1 ? t("felt.hand-n", { n: i + 1 })
        : t("felt.hand"), one.cards, one.score, [one.bj && "blackjack", one.bust && "bust", one.doubled && "doubled",
        one.surrendered && "surrendered"].filter(Boolean).map((x) => term("mark", x)).join(" ")))))));
  }
  if (play.kind === "baccarat") {
    const winner = view.result?.winner;
    return h("div", { class: "felt baccarat" },
      play.hands.map((side) => h("div", { class: `side ${side}${winner === side ? " won" : ""}` },
        hand(term("hand", side), hands[side]?.cards, hands[side]?.points, "", label(side)))),
      winner ? h("p", { class: "winner", role: "status" }, winner === "tie" ? t("felt.tie")
        : t("felt.wins", { side: term("hand", winner) })) : null);
  }
  return h("div", { class: "felt pokdeng" }, play.hands.map((name) => {
    const one = hands[name] || view.result?.[name] || {};
    // settled: how a Player bet on the hand settled and which combination decided it ("won 2:1: court cards")
    const settled = view.result?.[name]?.reason;
    return hand(term("hand", name), one.cards, one.points,
      settled || (one.pattern && one.pattern !== "normal" ? term("pattern", one.pattern) : ""), label(name));
  }));
}
