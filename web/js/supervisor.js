// The supervisor's console: paused rounds arriving live with their reason (subscribed to "*"),
// pause, resume (saying what became of a card that paused the round) and void, and each round's
// full history for disputes, with its transcript to download for `croupier replay`; rounds listed and
// searched by table, time, status and player (a player's rounds through GET /players/{id}/rounds).
import { api, Live } from "./api.js";
import { clock, h, money, signed, toast } from "./dom.js";
import { number, t, term } from "./i18n.js";
import { gameName } from "./lobby.js";
import { felt } from "./round.js";

export async function supervisorConsole(root, query) {
  const paused = new Map();   // round id -> {table_id, round_id, reason, blocked_by}
  const playing = new Map();  // table id -> round id in play
  const feed = [];
  const parts = { paused: h("div"), playing: h("div"), feed: h("div"), history: h("div", { id: "history" }),
                  rounds: h("div") };
  root.replaceChildren(h("section", { class: "supervisor" }, h("h1", {}, t("sup.title")),
    h("div", { class: "layout" }, h("div", { class: "main" }, parts.paused, parts.history, parts.rounds),
      h("aside", {}, parts.playing, parts.feed))));

  const control = async (roundId, what, body) => {
    try {
      await api("POST", `/rounds/${encodeURIComponent(roundId)}/${what}`, body);
      toast(t("sup.done", { round: roundId, what: term("control", what) }));
    } catch (err) { toast(err.message, "error"); }
  };

  function drawPaused() {
    const items = [...paused.values()];
    parts.paused.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("sup.paused", { n: number(items.length) })),
      items.length ? items.map((p) => {
        const reason = h("input", { value: t("sup.void-default"), "aria-label": t("sup.void-reason"), name: "reason" });
        const card = h("select", { "aria-label": t("sup.card-fate"), name: "card" },
          ["round", "discarded", "returned"].map((c) => h("option", { value: c }, term("use", c))));
        return h("div", { class: "paused-round", dataset: { round: p.round_id } },
          h("p", {}, h("strong", {}, p.table_id), " ", t("sup.round", { round: p.round_id })),
          h("p", { class: "reason" }, p.reason),
          p.blocked_by ? h("p", { class: "muted" }, t("sup.blocked", { card: p.blocked_by.card || "", n: p.blocked_by.n ?? "?" })) : null,
          h("div", { class: "buttons" },
            p.blocked_by ? card : null,
            h("button", { class: "resume", onclick: () => control(p.round_id, "resume", p.blocked_by ? { card: card.value } : {}) },
              t("sup.resume")),
            reason,
            h("button", { class: "void danger", onclick: () => control(p.round_id, "void", { reason: reason.value }) }, t("sup.void")),
            h("button", { class: "ghost", onclick: () => history(p.round_id) }, t("sup.history"))));
      }) : h("p", { class: "muted" }, t("sup.none-paused"))));
  }

  function drawPlaying() {
    parts.playing.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("sup.in-play")),
      playing.size ? h("ul", { class: "plain" }, [...playing.entries()].map(([table, roundId]) => h("li", {},
        h("strong", {}, table), " ", h("button", { class: "small ghost",
          onclick: () => control(roundId, "pause", { reason: t("sup.pause-reason") }) }, t("sup.pause")),
        " ", h("button", { class: "small ghost", onclick: () => history(roundId) }, t("sup.history")))))
        : h("p", { class: "muted" }, t("sup.none"))));
  }

  function drawFeed() {
    parts.feed.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("sup.live")),
      h("ul", { class: "feed" }, feed.slice(-25).reverse().map((e) => h("li", {}, h("span", { class: "muted" }, clock(e.at)),
        ` ${e.table_id} ${term("event", e.type)}${e.reason ? `: ${e.reason}` : ""}`)))));
  }

  // --- a round's history, for disputes --------------------------------------------------------
  async function history(roundId) {
    parts.history.replaceChildren(h("div", { class: "panel" }, h("p", { class: "muted" }, t("sup.loading", { round: roundId }))));
    try {
      const view = await api("GET", `/rounds/${encodeURIComponent(roundId)}`);
      const { play } = await api("GET", `/tables/${encodeURIComponent(view.table_id)}`);  // the felt's layout
      let record = null;
      let why = "";
      if (view.status === "settled") record = await api("GET", `/rounds/${encodeURIComponent(roundId)}/transcript`);
      else why = t("sup.not-settled", { status: term("status", view.status) });
      const download = record ? h("button", { class: "download", onclick: () => {
        const blob = new Blob([JSON.stringify(record.transcript, null, 2)], { type: "application/json" });
        const link = h("a", { href: URL.createObjectURL(blob), download: `${roundId}.json` });
        document.body.append(link);
        link.click();
        link.remove();
      } }, t("sup.download")) : null;
      parts.history.replaceChildren(h("div", { class: "panel history" },
        h("h3", {}, t("sup.round-title", { round: roundId })), h("p", {}, t("sup.round-where", { game: gameName(view.game),
          table: view.table_id, n: view.round_in_shoe }), " ",
        h("span", { class: `badge ${view.status}` }, term("status", view.status)),
        view.house_result !== undefined && view.house_result !== null ? ` ${t("sup.house", { net: signed(view.house_result) })}` : "",
        view.void_reason ? ` ${t("sup.voided", { reason: view.void_reason })}` : ""),
        felt(view, play), download, why ? h("p", { class: "muted" }, why) : null,
        record ? [
          h("h4", {}, t("sup.bets")), h("table", { class: "bets" }, h("tr", {},
            ["player", "bet", "stake", "taken", "outcome", "net"].map((col) => h("th", {}, t(`sup.col-${col}`)))),
          record.bets.map((b) => h("tr", {}, h("td", {}, b.player), h("td", {}, term("bet", b.type),
            b.seat ? ` ${number(b.seat)}` : "", b.mode ? ` (${term("mode", b.mode)})` : ""),
          h("td", { class: "num" }, money(b.amount)), h("td", { class: "num" }, money(b.taken)),
          h("td", {}, b.result ? term("outcome", b.result.outcome) : term("status", b.status)),
          h("td", { class: "num" }, b.result ? signed(b.result.net) : "")))),
          h("h4", {}, t("sup.cards")), h("p", { class: "code", dir: "ltr" }, record.transcript.cards.join(" ")),
          record.transcript.actions.length ? [h("h4", {}, t("sup.decisions")), h("ol", {}, record.transcript.actions.map((a) =>
            h("li", {}, t(a.hand ? "sup.decision-hand" : "sup.decision", { seat: a.seat, hand: (a.hand || 0) + 1,
              action: term("action", a.action) }), a.player ? ` ${t("sup.behind", { player: a.player })}` : "")))] : null,
          h("h4", {}, t("sup.ledger")), h("table", { class: "bets" }, h("tr", {},
            ["time", "player", "kind", "amount", "before", "after"].map((col) => h("th", {}, t(`sup.col-${col}`)))),
          record.ledger.map((e) => h("tr", {}, h("td", {}, clock(e.at)), h("td", {}, e.player), h("td", {}, term("entry", e.kind)),
            h("td", { class: "num" }, signed(e.amount)), h("td", { class: "num" }, money(e.balance_before)),
            h("td", { class: "num" }, money(e.balance_after))))),
          record.history.length ? [h("h4", {}, t("sup.supervision")), h("ul", {}, record.history.map((x) => h("li", {}, clock(x.at), " ",
            x.pause ? t("sup.was-paused", { reason: x.pause }) : x.void ? t("sup.voided", { reason: x.void })
              : x.card ? t("sup.resumed-card", { card: x.card }) : t("sup.resumed"))))] : null,
        ] : (view.actions?.length ? [h("h4", {}, t("sup.so-far")), h("ol", {}, view.actions.map((a) => h("li", { dir: "ltr" },
          JSON.stringify(a.action || a))))] : null)));
    } catch (err) {
      parts.history.replaceChildren(h("div", { class: "panel" }, h("p", { class: "refusal" }, err.message)));
    }
  }

  // --- a table's rounds, any status, newest first: each opens its history ---------------------
  const STATUSES = ["betting", "closing", "playing", "settling", "settled", "voiding", "voided"];
  const pickTable = h("select", { id: "rounds-table", "aria-label": t("sup.rounds-table") });
  const pickStatus = h("select", { id: "rounds-status", "aria-label": t("sup.rounds-status") },
    h("option", { value: "" }, t("sup.rounds-any")), STATUSES.map((st) => h("option", { value: st }, term("status", st))));
  const roundList = h("div", { class: "round-list" });
  const pickPlayer = h("input", { id: "rounds-player", name: "player", "aria-label": t("sup.rounds-player"),
    placeholder: t("sup.rounds-player"), autocomplete: "off" });
  const pickSince = h("input", { id: "rounds-since", type: "datetime-local", "aria-label": t("sup.rounds-since") });
  const pickUntil = h("input", { id: "rounds-until", type: "datetime-local", "aria-label": t("sup.rounds-until") });
  /** @param {HTMLInputElement} input @returns {string} ms since the epoch, "" for none */
  const ms = (input) => (input.value ? String(new Date(input.value).getTime()) : "");
  // a player's rounds (staff only: GET /players/{id}/rounds), at the chosen table if one is, in the time range
  async function playerRounds() {
    const query = new URLSearchParams({ limit: "100" });
    if (pickTable.value) query.set("table", pickTable.value);
    if (ms(pickSince)) query.set("since", ms(pickSince));
    if (ms(pickUntil)) query.set("until", ms(pickUntil));
    try {
      const answer = await api("GET", `/players/${encodeURIComponent(pickPlayer.value.trim())}/rounds?${query}`);
      const rows = answer.rounds.filter((r) => !pickStatus.value || r.status === pickStatus.value);
      roundList.replaceChildren(rows.length ? h("table", { class: "bets player-rounds" }, h("tr", {},
        ["time", "table", "round"].map((col) => h("th", {}, t(`sup.col-${col}`))), h("th", {}, t("sup.rounds-status")),
        h("th", {}, t("sup.bets")), h("th", {}, "")),
      rows.map((r) => h("tr", { dataset: { round: r.round_id } }, h("td", {}, clock(r.created_at)), h("td", {}, r.table_id),
        h("td", {}, r.round_in_shoe ? number(r.round_in_shoe) : ""),
        h("td", {}, r.status ? h("span", { class: `badge ${r.status}` }, term("status", r.status)) : ""),
        h("td", {}, r.bets.map((b) => `${term("bet", b.type)} ${money(b.amount)}${b.net !== undefined && b.net !== null
          ? ` (${signed(b.net)})` : ""}`).join(", ")),
        h("td", {}, h("button", { class: "small ghost", dataset: { history: r.round_id }, onclick: () => history(r.round_id) },
          t("sup.history")))))) : h("p", { class: "muted" }, t("sup.rounds-none")));
    } catch (err) { roundList.replaceChildren(h("p", { class: "refusal" }, err.message)); }
  }
  async function loadRounds() {
    if (pickPlayer.value.trim()) { await playerRounds(); return; }
    if (!pickTable.value) { roundList.replaceChildren(); return; }
    try {
      const answer = await api("GET", `/tables/${encodeURIComponent(pickTable.value)}/rounds?limit=50`);
      const since = ms(pickSince) ? Number(ms(pickSince)) : null;
      const until = ms(pickUntil) ? Number(ms(pickUntil)) : null;
      const rows = answer.rounds.filter((r) => (!pickStatus.value || r.status === pickStatus.value)
        && (since === null || r.created_at >= since) && (until === null || r.created_at <= until));
      roundList.replaceChildren(rows.length ? h("table", { class: "bets" }, h("tr", {}, h("th", {}, t("sup.col-time")),
        h("th", {}, t("sup.col-round")), h("th", {}, t("sup.rounds-status")), h("th", {}, "")),
      rows.map((r) => h("tr", {}, h("td", {}, clock(r.created_at)), h("td", {}, number(r.round_in_shoe)),
        h("td", {}, h("span", { class: `badge ${r.status}` }, term("status", r.status))),
        h("td", {}, h("button", { class: "small ghost", dataset: { history: r.round_id }, onclick: () => history(r.round_id) },
          t("sup.history")))))) : h("p", { class: "muted" }, t("sup.rounds-none")));
    } catch (err) { roundList.replaceChildren(h("p", { class: "refusal" }, err.message)); }
  }
  for (const input of [pickTable, pickStatus, pickSince, pickUntil]) input.addEventListener("change", loadRounds);
  const search = h("form", { class: "buttons round-search", onsubmit: (event) => { event.preventDefault(); loadRounds(); } },
    pickTable, pickStatus, pickPlayer, pickSince, pickUntil, h("button", { type: "submit", class: "small" }, t("sup.rounds-search")));
  parts.rounds.replaceChildren(h("div", { class: "panel" }, h("h3", {}, t("sup.rounds")), search, roundList));

  // --- state at start, then the push ------------------------------------------------------------
  if (query.get("round")) history(query.get("round"));  // asked for by address: at once
  // what is in play and what is paused, as the API says: at start, and again when no public event
  // has come for a while (the push's messages may be held up on their way: api.js, Live)
  const readState = async (/** @type {any[]} */ tables) => {
    const inPlay = tables.filter((t) => t.round_id && !["settled", "voided", "betting"].includes(t.round_status));
    // paused or not, the round says (the table's status is the round's last step): read side by side
    const views = await Promise.all(inPlay.map((t) => api("GET", `/rounds/${encodeURIComponent(t.round_id)}`).catch(() => null)));
    const before = [...paused.keys()].join();
    playing.clear();
    for (const table of tables) {
      if (table.round_id && !["settled", "voided"].includes(table.round_status)) playing.set(table.table_id, table.round_id);
    }
    paused.clear();
    for (const view of views) {
      if (view?.paused) paused.set(view.round_id, { table_id: view.table_id, round_id: view.round_id,
        reason: view.pause_reason, blocked_by: view.blocked || null });
    }
    if ([...paused.keys()].join() !== before) drawPaused();  // what a supervisor typed survives the same rounds
    drawPlaying();
  };
  const lobby = await api("GET", "/tables?limit=100");
  pickTable.replaceChildren(h("option", { value: "" }, t("sup.rounds-pick")),
    ...lobby.tables.map((table) => h("option", { value: table.table_id }, `${table.name || table.table_id} · ${gameName(table.game)}`)));
  await readState(lobby.tables);
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
  // every table has no snapshot: the console reads what is in play and paused again instead
  const onQuiet = () => { api("GET", "/tables?limit=100").then((fresh) => readState(fresh.tables)).catch(() => {}); };
  const live = new Live(["*"], { onEvent, onQuiet });
  drawPaused(); drawPlaying(); drawFeed();
  return () => live.close();
}
