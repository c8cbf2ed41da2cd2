// "What changed since the last research of this symbol": the action, the confidence and each expert's signal of
// a session against the session of the same symbol with a verdict whose analysis date comes just before its own
// (on the same analysis date: the one created before it), shown oldest to newest.

import { get } from "./api.js";
import { h } from "./dom.js";
import { summaryOf } from "./experts.js";
import { confidence, text } from "./format.js";
import { actionWord, enumWord, expertName, t } from "./i18n.js";

/** Whether `a` comes before `b` in analysis-date order (then creation order). */
function earlier(a, b) {
  const x = a.analysis_date || "";
  const y = b.analysis_date || "";
  return x < y || (x === y && a.created_at < b.created_at);
}

/** The session of `session.symbol` with a verdict that comes just before it by analysis date (detail), or null. */
export async function previousOf(session) {
  const page = await get(`/sessions?symbol=${encodeURIComponent(session.symbol)}&limit=100`);
  const candidates = page.items
    .filter((item) => item.session_id !== session.session_id && earlier(item, session))
    .filter((item) => ["completed", "partial"].includes(item.status))
    .sort((a, b) => (earlier(a, b) ? 1 : -1)); // the latest first
  for (const item of candidates) {
    const detail = await get(`/sessions/${encodeURIComponent(item.session_id)}`);
    if (detail.verdict) return detail;
  }
  return null;
}

function signals(session) {
  const out = {};
  for (const [expert, record] of Object.entries(session.expert_results || {})) {
    out[expert] = record.status === "success" ? enumWord(summaryOf(expert, record.data).signal) : t("stage.failed");
  }
  return out;
}

/** A table of what differs (and what does not) between `before` and `after`. */
export function changesTable(before, after) {
  const rows = [
    [t("field.action"), before.verdict ? actionWord(before.verdict.action) : t("none"), after.verdict ? actionWord(after.verdict.action) : t("none")],
    [t("field.confidence"), confidence(before.verdict?.confidence), confidence(after.verdict?.confidence)],
  ];
  const a = signals(before);
  const b = signals(after);
  for (const expert of new Set([...Object.keys(a), ...Object.keys(b)])) {
    rows.push([`${expertName(expert)} · ${t("field.signal")}`, text(a[expert]), text(b[expert])]);
  }
  return h("table", { class: "changes" },
    h("caption", {}, `${t("history.changes")} (${text(before.analysis_date)} → ${text(after.analysis_date)})`),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("history.item")), h("th", { scope: "col" }, t("history.before")), h("th", { scope: "col" }, t("history.after")))),
    h("tbody", {}, rows.map(([name, x, y]) => h("tr", { class: x === y ? "same" : "changed" }, h("th", { scope: "row" }, name), h("td", {}, x), h("td", {}, y)))));
}
