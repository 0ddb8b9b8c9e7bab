// The page: its configuration (config.json), the sign-in, and the views by address:
// #/ the lobby, #/table/ID the player's table, #/dealer/ID the dealer console, #/supervisor.
import { configure } from "./api.js";
import { finishCognito, signInLocally, signInWithCognito, signOut, stored } from "./auth.js";
import { h, toast } from "./dom.js";
import { LANGUAGES, language, preferred, setLanguage, t, term } from "./i18n.js";

/** The page's element of that id (index.html has each). @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const view = byId("view");
/** @type {(() => void) | null | undefined | void} */
let leave = null;
/** @type {import("./api.js").Config} */
let config;
/** @type {import("./api.js").Session | null} */
let session = null;

/** @type {Record<string, (root: HTMLElement, id: string, query: URLSearchParams) => Promise<(() => void) | null | undefined | void>>} */
const VIEWS = {
  lobby: (root) => import("./lobby.js").then((m) => m.lobby(root)),
  table: (root, id) => import("./table.js").then((m) => m.playerTable(root, id)),
  dealer: (root, id) => import("./dealer.js").then((m) => m.dealerConsole(root, id)),
  supervisor: (root, id, query) => import("./supervisor.js").then((m) => m.supervisorConsole(root, query)),
  help: (root, id) => import("./help.js").then((m) => m.tableHelp(root, id)),
};

function nav() {
  const links = [["#/", t("nav.lobby")]];
  if (session?.role === "dealer" && session.table) links.push([`#/dealer/${session.table}`, t("nav.dealer")]);
  if (session?.role === "supervisor" || session?.role === "operator") links.push(["#/supervisor", t("nav.supervisor")]);
  const bar = byId("nav");
  bar.setAttribute("aria-label", t("nav.views"));
  bar.replaceChildren(...(session ? links.map(([href, text]) => h("a", { href }, text)) : []));
  byId("who").replaceChildren(session
    ? h("span", {}, `${session.name} · ${term("role", session.role)}${session.table ? ` · ${session.table}` : ""} `,
      h("button", { class: "small ghost", onclick: () => signOut(config) }, t("nav.sign-out")))
    : "");
  byId("brand").textContent = t("app.title");
  // the language switch, on every page: the choice is remembered
  const choose = h("select", { id: "language", "aria-label": t("nav.language"), onchange: async () => {
    await setLanguage(choose.value, { remember: true });
    nav();
    route();  // the view again, in the language chosen
  } }, Object.entries(LANGUAGES).map(([code, lang]) => h("option", { value: code, lang: code, selected: code === language() },
    lang.name)));
  byId("languages").replaceChildren(choose);
}

function signInView() {
  if (config.mode === "cognito") {
    view.replaceChildren(h("section", { class: "signin panel" }, h("h1", {}, t("signin.title")),
      h("p", {}, t("signin.cognito")),
      h("button", { onclick: () => signInWithCognito(config) }, t("signin.button"))));
    return;
  }
  // the players and the table the local stack's walkthrough funds and creates (config.json)
  const players = config.local?.players || [];
  const role = h("select", { name: "role", id: "signin-role" },
    ["player", "dealer", "supervisor", "operator"].map((r) => h("option", { value: r }, term("role", r))));
  const subject = h("input", { name: "subject", id: "signin-subject", value: players[0] || "", autocomplete: "off",
                               list: "signin-players" });
  const suggestions = h("datalist", { id: "signin-players" }, players.map((p) => h("option", { value: p })));
  const table = h("input", { name: "table", id: "signin-table", value: config.local?.table || "", autocomplete: "off" });
  const subjectName = h("span", {}, t("signin.player"));
  const tableRow = h("label", { hidden: true, for: "signin-table" }, t("signin.table"), " ", table);
  const subjectRow = h("label", { for: "signin-subject" }, subjectName, " ", subject, suggestions);
  const error = h("p", { class: "refusal", role: "alert" });
  role.addEventListener("change", () => {
    tableRow.hidden = role.value !== "dealer";
    subjectName.textContent = role.value === "player" ? t("signin.player") : t("signin.name");
    if (role.value !== "player" && players.includes(subject.value)) subject.value = `${role.value}-1`;
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
  view.replaceChildren(h("section", { class: "signin panel" }, h("h1", {}, t("signin.local-title")),
    h("p", { class: "muted" }, t("signin.local-help")),
    players.length ? h("p", { class: "muted" }, t("signin.funded", { players: players.join(", ") })) : null,
    h("form", { onsubmit: submit }, h("label", { for: "signin-role" }, t("signin.role"), " ", role), subjectRow, tableRow,
      h("button", { type: "submit" }, t("signin.button"))), error));
}

let routing = 0;

async function route() {
  const mine = ++routing;
  if (leave) { try { leave(); } catch { /* the view is gone anyway */ } leave = null; }
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [name, id] = path.split("/").map(decodeURIComponent);
  if (!session || name === "signin") { signInView(); return; }
  const show = VIEWS[name || "lobby"] || VIEWS.lobby;
  // each view draws in a place of its own, the page's until another view is asked for: what a
  // view left behind draws when its answers come (a table opened, then the lobby asked for
  // before the table came) reaches no page
  const place = h("div", { class: "view" });
  view.replaceChildren(place);
  try {
    const stop = await show(place, id, new URLSearchParams(search));
    if (mine === routing) leave = stop;
    else if (stop) stop();  // another view was asked for meanwhile: this one stops at once
  } catch (err) {
    if (mine !== routing) return;  // a view left behind: its failure is not the page's
    place.replaceChildren(h("section", { class: "panel" }, h("p", { class: "refusal" }, err.message)));
    if (err.status === 401) signOut(config);
  }
}

async function start() {
  await setLanguage(preferred());
  byId("live").textContent = t("live.off");
  config = await (await fetch("config.json", { cache: "no-store" })).json();
  try { session = (await finishCognito(config)) || stored(); } catch (err) { toast(err.message, "error"); }
  configure(config, session);
  nav();
  window.addEventListener("hashchange", route);
  await route();
}

start().catch((err) => view.replaceChildren(h("p", { class: "refusal" }, t("app.failed", { message: err.message }))));
