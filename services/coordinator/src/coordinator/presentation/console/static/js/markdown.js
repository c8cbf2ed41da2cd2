// A session as a Markdown report (the console's download). Model text is written as it is, each line of it
// indented under its heading; Markdown readers render it, the console never does.

import { contributionsMarkdown } from "./contributions.js";
import { summaryOf } from "./experts.js";
import { num, pct, text } from "./format.js";
import { expertName, t } from "./i18n.js";

function block(value) {
  return text(value).split(/\r?\n/).map((line) => `> ${line}`).join("\n");
}

export function sessionMarkdown(session, levels) {
  const v = session.verdict;
  const out = [`# ${t("session.heading", { symbol: session.symbol, date: text(session.analysis_date) })}`, ""];
  out.push(`- ${t("field.status")}: ${session.status}`, `- session: ${session.session_id}`, "");
  if (v) {
    out.push(`## ${t("session.verdict")}`, "");
    out.push(`- ${t("field.action")}: ${v.action}`);
    out.push(`- ${t("field.position")}: ${num(v.position_percent, 1)} %${v.position_shares != null ? ` (${v.position_shares})` : ""}`);
    out.push(`- ${t("field.confidence")}: ${num(v.confidence)}${v.score == null ? "" : ` (${t("confidence.sentence")})`}`);
    out.push(`- ${t("field.entry")}: ${num(levels.entry)} · ${t("field.stop")}: ${num(levels.stop)} · ${t("field.target")}: ${num(levels.target)}`);
    out.push(`- ${t("field.horizon")}: ${text(v.time_horizon)}`);
    for (const key of ["score", "universe_rank", "market_exposure"]) if (v[key] !== undefined) out.push(`- ${key}: ${text(v[key])}`);
    out.push(`- ${t("field.risks")}: ${text(v.risk_warnings)}`, "", block(v.reasoning), "");
  }
  if (session.outcome) {
    const o = session.outcome;
    out.push(`## ${t("session.outcome")}`, "", `- ${o.status}: ${text(o.exit_day)} ${text(o.exit_reason)} ${pct(o.call_return)}`, "");
  }
  out.push(`## ${t("session.experts")}`, "");
  for (const expert of session.experts) {
    const record = session.expert_results[expert];
    out.push(`### ${expertName(expert)}`, "");
    if (!record || record.status !== "success") {
      out.push(`- ${t("field.error")}: ${text(record?.error)}`, "");
      continue;
    }
    const s = summaryOf(expert, record.data);
    out.push(`- ${t("field.signal")}: ${text(s.signal)} · ${t("field.confidence")}: ${num(s.confidence)} · ${t("field.as_of")}: ${text(s.asOf)}`);
    out.push(`- ${t("field.risk")}: ${text(s.risk)}`, "", block(s.reasoning), "");
  }
  const d = session.debate_outcome;
  if (d) {
    out.push(`## ${t("session.debate")}`, "");
    const contributions = contributionsMarkdown(d);
    if (contributions.length) out.push(`### ${t("contrib.heading")}`, "", ...contributions, "");
    out.push(`### ${t("session.bull")}`, "", block(d.bull_case?.core_thesis), "");
    out.push(`### ${t("session.bear")}`, "", block(d.bear_case?.core_thesis), "");
    out.push(`### ${t("session.resolution")}`, "", `- ${t("field.direction")}: ${text(d.direction)} · ${num(d.confidence)}`, "", block(d.conflict_resolution), "");
  }
  return out.join("\n");
}
