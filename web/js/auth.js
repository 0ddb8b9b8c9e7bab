// Signing in. Locally: choose a role and a player; the page server's local-only endpoint issues a
// token of the local key. On AWS: the Cognito user pool's hosted UI, authorization code + PKCE
// (no client secret in the page); the ID token is the bearer token of the API and the WebSocket.
import { ApiError, local } from "./api.js";
import { t } from "./i18n.js";

const KEY = "croupier.session";

/** @typedef {import("./api.js").Config} Config @typedef {import("./api.js").Session} Session */

/** A JWT's claims (its payload, not verified: the API verifies the token). @param {string} token @returns {any} */
export function claimsOf(token) {
  const part = token.split(".")[1] || "";
  const json = atob(part.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(part.length / 4) * 4, "="));
  return JSON.parse(decodeURIComponent(escape(json)));
}

const ROLES = ["operator", "supervisor", "dealer", "player"];

/** @param {string} token @returns {Session} */
export function sessionOf(token) {
  const claims = claimsOf(token);
  let groups = claims["cognito:groups"] || claims.role || [];
  if (typeof groups === "string") groups = groups.split(/[ ,]+/);
  const role = ROLES.find((r) => groups.includes(r)) || "none";
  return { token, role, subject: claims.sub, name: claims["cognito:username"] || claims.email || claims.sub,
           table: claims["custom:table"] || null, exp: claims.exp * 1000 };
}

/** @returns {Session | null} */
export function stored() {
  try {
    const session = JSON.parse(sessionStorage.getItem(KEY) || "null");
    return session && session.exp > Date.now() + 5000 ? session : null;
  } catch { return null; }
}

/** @param {Config} config */
export function signOut(config) {
  sessionStorage.removeItem(KEY);
  if (config.mode === "cognito") {
    const { domain, client_id: clientId, redirect_uri: redirect } = /** @type {NonNullable<Config["cognito"]>} */ (config.cognito);
    location.href = `${domain}/logout?client_id=${encodeURIComponent(clientId)}&logout_uri=${encodeURIComponent(redirect)}`;
  } else {
    location.hash = "#/signin";
    location.reload();
  }
}

/** @param {Session} session @returns {Session} */
function keep(session) {
  sessionStorage.setItem(KEY, JSON.stringify(session));
  return session;
}

/**
 * @param {Config} config  of mode local
 * @param {{ role: string, subject: string, table: string }} who
 * @returns {Promise<Session>}
 */
export async function signInLocally(config, { role, subject, table }) {
  /** @type {Record<string, string>} */
  const body = { role, subject };
  if (role === "dealer") body.table = table;
  const answer = await local(/** @type {NonNullable<Config["local"]>} */ (config.local).token, body);
  return keep(sessionOf(answer.token));
}

// --- Cognito: authorization code with PKCE --------------------------------------------------
/** @param {ArrayBuffer | Uint8Array} bytes */
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
  .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** @param {Config} config  of mode cognito */
export async function signInWithCognito(config) {
  const { domain, client_id: clientId, redirect_uri: redirect, scopes } = /** @type {NonNullable<Config["cognito"]>} */ (config.cognito);
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const nonce = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem("croupier.pkce", JSON.stringify({ verifier, state: nonce, back: location.hash }));
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect,
    scope: (scopes || ["openid", "email", "profile"]).join(" "), code_challenge_method: "S256",
    code_challenge: challenge, state: nonce });
  location.href = `${domain}/oauth2/authorize?${query}`;
}

// Back from the hosted UI with ?code=...&state=...: the code and the verifier for the tokens.
/** @param {Config} config @returns {Promise<Session | null>} */
export async function finishCognito(config) {
  const params = new URLSearchParams(location.search);
  const code = params.get("code");
  if (config.mode !== "cognito" || !code) return null;
  const pending = JSON.parse(sessionStorage.getItem("croupier.pkce") || "null");
  sessionStorage.removeItem("croupier.pkce");
  history.replaceState(null, "", location.pathname + (pending?.back || "#/"));
  if (!pending || pending.state !== params.get("state")) throw new ApiError(400, "bad-state", t("signin.state-mismatch"));
  const { domain, client_id: clientId, redirect_uri: redirect } = /** @type {NonNullable<Config["cognito"]>} */ (config.cognito);
  const response = await fetch(`${domain}/oauth2/token`, {
    method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code,
                                redirect_uri: redirect, code_verifier: pending.verifier }),
  });
  const tokens = await response.json();
  if (!response.ok) throw new ApiError(response.status, tokens.error || "sign-in", tokens.error_description || t("signin.failed"));
  return keep(sessionOf(tokens.id_token));
}
