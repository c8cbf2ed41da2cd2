// One session: the chart with the verdict's levels (and the outcome once known), a card per expert, the debate
// (what its score is made of, bull and bear, the resolution), the verdict; retry of what failed; Markdown
// download and print.

import { call, get } from "../api.js";
import { drawChart } from "../chart.js";
import { changesTable, previousOf } from "../compare.js";
import { contributionsChart } from "../contributions.js";
import { h, mount } from "../dom.js";
import { saveFile } from "../download.js";
import { summaryOf } from "../experts.js";
import { errorText, expertError, num, pct, seconds, text } from "../format.js";
import { expertName, statusWord, t } from "../i18n.js";
import { sessionMarkdown } from "../markdown.js";

const DAY = 86400000;

function shiftDay(day, days) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

function level(entry, value) {
  if (!value) return null;
  if (typeof value.price === "number") return value.price;
  if (typeof entry === "number" && typeof value.percent_from_entry === "number") return entry * (1 + value.percent_from_entry / 100);
  return null;
}

function dl(rows) {
  return h("dl", { class: "facts" }, rows.filter(Boolean).map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]));
}

function list(items) {
  return items && items.length ? h("ul", {}, items.map((item) => h("li", {}, typeof item === "object" ? text(item.detail || item.argument || item) : text(item)))) : t("none");
}

function expertCard(expert, record) {
  const card = h("article", { class: "card expert", "data-expert": expert, "data-status": record?.status || "missing" },
    h("h3", {}, expertName(expert)));
  if (!record || record.status !== "success") {
    card.append(h("p", { class: "error" }, expertError(expert, record?.error)));
    return card;
  }
  const s = summaryOf(expert, record.data);
  card.append(dl([
    [t("field.signal"), text(s.signal)],
    [t("field.confidence"), num(s.confidence)],
    [t("field.as_of"), text(s.asOf)],
    [t("field.duration"), seconds(record.duration_ms)],
    [t("field.data_gaps"), list(s.dataGaps)],
    [t("field.staleness"), list(s.staleness)],
    [t("field.risk"), text(s.risk)],
    s.numbersCheck !== undefined && [t("field.numbers_check"), text(s.numbersCheck)],
  ]));
  card.append(h("h4", {}, t("field.reasoning")), h("p", { class: "narrative" }, text(s.reasoning)));
  return card;
}

function side(title, thesis, args, extra) {
  return h("section", { class: "card side" }, h("h3", {}, title), h("p", { class: "narrative" }, text(thesis)),
    h("ul", {}, (args || []).map((a) => h("li", {}, `${text(a.argument)} — ${text(a.evidence)}`))), extra && h("p", { class: "hint" }, text(extra)));
}

function debateSection(session) {
  const d = session.debate_outcome;
  const section = h("section", { id: "debate", "aria-labelledby": "debate-h" }, h("h2", { id: "debate-h" }, t("session.debate")));
  if (!d) {
    section.append(h("p", { class: session.debate?.status === "failed" ? "error" : "hint" },
      `${t(`stage.${session.debate?.status || "pending"}`)}${session.debate?.error ? `: ${session.debate.error}` : ""}`));
    return section;
  }
  const contributions = contributionsChart(d);
  if (contributions) section.append(contributions);
  section.append(h("div", { class: "sides" },
    side(t("session.bull"), d.bull_case?.core_thesis, d.bull_case?.supporting_arguments, d.bull_case?.acknowledged_risks),
    side(t("session.bear"), d.bear_case?.core_thesis, d.bear_case?.supporting_arguments, d.bear_case?.acknowledged_strengths)));
  section.append(h("section", { class: "card resolution" }, h("h3", {}, t("session.resolution")),
    dl([[t("field.direction"), text(d.direction)], [t("field.confidence"), num(d.confidence)]]),
    h("p", { class: "narrative" }, text(d.conflict_resolution)), list(d.key_disagreements)));
  return section;
}

function lotOf(symbol) {
  return /\.(SH|SZ|BJ)$/i.test(symbol) ? 100 : 1;
}

function verdictCard(session, levels) {
  const v = session.verdict;
  const card = h("section", { id: "verdict", class: "card verdict", "aria-labelledby": "verdict-h" }, h("h2", { id: "verdict-h" }, t("session.verdict")));
  if (!v) {
    card.append(h("p", { class: session.judge?.status === "failed" ? "error" : "hint" },
      `${t(`stage.${session.judge?.status || "pending"}`)}${session.judge?.error ? `: ${session.judge.error}` : ""}`));
    return card;
  }
  card.dataset.action = v.action;
  const portfolio = h("input", { id: "portfolio-value", type: "number", min: "0", step: "1000", value: "1000000", inputmode: "numeric" });
  const shares = h("output", { id: "portfolio-shares", for: "portfolio-value" });
  const updateShares = () => {
    const value = Number(portfolio.value);
    const lot = lotOf(session.symbol);
    shares.textContent = levels.entry && value > 0
      ? String(Math.floor((value * v.position_percent) / 100 / levels.entry / lot) * lot)
      : t("none");
  };
  portfolio.addEventListener("input", updateShares);
  updateShares();
  const engine = v.engine || {};
  card.append(
    h("p", { class: `action action-${v.action}` }, v.action),
    dl([
      [t("field.position"), `${num(v.position_percent, 1)} %${v.position_shares != null ? ` · ${v.position_shares}` : ""}`],
      [t("field.confidence"), num(v.confidence)],
      [t("field.entry"), `${num(levels.entry)} · ${text(v.entry_strategy)}`],
      [t("field.stop"), `${num(levels.stop)} (${num(v.stop_loss?.percent_from_entry, 1)} %)`],
      [t("field.target"), `${num(levels.target)} (${num(v.take_profit?.percent_from_entry, 1)} %)`],
      [t("field.horizon"), text(v.time_horizon)],
      v.score !== undefined && [t("field.score"), text(v.score)],
      v.universe_rank !== undefined && [t("field.rank"), text(v.universe_rank)],
      v.market_exposure !== undefined && [t("field.exposure"), text(v.market_exposure)],
      [t("field.risks"), list(v.risk_warnings)],
      [t("field.confidence_means"), t("confidence.means", { value: num(v.confidence) })],
      [t("field.guardrails"), list(v.guardrail_adjustments)],
      [t("field.engine"), Object.entries(engine).map(([k, x]) => `${k}: ${text(x)}`).join(" · ") || t("none")],
    ]),
    h("p", { class: "shares" }, h("label", { for: "portfolio-value" }, t("field.shares")), " ", portfolio, " → ", shares),
    h("h3", {}, t("field.reasoning")), h("p", { class: "narrative" }, text(v.reasoning)),
  );
  return card;
}

async function chartSection(session, levels) {
  const figure = h("figure", { class: "chart-box" });
  const chart = h("div", { id: "price-chart", class: "chart", role: "img", "aria-label": t("session.chart") });
  const caption = h("figcaption", {}, t("session.chart_caption"));
  const outcomeLine = h("p", { id: "outcome", class: "outcome" });
  figure.append(chart, caption, outcomeLine);
  const day = session.analysis_date;
  const outcome = session.outcome;
  if (!day) {
    outcomeLine.textContent = t("session.no_bars", { reason: t("none") });
    return { figure, draw: () => {} };
  }
  const scored = outcome && outcome.status === "scored" && outcome.exit_day;
  const end = scored ? outcome.exit_day : day;
  if (scored) caption.textContent = t("session.chart_caption_after");
  let bars = [];
  try {
    bars = (await get(`/bars/${encodeURIComponent(session.symbol)}?start=${shiftDay(day, -180)}&end=${end}`)).bars;
  } catch (error) {
    outcomeLine.textContent = t("session.no_bars", { reason: errorText(error) });
    return { figure, draw: () => {} };
  }
  const before = bars.filter((b) => b.date.slice(0, 10) <= day);
  levels.entry = outcome?.entry_price ?? before.at(-1)?.close ?? null;
  levels.stop = level(levels.entry, session.verdict?.stop_loss);
  levels.target = level(levels.entry, session.verdict?.take_profit);
  if (outcome) {
    outcomeLine.dataset.status = outcome.status;
    outcomeLine.textContent = scored
      ? t("session.outcome_scored", { day: outcome.exit_day, reason: text(outcome.exit_reason), price: num(outcome.exit_price), ret: pct(outcome.call_return) })
      : t("session.outcome_pending", { reason: text(outcome.reason || outcome.status) });
  }
  const exit = scored ? { day: outcome.exit_day, label: `${text(outcome.exit_reason)} ${pct(outcome.call_return)}` } : null;
  return { figure, draw: () => (bars.length ? drawChart(chart, { bars, levels, analysisDate: day, exit }) : null) };
}

export async function sessionPage(main, route) {
  const session = await get(`/sessions/${encodeURIComponent(route.id)}`);
  const levels = { entry: null, stop: null, target: null };
  const { figure, draw } = await chartSection(session, levels);
  const problem = h("p", { class: "error", role: "alert", id: "session-error" });

  const actions = h("div", { class: "actions no-print" });
  if (session.stages_to_retry?.length) {
    const retry = h("button", { type: "button", id: "retry-session" }, `${t("session.retry")} (${session.stages_to_retry.map(expertName).join(", ")})`);
    retry.addEventListener("click", async () => {
      retry.disabled = true;
      try {
        const answer = await call(`/research/${encodeURIComponent(session.session_id)}/retry`, { method: "POST", extraHeaders: { Prefer: "respond-async" } });
        location.hash = answer.status === 202 ? `#/live/${answer.body.session_id}` : `#/session/${answer.body.session_id}`;
      } catch (error) {
        problem.textContent = errorText(error);
        retry.disabled = false;
      }
    });
    actions.append(retry);
  } else if (session.retried_by) {
    actions.append(h("a", { href: `#/session/${session.retried_by}`, class: "button" }, t("session.retry")));
  }
  const download = h("button", { type: "button", id: "export-markdown" }, t("session.export"));
  download.addEventListener("click", () => {
    const name = `research-${session.symbol}-${session.analysis_date || "session"}.md`;
    saveFile(name, [sessionMarkdown(session, levels)], "text/markdown;charset=utf-8");
  });
  const print = h("button", { type: "button", id: "print-report" }, t("session.print"));
  print.addEventListener("click", () => window.print());
  actions.append(download, print);

  const compare = h("section", { id: "changes", class: "card" });
  mount(main,
    h("h1", {}, t("session.heading", { symbol: session.symbol, date: text(session.analysis_date) })),
    h("p", { class: "status", id: "session-status", "data-status": session.status }, `${t("field.status")}: ${statusWord(session.status)}${session.status_reason ? ` — ${session.status_reason}` : ""}`),
    actions, problem, figure, verdictCard(session, levels),
    h("section", { id: "experts", "aria-labelledby": "experts-h" }, h("h2", { id: "experts-h" }, t("session.experts")),
      h("div", { class: "cards" }, session.experts.map((e) => expertCard(e, session.expert_results[e])))),
    debateSection(session), compare);
  draw();
  previousOf(session).then((before) => {
    mount(compare, h("h2", {}, t("session.compare", { symbol: session.symbol })),
      before ? changesTable(before, session) : h("p", { class: "hint" }, t("session.compare_none")));
  }).catch((error) => mount(compare, h("p", { class: "error" }, errorText(error))));
  return null;
}
