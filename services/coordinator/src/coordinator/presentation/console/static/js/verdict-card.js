// The session page's verdict card: the action, the position, one entry price with the stop and the target measured
// from it (a HOLD's said to apply only if entering), the score, rank and market exposure in sentences, the risks,
// what the confidence means, the guardrails, the engine, and the reasoning whole.

import { isAShare, upDown } from "./colors.js";
import { add, h, longText } from "./dom.js";
import { confidence, expertError, num, pct, price, signed, signedPct, text } from "./format.js";
import { actionWord, enumWord, hasWord, t } from "./i18n.js";

export function dl(rows) {
  return h("dl", { class: "facts" }, rows.filter(Boolean).map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]));
}

/** A list of a service's texts (each whole), or `empty` (a sentence saying there are none). */
export function serviceList(items, empty = t("none")) {
  return items && items.length
    ? h("ul", { class: "narrative" }, items.map((item) => h("li", {}, typeof item === "object" ? text(item.detail || item.argument || item) : text(item))))
    : empty;
}

/** A service's text whole, folded when long; `className` names it for the page's tests (e.g. "reasoning"). */
export function folded(value, className = "") {
  return longText(text(value), { more: t("text.more"), less: t("text.less") }, className ? { class: className } : {});
}

/** A peer's failure as the coordinator records it ("research 422 insufficient_history: …"): its problem code. */
const FAILURE = /^(?:research|debate|judge) \d{3} ([a-z_]+): /;

/** "Technical analyst failed: " in the reader's language, then why: in the reader's words when the failure's code
 * is a known one (the service's own message folded beneath), else the service's message as it wrote it. */
export function failure(expert, message) {
  if (!message) return h("p", { class: "error" }, expertError(expert, t("err.no_message")));
  const code = FAILURE.exec(message)?.[1];
  if (code && hasWord(`err.code.${code}`)) {
    return h("div", { class: "error" },
      h("p", {}, expertError(expert, t(`err.code.${code}`))),
      h("details", {}, h("summary", {}, t("err.service_text")), h("p", { class: "narrative" }, message)));
  }
  return h("p", { class: "error" }, expertError(expert, ""), h("span", { class: "narrative" }, message));
}

/** Whether the session stopped before its end (cancelled or interrupted): what had not finished never will. */
export function stopped(session) {
  return ["cancelled", "interrupted"].includes(session.status);
}

/** A stage's state in words (debate, judge): a stopped session's unfinished stage is cancelled, not waiting. */
export function stageState(session, stage) {
  const status = stage?.status || "pending";
  const state = stopped(session) && ["pending", "running"].includes(status) ? session.status : status;
  return `${t(`stage.${state}`)}${stage?.error ? `: ${stage.error}` : ""}`;
}

/** Why an expert has no result: its stage stopped with the session, or it failed (and the service's message). */
export function expertMissing(session, expert, record) {
  if (stopped(session) && record?.status !== "failed") return h("p", { class: "hint" }, t(`expert.${session.status}`));
  return failure(expert, record?.error);
}

/** A stop or a target: its price and its percent from the entry; without a price, its percent alone, or why none. */
export function levelText(value, levelPrice, symbol) {
  const percent = value?.percent_from_entry;
  if (typeof levelPrice !== "number") return typeof percent === "number" ? t("verdict.level_pct", { pct: signedPct(percent) }) : t("verdict.no_price");
  return t("verdict.level", { price: price(levelPrice, symbol), pct: signedPct(percent) });
}

/** The entry: the reference price and its day, or a sentence saying there is no price to act on. */
export function entryText(levels, symbol) {
  if (typeof levels.entry !== "number") return t("verdict.no_price");
  return levels.entryDay
    ? t("verdict.entry", { price: price(levels.entry, symbol), day: levels.entryDay })
    : t("verdict.entry_no_day", { price: price(levels.entry, symbol) });
}

/** The engine: its kind in words, the model's name as an identifier, a fallback's reason as the service wrote it. */
function engineText(engine) {
  const parts = Object.entries(engine || {}).filter(([, x]) => x !== null && x !== undefined && x !== "");
  if (!parts.length) return t("verdict.engine_none");
  const value = (k, x) => (k === "kind" ? enumWord(x) : k === "model" ? h("code", {}, text(x)) : h("span", { class: "narrative" }, text(x)));
  return h("span", {}, parts.map(([k, x], i) => [i ? " · " : "", `${t(`engine.${k}`)}: `, value(k, x)]));
}

/** The market exposure in a sentence: what the market view keeps of the position (a HOLD's: would keep), or why it
 * is not set. */
export function exposureText(v) {
  if (typeof v.market_exposure !== "number") return t("verdict.exposure_none");
  return t(v.action === "HOLD" ? "verdict.exposure_hold" : "verdict.exposure", { pct: pct(v.market_exposure, 0) });
}

/** Why the session has no verdict, in words: cancelled, interrupted, failed, or the judge's stage. */
function noVerdict(session) {
  if (["cancelled", "interrupted", "failed"].includes(session.status)) {
    return h("p", { class: session.status === "failed" ? "error" : "hint", id: "verdict-none" }, t(`verdict.none_${session.status}`));
  }
  return h("p", { class: session.judge?.status === "failed" ? "error" : "hint", id: "verdict-none" }, stageState(session, session.judge));
}

/** The card; `levels` {entry, entryDay, stop, target}. */
export function verdictCard(session, levels) {
  const v = session.verdict;
  const card = h("section", { id: "verdict", class: "card verdict", "aria-labelledby": "verdict-h" }, h("h2", { id: "verdict-h" }, t("session.verdict")));
  if (!v) {
    card.append(noVerdict(session));
    return card;
  }
  const symbol = session.symbol;
  card.dataset.action = v.action;
  if (upDown(symbol).redUp) card.classList.add("red-up");
  const portfolio = h("input", { id: "portfolio-value", type: "number", min: "0", step: "1000", value: "1000000", inputmode: "numeric" });
  const shares = h("output", { id: "portfolio-shares", for: "portfolio-value" });
  const updateShares = () => {
    const value = Number(portfolio.value);
    const lot = isAShare(symbol) ? 100 : 1;
    if (!levels.entry) shares.textContent = t("verdict.no_price");
    else if (!(value > 0)) shares.textContent = t("verdict.shares_no_value");
    else shares.textContent = t("verdict.shares", { shares: Math.floor((value * v.position_percent) / 100 / levels.entry / lot) * lot });
  };
  portfolio.addEventListener("input", updateShares);
  updateShares();
  const hold = v.action === "HOLD";
  const ifEntering = hold ? t("verdict.if_entering") : "";
  const entry = entryText(levels, symbol);
  add(card,
    h("p", { class: `action action-${v.action}`, "data-action": v.action }, actionWord(v.action)),
    hold ? h("p", { class: "hint", id: "verdict-hold-levels" }, t("verdict.hold_levels")) : null,
    dl([
      [t("field.position"), `${num(v.position_percent, 1)} %${v.position_shares != null ? ` · ${t("verdict.shares", { shares: v.position_shares })}` : ""}`],
      [t("field.confidence"), confidence(v.confidence)],
      [t("field.entry"), h("span", { id: "verdict-entry", "data-price": levels.entry ?? "" }, entry)],
      v.entry_strategy && [t("field.entry_strategy"), h("span", { class: "narrative" }, v.entry_strategy)],
      [`${t("field.stop")}${ifEntering}`, levelText(v.stop_loss, levels.stop, symbol)],
      [`${t("field.target")}${ifEntering}`, levelText(v.take_profit, levels.target, symbol)],
      [t("field.horizon"), enumWord(v.time_horizon)],
      [t("field.score"), h("span", { id: "verdict-score" }, typeof v.score === "number" ? t("verdict.score", { score: signed(v.score, 2) }) : t("verdict.score_none"))],
      [t("field.rank"), h("span", { id: "verdict-rank" }, typeof v.universe_rank === "number" ? t("verdict.rank", { pct: Math.round(v.universe_rank * 100) }) : t("verdict.rank_none"))],
      [t("field.exposure"), h("span", { id: "verdict-exposure" }, exposureText(v))],
      [t("field.risks"), serviceList(v.risk_warnings, t("list.no_risks"))],
      [t("field.confidence_means"), t("confidence.means", { value: confidence(v.confidence) })],
      [t("field.guardrails"), serviceList(v.guardrail_adjustments, t("list.no_guardrails"))],
      [t("field.engine"), engineText(v.engine)],
    ]),
    h("p", { class: "shares" }, h("label", { for: "portfolio-value" }, t("field.shares")), " ", portfolio, " → ", shares),
    h("h3", {}, t("field.reasoning")), folded(v.reasoning, "reasoning"),
  );
  return card;
}
