// A few DOM helpers: h() builds elements, and the page's money, time and toast formatting (in
// the page's language: i18n.js).
import { amount, t, time } from "./i18n.js";

/** @typedef {Node | string | number | boolean | null | undefined | unknown[]} Child  a list: its items, flattened */

/**
 * An element: its attributes (`on…` a listener, `class`, `dataset`, `true` an empty attribute;
 * null, undefined and false leave it out) and its children (nested lists flattened; null,
 * undefined and false left out).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of /** @type {unknown[]} */ (children.flat(Infinity))) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** @type {(units: number | null | undefined, currency?: string | null) => string} */
export const money = (units, currency = null) => amount(units, currency);
/** @param {number} units */
export const signed = (units) => (units > 0 ? "+" : "") + money(units);
/** @param {number | null | undefined} ms */
export const clock = (ms) => time(ms);
/** @param {unknown} text */
export const label = (text) => String(text ?? "").replace(/-/g, " ");

/** @param {string} message @param {"info" | "error"} [kind] */
export function toast(message, kind = "info") {
  const box = /** @type {HTMLElement} */ (document.getElementById("toast"));  // in index.html
  const item = h("div", { class: `note ${kind}` }, message);
  box.append(item);
  setTimeout(() => item.remove(), kind === "error" ? 8000 : 4000);
}

// Every [data-until] element shows the seconds left until its time (ms since the epoch).
setInterval(() => {
  for (const el of document.querySelectorAll(/** @type {"span"} */ ("[data-until]"))) {
    const left = Math.max(0, Math.ceil((Number(el.dataset.until) - Date.now()) / 1000));
    el.textContent = t("timer.seconds", { n: amount(left) });
    el.classList.toggle("urgent", left <= 3);
  }
}, 250);

/** @param {number | null | undefined} until  ms since the epoch */
export function timer(until) {
  if (!until) return null;
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  return h("span", { class: "timer", role: "timer", dataset: { until: String(until) } },
    t("timer.seconds", { n: amount(left) }));
}
