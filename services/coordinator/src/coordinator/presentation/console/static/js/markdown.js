// A session as a Markdown report (the console's download). Model text is written as it is, each line of it
// indented under its heading; Markdown readers render it, the console never does.

import { contributionsMarkdown } from "./contributions.js";
import { summaryOf } from "./experts.js";
import { confidence, num, signed, text } from "./format.js";
import { actionWord, enumWord, expertName, joinClauses, statusWord, t } from "./i18n.js";
import { outcomeText } from "./outcome.js";
import { phrase } from "./phrases.js";
import { entryText, exposureText, levelText, stageState } from "./verdict-card.js";

function block(value) {
  return text(value).split(/\r?\n/).map((line) => `> ${line}`).join("\n");
}

export function sessionMarkdown(session, levels) {
  const v = session.verdict;
  const out = [`# ${t("session.heading", { symbol: session.symbol, date: text(session.analysis_date) })}`, ""];
  out.push(`- ${t("field.status")}: ${statusWord(session.status)}`, `- ${t("md.session")}: ${session.session_id}`, "");
  out.push(`## ${t("session.verdict")}`, "");
  if (!v) {
    const why = ["cancelled", "interrupted", "failed"].includes(session.status) ? t(`verdict.none_${session.status}`) : stageState(session, session.judge);
    out.push(`- ${why}`, "");
  } else {
    const sym = session.symbol;
    const ifEntering = v.action === "HOLD" ? t("verdict.if_entering") : "";
    const level = (value, at) => levelText(value, at, sym);
    out.push(`- ${t("field.action")}: ${actionWord(v.action)}`);
    out.push(`- ${t("field.position")}: ${num(v.position_percent, 1)} %${v.position_shares != null ? ` (${t("verdict.shares", { shares: v.position_shares })})` : ""}`);
    out.push(`- ${t("field.confidence")}: ${confidence(v.confidence)}${v.score == null ? "" : ` (${t("confidence.sentence")})`}`);
    out.push(`- ${t("field.entry")}: ${entryText(levels, sym)}`);
    if (v.action === "HOLD") out.push(`- ${t("verdict.hold_levels")}`);
    out.push(`- ${t("field.stop")}${ifEntering}: ${level(v.stop_loss, levels.stop)}`);
    out.push(`- ${t("field.target")}${ifEntering}: ${level(v.take_profit, levels.target)}`);
    out.push(`- ${t("field.horizon")}: ${enumWord(v.time_horizon)}`);
    out.push(`- ${t("field.score")}: ${typeof v.score === "number" ? t("verdict.score", { score: signed(v.score, 2) }) : t("verdict.score_none")}`);
    out.push(`- ${t("field.rank")}: ${typeof v.universe_rank === "number" ? t("verdict.rank", { pct: Math.round(v.universe_rank * 100) }) : t("verdict.rank_none")}`);
    out.push(`- ${t("field.exposure")}: ${exposureText(v)}`);
    out.push(`- ${t("field.risks")}: ${v.risk_warnings?.length ? text(v.risk_warnings) : t("list.no_risks")}`, "", block(v.reasoning), "");
  }
  if (session.outcome) {
    out.push(`## ${t("session.outcome")}`, "", outcomeText(session.outcome, v?.action, session.symbol), "");
  }
  out.push(`## ${t("session.experts")}`, "");
  for (const expert of session.experts) {
    const record = session.expert_results[expert];
    out.push(`### ${expertName(expert)}`, "");
    if (!record || record.status !== "success") {
      const stoppedBefore = ["cancelled", "interrupted"].includes(session.status) && record?.status !== "failed";
      out.push(stoppedBefore ? `- ${t(`expert.${session.status}`)}` : `- ${t("field.error")}: ${record?.error ? text(record.error) : t("err.no_message")}`, "");
      continue;
    }
    const s = summaryOf(expert, record.data);
    out.push(`- ${t("field.signal")}: ${enumWord(s.signal)} · ${t("field.confidence")}: ${confidence(s.confidence)} · ${t("field.as_of")}: ${text(s.asOf)}`);
    if (s.dataGaps.length) out.push(`- ${t("field.data_gaps")}: ${joinClauses(s.dataGaps.map((g) => phrase(text(g))))}`);
    out.push(`- ${t("field.risk")}: ${s.risk ? text(s.risk) : t("list.no_risk_reported")}`, "", block(s.reasoning), "");
  }
  const d = session.debate_outcome;
  if (d) {
    out.push(`## ${t("session.debate")}`, "");
    const contributions = contributionsMarkdown(d);
    if (contributions.length) out.push(`### ${t("contrib.heading")}`, "", ...contributions, "");
    out.push(`### ${t("session.bull")}`, "", block(d.bull_case?.core_thesis), "");
    out.push(`### ${t("session.bear")}`, "", block(d.bear_case?.core_thesis), "");
    out.push(`### ${t("session.resolution")}`, "", `- ${t("field.direction")}: ${enumWord(d.direction)} · ${t("field.confidence")}: ${confidence(d.confidence)}`, "", block(d.conflict_resolution), "");
  }
  return out.join("\n");
}
