// The supervisor's console: paused rounds arriving live with their reason (subscribed to "*"),
// pause, resume (saying what became of a card that paused the round) and void, and each round's
// full history for disputes, with its transcript to download for `croupier replay`.
import { api, Live } from "./api.js";
import { clock, h, label, money, signed, toast } from "./dom.js";
import { gameName } from "./lobby.js";
import { felt } from "./round.js";

export async function supervisorConsole(root, query) {
  const paused = new Map();   // round id -> {table_id, round_id, reason, blocked_by}
  const playing = new Map();  // table id -> round id in play
  const feed = [];
  const parts = { paused: h("div"), playing: h("div"), feed: h("div"), history: h("div", { id: "history" }) };
  root.replaceChildren(h("section", { class: "supervisor" }, h("h1", {}, "Supervisor console"),
    h("div", { class: "layout" }, h("div", { class: "main" }, parts.paused, parts.history),
      h("aside", {}, parts.playing, parts.feed))));

  const control = async (roundId, what, body) => {
    try {
      await api("POST", `/rounds/${encodeURIComponent(roundId)}/${what}`, body);
      toast(`round ${roundId}: ${what}`);
    } catch (err) { toast(err.message, "error"); }
  };

  function drawPaused() {
    const items = [...paused.values()];
    parts.paused.replaceChildren(h("div", { class: "panel" }, h("h3", {}, `Paused rounds (${items.length})`),
      items.length ? items.map((p) => {
        const reason = h("input", { value: "supervisor decision", "aria-label": "void reason", name: "reason" });
        const card = h("select", { "aria-label": "what became of the card", name: "card" },
          ["round", "discarded", "returned"].map((c) => h("option", { value: c }, c)));
        return h("div", { class: "paused-round", dataset: { round: p.round_id } },
          h("p", {}, h("strong", {}, p.table_id), ` round ${p.round_id}`),
          h("p", { class: "reason" }, p.reason),
          p.blocked_by ? h("p", { class: "muted" }, `card ${p.blocked_by.card || ""} (log #${p.blocked_by.n ?? "?"}): say what became of it`) : null,
          h("div", { class: "buttons" },
            p.blocked_by ? card : null,
            h("button", { class: "resume", onclick: () => control(p.round_id, "resume", p.blocked_by ? { card: card.value } : {}) }, "Resume"),
            reason,
            h("button", { class: "void danger", onclick: () => control(p.round_id, "void", { reason: reason.value }) }, "Void"),
            h("button", { class: "ghost", onclick: () => history(p.round_id) }, "History")));
      }) : h("p", { class: "muted" }, "No round is paused.")));
  }

  function drawPlaying() {
    parts.playing.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Rounds in play"),
      playing.size ? h("ul", { class: "plain" }, [...playing.entries()].map(([table, roundId]) => h("li", {},
        h("strong", {}, table), " ", h("button", { class: "small ghost", onclick: () => control(roundId, "pause", { reason: "supervisor pause" }) }, "Pause"),
        " ", h("button", { class: "small ghost", onclick: () => history(roundId) }, "History"))))
        : h("p", { class: "muted" }, "None.")));
  }

  function drawFeed() {
    parts.feed.replaceChildren(h("div", { class: "panel" }, h("h3", {}, "Live"),
      h("ul", { class: "feed" }, feed.slice(-25).reverse().map((e) => h("li", {}, h("span", { class: "muted" }, clock(e.at)),
        ` ${e.table_id} ${label(e.type)}${e.reason ? `: ${e.reason}` : ""}`)))));
  }

  // --- a round's history, for disputes --------------------------------------------------------
  async function history(roundId) {
    parts.history.replaceChildren(h("div", { class: "panel" }, h("p", { class: "muted" }, `Loading round ${roundId}…`)));
    try {
      const view = await api("GET", `/rounds/${encodeURIComponent(roundId)}`);
      const { play } = await api("GET", `/tables/${encodeURIComponent(view.table_id)}`);  // the felt's layout
      let record = null;
      let why = "";
      if (view.status === "settled") record = await api("GET", `/rounds/${encodeURIComponent(roundId)}/transcript`);
      else why = `The transcript, bets and ledger come once the round is settled (it is ${view.status}).`;
      const download = record ? h("button", { class: "download", onclick: () => {
        const blob = new Blob([JSON.stringify(record.transcript, null, 2)], { type: "application/json" });
        const link = h("a", { href: URL.createObjectURL(blob), download: `${roundId}.json` });
        document.body.append(link);
        link.click();
        link.remove();
      } }, "Download transcript (croupier replay)") : null;
      parts.history.replaceChildren(h("div", { class: "panel history" },
        h("h3", {}, `Round ${roundId}`), h("p", {}, `${gameName(view.game)} at ${view.table_id}, round ${view.round_in_shoe} of the shoe: `,
          h("span", { class: `badge ${view.status}` }, label(view.status)),
          view.house_result !== undefined && view.house_result !== null ? ` house ${signed(view.house_result)}` : "",
          view.void_reason ? ` void: ${view.void_reason}` : ""),
        felt(view, play), download, why ? h("p", { class: "muted" }, why) : null,
        record ? [
          h("h4", {}, "Bets"), h("table", { class: "bets" }, h("tr", {}, ["player", "bet", "stake", "taken", "outcome", "net"].map((t) => h("th", {}, t))),
            record.bets.map((b) => h("tr", {}, h("td", {}, b.player), h("td", {}, label(b.type), b.seat ? ` ${b.seat}` : "", b.mode ? ` (${b.mode})` : ""),
              h("td", { class: "num" }, money(b.amount)), h("td", { class: "num" }, money(b.taken)),
              h("td", {}, label(b.result?.outcome || b.status)), h("td", { class: "num" }, b.result ? signed(b.result.net) : "")))),
          h("h4", {}, "Cards in the order dealt"), h("p", { class: "code" }, record.transcript.cards.join(" ")),
          record.transcript.actions.length ? [h("h4", {}, "Decisions"), h("ol", {}, record.transcript.actions.map((a) =>
            h("li", {}, `seat ${a.seat}${a.hand ? ` hand ${a.hand + 1}` : ""}: ${label(a.action)}${a.player ? ` (behind, ${a.player})` : ""}`)))] : null,
          h("h4", {}, "Ledger"), h("table", { class: "bets" }, h("tr", {}, ["time", "player", "kind", "amount", "before", "after"].map((t) => h("th", {}, t))),
            record.ledger.map((e) => h("tr", {}, h("td", {}, clock(e.at)), h("td", {}, e.player), h("td", {}, label(e.kind)),
              h("td", { class: "num" }, signed(e.amount)), h("td", { class: "num" }, money(e.balance_before)), h("td", { class: "num" }, money(e.balance_after))))),
          record.history.length ? [h("h4", {}, "Supervision"), h("ul", {}, record.history.map((x) => h("li", {}, clock(x.at), " ",
            x.pause ? `paused: ${x.pause}` : x.void ? `voided: ${x.void}` : `resumed${x.card ? ` (card ${x.card})` : ""}`)))] : null,
        ] : (view.actions?.length ? [h("h4", {}, "Decisions so far"), h("ol", {}, view.actions.map((a) => h("li", {}, JSON.stringify(a.action || a))))] : null)));
    } catch (err) {
      parts.history.replaceChildren(h("div", { class: "panel" }, h("p", { class: "refusal" }, err.message)));
    }
  }

  // --- state at start, then the push ------------------------------------------------------------
  if (query.get("round")) history(query.get("round"));  // asked for by address: at once
  const lobby = await api("GET", "/tables?limit=100");
  const inPlay = lobby.tables.filter((t) => t.round_id && !["settled", "voided", "betting"].includes(t.round_status));
  for (const table of lobby.tables) {
    if (table.round_id && !["settled", "voided"].includes(table.round_status)) playing.set(table.table_id, table.round_id);
  }
  // paused or not, the round says (the table's status is the round's last step): read side by side
  const views = await Promise.all(inPlay.map((t) => api("GET", `/rounds/${encodeURIComponent(t.round_id)}`).catch(() => null)));
  for (const view of views) {
    if (view?.paused) paused.set(view.round_id, { table_id: view.table_id, round_id: view.round_id,
      reason: view.pause_reason, blocked_by: view.blocked || null });
  }
  const onEvent = (event) => {
    if (event.type === "device-event") return;
    const before = [...paused.keys()].join();
    feed.push(event);
    if (feed.length > 200) feed.shift();
    if (event.type === "round-opened") playing.set(event.table_id, event.round_id);
    if (event.type === "round-paused") paused.set(event.round_id, { table_id: event.table_id, round_id: event.round_id,
      reason: event.reason, blocked_by: event.blocked_by || null });
    if (["round-resumed", "round-voided", "round-settled", "round-refunded"].includes(event.type)) paused.delete(event.round_id);
    if (["round-settled", "round-refunded"].includes(event.type) && playing.get(event.table_id) === event.round_id) playing.delete(event.table_id);
    if ([...paused.keys()].join() !== before) drawPaused();  // what a supervisor typed survives other events
    drawPlaying(); drawFeed();
  };
  const live = new Live(["*"], { onEvent });
  drawPaused(); drawPlaying(); drawFeed();
  return () => live.close();
}
