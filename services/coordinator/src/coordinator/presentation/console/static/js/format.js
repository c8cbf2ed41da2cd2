// Numbers, durations and errors in words.

import { ApiError, NetworkError } from "./api.js";
import { expertName, joinClauses, t } from "./i18n.js";

export const EXPERTS = [
  "technical_analyst",
  "financial_auditor",
  "valuation_modeler",
  "macro_intelligence",
  "catalyst_detective",
];

export function num(value, digits = 2) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : t("none");
}

/** A number with its sign: +0.154, −0.042 (the minus sign U+2212; `minus: "-"` for a plain hyphen), 0.000. */
export function signed(value, digits = 3, minus = "\u2212") {
  if (typeof value !== "number" || !Number.isFinite(value)) return t("none");
  const shown = Math.abs(value).toFixed(digits);
  if (Number(shown) === 0) return shown;
  return `${value < 0 ? minus : "+"}${shown}`;
}

/** A confidence (0.53) as a whole percent (53 %), as the CLI writes it. */
export function confidence(value) {
  return typeof value === "number" && Number.isFinite(value) ? `${Math.round(value * 100)} %` : t("none");
}

/** A fraction (0.0123) as a percent (1.23 %). */
export function pct(value, digits = 1) {
  return typeof value === "number" && Number.isFinite(value) ? `${(value * 100).toFixed(digits)} %` : t("none");
}

export function seconds(ms) {
  return typeof ms === "number" && Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : t("none");
}

export function text(value) {
  if (value === undefined || value === null || value === "") return t("none");
  if (Array.isArray(value)) return joinClauses(value.map(text));
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Any error of a call, in words: a 404 symbol, a 429 with its wait, a queue full, a network failure... */
export function errorText(error) {
  if (error instanceof NetworkError) return t("err.network");
  if (error instanceof ApiError) {
    const wait = error.retryAfter ?? error.problem?.retry_after_seconds ?? 1;
    if (error.status === 429) return t("err.rate_limited", { seconds: wait });
    if (error.code === "queue_full") return t("err.queue_full", { seconds: wait });
    if (error.code === "symbol_not_found") return t("err.symbol_not_found", { detail: error.detail });
    if (error.code === "session_not_found") return t("err.session_not_found");
    if (error.code === "watchlist_not_found") return t("err.watchlist_not_found");
    if (error.code === "unknown_symbols" && Array.isArray(error.problem?.unknown_symbols)) {
      return t("err.unknown_symbols", { symbols: error.problem.unknown_symbols.join(", ") });
    }
    if (error.status === 401) return t("err.unauthenticated");
    return t("err.generic", { status: error.status, code: error.code || error.title, detail: error.detail });
  }
  return String(error && error.message ? error.message : error);
}

export function expertError(expert, message) {
  return t("err.expert_failed", { expert: expertName(expert), message: message || t("none") });
}

/** Decimal places of `symbol`'s tick: 3 for Hong Kong, 2 elsewhere (A-shares and US stocks tick by 0.01). */
export function tickDigits(symbol) {
  return /\.HK$/i.test(symbol || "") ? 3 : 2;
}

/** A price at `symbol`'s tick precision. */
export function price(value, symbol) {
  return num(value, tickDigits(symbol));
}

/** A signed percent (−5.0 %, +8.2 %) of a value already in percent. */
export function signedPct(value, digits = 1) {
  return typeof value === "number" && Number.isFinite(value) ? `${signed(value, digits)} %` : t("none");
}
