// The HTTP API (bearer token, Idempotency-Key on money-moving calls, the API's error body) and
// the WebSocket push (token in the URL, subscribe, snapshots, events; reconnects and resyncs).

import { t } from "./i18n.js";

/**
 * The page's config.json: where the APIs are and how to sign in (locally, or Cognito's hosted UI).
 * @typedef {object} Config
 * @property {"local" | "cognito"} mode
 * @property {string} api
 * @property {string} websocket
 * @property {{ token: string, devices: string, players?: string[], table?: string }} [local]  mode local's
 * @property {{ domain: string, client_id: string, redirect_uri: string, scopes?: string[] }} [cognito]
 */

/**
 * The signed-in person: the bearer token and what its claims say.
 * @typedef {object} Session
 * @property {string} token
 * @property {string} role
 * @property {string} subject
 * @property {string} name
 * @property {string | null} table
 * @property {number} exp  ms since the epoch
 */

export class ApiError extends Error {
  /**
   * @param {number} status  the HTTP status (0: no answer)
   * @param {string} reason  the API's reason code
   * @param {string} message  in the page's language
   */
  constructor(status, reason, message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

/** @type {{ config: Config | null, session: Session | null }} */
const state = { config: null, session: null };

/** @param {Config | null} config @param {Session | null} session */
export function configure(config, session) {
  state.config = config;
  state.session = session;
}

// A view's config and session: configure() gave both before any view runs (app.js).
export const config = () => /** @type {Config} */ (state.config);
export const session = () => /** @type {Session} */ (state.session);

// One intent (a bet, a decision): its Idempotency-Key, made once and sent with every attempt
// of that intent, so that a retry after a lost answer is the same request, never a second one.
export const intent = () => crypto.randomUUID();

const RETRIES = [400, 1000, 2500];  // ms before each retry (then the error is the caller's)

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// Worth sending again: no answer at all, a 5xx, or the first attempt of this key still running.
/** @param {ApiError} err */
const transient = (err) => err.status === 0 || err.status >= 500 || err.reason === "in-progress";

// A call of the API. `key`: the intent's Idempotency-Key (a money-moving call must give one); a
// call with a key, or a GET, is retried with backoff on a network error or a 5xx.
/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {{ key?: string | null }} [options]
 * @returns {Promise<any>}  the answer's JSON
 */
export async function api(method, path, body, { key = null } = {}) {
  const retry = key !== null || method === "GET";
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await once(method, path, body, key);
    } catch (err) {
      if (!(err instanceof ApiError) || !retry || !transient(err) || attempt >= RETRIES.length) throw err;
      await sleep(RETRIES[attempt] * (0.75 + Math.random() / 2));
    }
  }
}

/**
 * @param {string} method @param {string} path @param {unknown} body @param {string | null} key
 * @returns {Promise<any>}
 */
async function once(method, path, body, key) {
  /** @type {Record<string, string>} */
  const headers = { Authorization: `Bearer ${session().token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (key) headers["Idempotency-Key"] = key;
  let response;
  try {
    response = await fetch(config().api + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", t("error.network", { detail: err instanceof Error ? err.message : String(err) }));
  }
  const text = await response.text();
  let data;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.reason || "http", error.message || t("error.http", { status: response.status }));
  }
  return data;
}

// The keys of one kind of intent: asked again for the same body in the same scope (the round)
// after an attempt whose outcome is unknown (no answer, a 5xx), the same key; after an answer
// (accepted or refused), the next ask is a new intent.
export class Intents {
  constructor() {
    /** @type {{ text: string, key: string } | null} */
    this.last = null;
  }

  /** @param {string} scope @param {unknown} body @returns {string} */
  key(scope, body) {
    const text = JSON.stringify([scope, body]);
    const last = this.last?.text === text ? this.last : { text, key: intent() };
    this.last = last;
    return last.key;
  }

  /** @param {unknown} [err]  the attempt's error, none if it was answered */
  done(err = null) {
    if (!err || !(err instanceof ApiError) || !transient(err)) this.last = null;
  }
}

// The same thing asked for again and again (a balance after each bet): `ask()` at each asking gives
// a test that is true while that asking is the last; an answer that comes after a later asking's
// is older than it and is dropped.
/** @returns {() => () => boolean} */
export function lastAsking() {
  let asked = 0;
  return () => {
    const mine = ++asked;
    return () => mine === asked;
  };
}

// Runs `work` with `buttons` disabled until it ends (a request in flight cannot be sent twice).
/**
 * @template T
 * @param {HTMLButtonElement | null | undefined | (HTMLButtonElement | null | undefined)[]} buttons
 * @param {() => Promise<T> | T} work
 * @returns {Promise<T>}
 */
export async function busy(buttons, work) {
  const list = /** @type {HTMLButtonElement[]} */ ([buttons].flat().filter(Boolean));
  for (const b of list) { b.disabled = true; b.setAttribute("aria-busy", "true"); }
  try { return await work(); } finally {
    for (const b of list) { b.disabled = false; b.removeAttribute("aria-busy"); }
  }
}

// A local-only endpoint of the page server (sign-in, test scans).
/** @param {string} path @param {unknown} body @param {string} [token] @returns {Promise<any>} */
export async function local(path, body, token) {
  /** @type {Record<string, string>} */
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.reason || "http", error.message || t("error.http", { status: response.status }));
  }
  return data;
}

const SUBSCRIBE_WAIT = 10000;  // ms a subscription may go unanswered before it is asked for again
// ms a subscribed connection may hear no public event before it asks for its tables' snapshots
// again: a push held up on its way (its queue's message group waits for a failed delivery's
// visibility timeout, minutes) or lost (its dead-letter queue) leaves the screen behind for this
// long at most. Only public events count: a player's own and the staff's come through groups of
// their own, which may flow while the public one is held. Asked again and still no public event,
// it waits twice as long each time, up to QUIET_MOST: a table at rest costs a screen one
// subscription every two minutes, not four a minute.
const QUIET = 15000;
const QUIET_MOST = 120000;
/** @type {Live[]} */
const openLive = [];  // the connections not closed, the newest last: the live indicator shows the newest

// The indicator shows the newest connection not closed: a view left before it was shown (a lobby
// whose tables came after the player opened a table) opens its connection and closes it at once,
// and the view shown meanwhile gets the indicator back.
function paintLive() {
  const el = document.getElementById("live");
  if (!el) return;
  const newest = openLive[openLive.length - 1];
  el.textContent = newest ? newest.state.text : t("live.off");
  el.classList.toggle("off", !newest?.state.on);
}

/** @param {Live} owner @param {boolean} on @param {string} text */
function showLive(owner, on, text) {
  owner.state = { on, text };
  paintLive();
}

// One WebSocket connection subscribed to `tables` (["*"]: every table, staff only). onEvent gets
// each pushed event, onSnapshot each table's snapshot (at subscription, after a reconnect, and,
// with catchUp, after QUIET ms without a public event: the subscription is asked for again on the
// same connection; onQuiet, if given, is called instead, for a page that reads its state itself).
// A lobby of many tables does not catch up: each table's own page does.
/**
 * @typedef {object} LiveHandlers
 * @property {(event: any) => void} [onEvent]
 * @property {(snapshot: any) => void} [onSnapshot]
 * @property {(subscribed: any) => void} [onOpen]
 * @property {boolean} [catchUp]
 * @property {() => void} [onQuiet]
 */
export class Live {
  /** @param {string[]} tables @param {LiveHandlers} [handlers] */
  constructor(tables, { onEvent = () => {}, onSnapshot = () => {}, onOpen = () => {}, catchUp = true,
    onQuiet = undefined } = {}) {
    this.tables = tables;
    this.handlers = { onEvent, onSnapshot, onOpen };
    this.catchUp = catchUp;
    this.onQuiet = onQuiet;
    this.quietFor = QUIET;
    this.closed = false;
    this.retry = 500;
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {Set<unknown>} */
    this.delivered = new Set();  // the ids of the messages received (a redelivery keeps its id)
    this.state = { on: false, text: t("live.connecting") };
    openLive.push(this);
    this.connect();
  }

  connect() {
    const url = new URL(config().websocket);
    url.searchParams.set("token", session().token);
    const socket = this.socket = new WebSocket(url.href);
    showLive(this, false, t("live.connecting"));
    let subscribed = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let unanswered;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let quiet;
    // a subscription that fails (its function's error, or no answer) is asked for again on a new
    // connection: the page is never left "connecting" with a connection open
    const again = () => { if (!subscribed) socket.close(); };
    const subscribe = () => {
      socket.send(JSON.stringify({ action: "subscribe", tables: this.tables }));
      unanswered = setTimeout(again, SUBSCRIBE_WAIT);
    };
    // no public event for a while: the snapshots again (the subscription is counted once however
    // often it is asked for; unanswered, the page connects again), or the page's own reading
    const listen = () => {
      clearTimeout(quiet);
      if (!this.catchUp) return;
      quiet = setTimeout(() => {
        if (socket.readyState !== WebSocket.OPEN) return;
        this.quietFor = Math.min(this.quietFor * 2, QUIET_MOST);
        if (this.onQuiet) {
          this.onQuiet();
          listen();
          return;
        }
        subscribed = false;
        subscribe();
      }, this.quietFor);
    };
    socket.onopen = subscribe;
    socket.onmessage = (message) => {
      let data;
      try { data = JSON.parse(message.data); } catch { return; }
      const heard = (data.events || []).some((/** @type {any} */ e) => (e.audience ?? "public") === "public");
      if (heard) this.quietFor = QUIET;  // public events come again: a short wait again
      if (heard || data.type === "subscribed" || (subscribed && data.type === "snapshot")) listen();
      if (data.type === "subscribed") {
        subscribed = true;
        clearTimeout(unanswered);
        this.retry = 500;
        showLive(this, true, t("live.on"));
        this.handlers.onOpen(data);
      } else if (data.type === undefined && typeof data.message === "string") {
        // API Gateway's own answer when a route's function failed ("Internal server error")
        console.warn("push:", data.message);
        again();
      } else if (data.type === "snapshot") this.handlers.onSnapshot(data);
      else if (data.type === "error") {
        console.warn("push:", data.reason, data.message);
        if (data.reason === "expired-token") socket.close();  // connect again, with the session's token
      }
      if (data.id !== undefined) {
        if (this.delivered.has(data.id)) return;  // the same message again: delivery is at least once
        this.delivered.add(data.id);
        if (this.delivered.size > 2000) this.delivered.delete(this.delivered.values().next().value);
      }
      // each event carries its delivery (message id and place): two changes that look the same are
      // two events, a redelivered one is the same
      (data.events || []).forEach((event, i) =>
        this.handlers.onEvent(data.id !== undefined ? { ...event, delivery: `${data.id}#${i}` } : event));
    };
    socket.onclose = () => {
      clearTimeout(unanswered);
      clearTimeout(quiet);
      showLive(this, false, this.closed ? t("live.off") : t("live.reconnecting"));
      if (this.closed) return;
      setTimeout(() => this.closed || this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    };
  }

  close() {
    this.closed = true;
    const at = openLive.indexOf(this);
    if (at >= 0) openLive.splice(at, 1);
    paintLive();
    if (this.socket) this.socket.close();
  }
}
