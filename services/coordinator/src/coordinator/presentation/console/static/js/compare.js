// "What changed since the last research of this symbol": the action, the confidence and each expert's signal of
// a session against the newest earlier session of the same symbol that has a verdict.

import { get } from "./api.js";
import { h } from "./dom.js";
import { summaryOf } from "./experts.js";
import { num, text } from "./format.js";
import { expertName, t } from "./i18n.js";

/** The newest session of `session.symbol` created before it with a verdict (detail), or null. */
export async function previousOf(session) {
  const page = await get(`/sessions?symbol=${encodeURIComponent(session.symbol)}&limit=50`);
  for (const item of page.items) {
    if (item.session_id === session.session_id || item.created_at >= session.created_at) continue;
    if (!["completed", "partial"].includes(item.status)) continue;
    const detail = await get(`/sessions/${encodeURIComponent(item.session_id)}`);
    if (detail.verdict) return detail;
  }
  return null;
}

function signals(session) {
  const out = {};
  for (const [expert, record] of Object.entries(session.expert_results || {})) {
    out[expert] = record.status === "success" ? summaryOf(expert, record.data).signal : t("stage.failed");
  }
  return out;
}

/** A table of what differs (and what does not) between `before` and `after`. */
export function changesTable(before, after) {
  const rows = [
    [t("field.action"), text(before.verdict?.action), text(after.verdict?.action)],
    [t("field.confidence"), num(before.verdict?.confidence), num(after.verdict?.confidence)],
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
