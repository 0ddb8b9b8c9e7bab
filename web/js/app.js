// The page: its configuration (config.json), the sign-in, and the views by address:
// #/ the lobby, #/table/ID the player's table, #/dealer/ID the dealer console, #/supervisor.
import { configure } from "./api.js";
import { finishCognito, signInLocally, signInWithCognito, signOut, stored } from "./auth.js";
import { h, toast } from "./dom.js";

const view = document.getElementById("view");
let leave = null;
let config = null;
let session = null;

const VIEWS = {
  lobby: () => import("./lobby.js").then((m) => m.lobby(view)),
  table: (id) => import("./table.js").then((m) => m.playerTable(view, id)),
  dealer: (id) => import("./dealer.js").then((m) => m.dealerConsole(view, id)),
  supervisor: (id, query) => import("./supervisor.js").then((m) => m.supervisorConsole(view, query)),
};

function nav() {
  const links = [["#/", "Lobby"]];
  if (session?.role === "dealer" && session.table) links.push([`#/dealer/${session.table}`, "Dealer console"]);
  if (session?.role === "supervisor" || session?.role === "operator") links.push(["#/supervisor", "Supervisor"]);
  document.getElementById("nav").replaceChildren(...(session ? links.map(([href, text]) => h("a", { href }, text)) : []));
  document.getElementById("who").replaceChildren(session
    ? h("span", {}, `${session.name} · ${session.role}${session.table ? ` · ${session.table}` : ""} `,
      h("button", { class: "small ghost", onclick: () => signOut(config) }, "Sign out"))
    : "");
}

function signInView() {
  if (config.mode === "cognito") {
    view.replaceChildren(h("section", { class: "signin panel" }, h("h1", {}, "Sign in"),
      h("p", {}, "Sign in with your Croupier account."),
      h("button", { onclick: () => signInWithCognito(config) }, "Sign in")));
    return;
  }
  const role = h("select", { name: "role", "aria-label": "role" },
    ["player", "dealer", "supervisor", "operator"].map((r) => h("option", { value: r }, r)));
  const subject = h("input", { name: "subject", value: "ana", "aria-label": "player", autocomplete: "off" });
  const table = h("input", { name: "table", value: "bac-1", "aria-label": "table", autocomplete: "off" });
  const tableRow = h("label", { hidden: true }, "Table the console serves ", table);
  const subjectRow = h("label", {}, "Player ", subject);
  const error = h("p", { class: "refusal", role: "alert" });
  role.addEventListener("change", () => {
    tableRow.hidden = role.value !== "dealer";
    subjectRow.firstChild.textContent = role.value === "player" ? "Player " : "Name ";
    if (role.value !== "player" && subject.value === "ana") subject.value = `${role.value}-1`;
  });
  const submit = async (event) => {
    event.preventDefault();
    try {
      const subjectValue = role.value === "dealer" ? `console-${table.value}` : subject.value.trim();
      session = await signInLocally(config, { role: role.value, subject: subjectValue, table: table.value.trim() });
      configure(config, session);
      nav();
      const next = role.value === "dealer" ? `#/dealer/${session.table}` : role.value === "player" ? "#/" : "#/supervisor";
      if (location.hash === next) route(); else location.hash = next;  // hashchange routes
    } catch (err) { error.textContent = err.message; }
  };
  view.replaceChildren(h("section", { class: "signin panel" }, h("h1", {}, "Sign in (local stack)"),
    h("p", { class: "muted" }, "Choose a role and a player: the local stack issues a token of its local key."),
    h("form", { onsubmit: submit }, h("label", {}, "Role ", role), subjectRow, tableRow,
      h("button", { type: "submit" }, "Sign in")), error));
}

let routing = 0;

async function route() {
  const mine = ++routing;
  if (leave) { try { leave(); } catch { /* the view is gone anyway */ } leave = null; }
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [name, id] = path.split("/").map(decodeURIComponent);
  if (!session || name === "signin") { signInView(); return; }
  const show = VIEWS[name || "lobby"] || VIEWS.lobby;
  try {
    const stop = await show(id, new URLSearchParams(search));
    if (mine === routing) leave = stop;
    else if (stop) stop();  // another view was asked for meanwhile: this one stops at once
  } catch (err) {
    view.replaceChildren(h("section", { class: "panel" }, h("p", { class: "refusal" }, err.message)));
    if (err.status === 401) signOut(config);
  }
}

async function start() {
  config = await (await fetch("config.json", { cache: "no-store" })).json();
  try { session = (await finishCognito(config)) || stored(); } catch (err) { toast(err.message, "error"); }
  configure(config, session);
  nav();
  window.addEventListener("hashchange", route);
  await route();
}

start().catch((err) => view.replaceChildren(h("p", { class: "refusal" }, `The page could not start: ${err.message}`)));
