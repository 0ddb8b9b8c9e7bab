// The page's language: a catalogue per language (web/i18n/LANG.json), chosen from the browser's
// preferred languages unless the player chose one (remembered), English for a missing string.
// Numbers, amounts and times are formatted for the language (Intl), with its digits.

const STORE = "croupier.lang";

// Each language: its own name, its direction, and the locale Intl formats with (its digits).
/** @type {Record<string, { name: string, dir: "ltr" | "rtl", locale: string }>} */
export const LANGUAGES = {
  en: { name: "English", dir: "ltr", locale: "en-US" },
  ur: { name: "اردو", dir: "rtl", locale: "ur-PK-u-nu-arabext" },
  hi: { name: "हिन्दी", dir: "ltr", locale: "hi-IN-u-nu-latn" },
  fa: { name: "فارسی", dir: "rtl", locale: "fa-IR-u-nu-arabext" },
  th: { name: "ไทย", dir: "ltr", locale: "th-TH-u-nu-latn" },
};

/** @type {{ lang: string, strings: Record<string, string>, fallback: Record<string, string> }} */
const state = { lang: "en", strings: {}, fallback: {} };

/** @param {string} lang @returns {Promise<Record<string, string>>} */
async function catalogue(lang) {
  const response = await fetch(`i18n/${lang}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`i18n/${lang}.json: HTTP ${response.status}`);
  return response.json();
}

// The language to show: the one chosen before, else the first of the browser's it has.
export function preferred() {
  const chosen = localStorage.getItem(STORE);
  if (chosen && LANGUAGES[chosen]) return chosen;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES[base]) return base;
  }
  return "en";
}

/** @param {string} lang @param {{ remember?: boolean }} [options] */
export async function setLanguage(lang, { remember = false } = {}) {
  const chosen = LANGUAGES[lang] ? lang : "en";
  if (!Object.keys(state.fallback).length) state.fallback = await catalogue("en");
  state.strings = chosen === "en" ? state.fallback : await catalogue(chosen).catch(() => state.fallback);
  state.lang = chosen;
  if (remember) localStorage.setItem(STORE, chosen);
  document.documentElement.lang = chosen;
  document.documentElement.dir = LANGUAGES[chosen].dir;
  document.title = t("app.title");
}

export const language = () => state.lang;

// The string of `key` in the page's language (English if it has none), {name}s filled from `vars`.
/** @param {string} key @param {Record<string, unknown>} [vars] @returns {string} */
export function t(key, vars = {}) {
  if (!(key in state.strings)) console.warn(`i18n: ${state.lang} lacks ${key}`);  // the tests fail on it
  const text = state.strings[key] ?? state.fallback[key] ?? key;
  // a number is written with the language's digits
  return text.replace(/\{(\w+)\}/g, (all, name) => {
    if (!(name in vars)) return all;
    const value = vars[name];
    return typeof value === "number" ? number(value) : String(value);
  });
}

// A code the server sends (a bet type, a status, an action...) in words: its catalogue entry
// `group.code`, else the code itself with spaces (a code the page does not know yet).
/** @param {string} group @param {unknown} code @returns {string} */
export function term(group, code) {
  const key = `${group}.${code}`;
  if (has(key)) return t(key);
  if (code) console.warn(`i18n: no term ${key}`);
  return String(code ?? "").replace(/-/g, " ");
}

/** @param {string} key */
export const has = (key) => key in state.strings || key in state.fallback;

const locale = () => LANGUAGES[state.lang].locale;

/** @param {number | bigint} value @param {Intl.NumberFormatOptions} [options] */
export function number(value, options = {}) {
  return new Intl.NumberFormat(locale(), options).format(value);
}

// An amount in minor units; with its currency when the wallet names one.
/** @param {number | string | null | undefined} units @param {string | null} [currency] @returns {string} */
export function amount(units, currency = null) {
  if (units === undefined || units === null) return "–";
  if (currency) {
    try {
      return new Intl.NumberFormat(locale(), { style: "currency", currency, currencyDisplay: "code" }).format(Number(units));
    } catch { /* an unknown currency code: the number alone */ }
  }
  return number(Number(units));
}

/** @param {number | null | undefined} ms  since the epoch */
export function time(ms) {
  return ms ? new Intl.DateTimeFormat(locale(), { hour: "2-digit", minute: "2-digit", second: "2-digit",
    hourCycle: "h23" }).format(new Date(ms)) : "";
}
