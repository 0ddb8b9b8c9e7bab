// The HTTP API (bearer token, Idempotency-Key on money-moving calls, the API's error body) and
// the WebSocket push (token in the URL, subscribe, snapshots, events; reconnects and resyncs).

export class ApiError extends Error {
  constructor(status, reason, message) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

const state = { config: null, session: null };

export function configure(config, session) {
  state.config = config;
  state.session = session;
}

export const config = () => state.config;
export const session = () => state.session;

export async function api(method, path, body, { idempotent = false } = {}) {
  const headers = { Authorization: `Bearer ${state.session.token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (idempotent) headers["Idempotency-Key"] = crypto.randomUUID();
  let response;
  try {
    response = await fetch(state.config.api + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", `the API cannot be reached (${err.message})`);
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.reason || "http", error.message || `HTTP ${response.status}`);
  }
  return data;
}

// A local-only endpoint of the page server (sign-in, test scans).
export async function local(path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.reason || "http", error.message || `HTTP ${response.status}`);
  }
  return data;
}

const indicator = () => document.getElementById("live");
let current = null;  // the view's connection: the indicator is its own

function showLive(owner, on, text) {
  const el = indicator();
  if (!el || owner !== current) return;
  el.textContent = text;
  el.classList.toggle("off", !on);
}

// One WebSocket connection subscribed to `tables` (["*"]: every table, staff only). onEvent gets
// each pushed event, onSnapshot each table's snapshot (at subscription and after a reconnect).
export class Live {
  constructor(tables, { onEvent = () => {}, onSnapshot = () => {}, onOpen = () => {} } = {}) {
    this.tables = tables;
    this.handlers = { onEvent, onSnapshot, onOpen };
    this.closed = false;
    this.retry = 500;
    this.delivered = new Set();  // the ids of the messages received (a redelivery keeps its id)
    current = this;
    this.connect();
  }

  connect() {
    const url = new URL(state.config.websocket);
    url.searchParams.set("token", state.session.token);
    const socket = this.socket = new WebSocket(url.href);
    showLive(this, false, "connecting");
    socket.onopen = () => {
      this.retry = 500;
      socket.send(JSON.stringify({ action: "subscribe", tables: this.tables }));
    };
    socket.onmessage = (message) => {
      let data;
      try { data = JSON.parse(message.data); } catch { return; }
      if (data.type === "subscribed") { showLive(this, true, "live"); this.handlers.onOpen(data); }
      else if (data.type === "snapshot") this.handlers.onSnapshot(data);
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
      showLive(this, false, this.closed ? "offline" : "reconnecting");
      if (this.closed) return;
      setTimeout(() => this.closed || this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 10000);
    };
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.close();
  }
}
