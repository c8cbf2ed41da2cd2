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
import { confidence, errorText, pct, seconds, text, tickDigits } from "../format.js";
import { enumWord, expertName, joinNames, stageName, statusWord, t } from "../i18n.js";
import { levelsOf } from "../levels.js";
import { sessionMarkdown } from "../markdown.js";
import { outcomeText } from "../outcome.js";
import { phrase } from "../phrases.js";
import { dl, expertMissing, folded, serviceList, stageState, verdictCard } from "../verdict-card.js";

const DAY = 86400000;

function shiftDay(day, days) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

/** A data gap or staleness note, each in the reader's language when the catalogue knows it (else as the service
 * wrote it, marked as its text). */
function notes(items, empty) {
  if (!items || !items.length) return empty;
  return h("ul", {}, items.map((item) => {
    const said = typeof item === "object" ? text(item.detail || item) : text(item);
    const words = phrase(said);
    return h("li", words === said ? { class: "narrative" } : {}, words);
  }));
}

/** What the numbers gate found: figures checked, traced, the rest listed as the model wrote them. */
function numbersCheck(check) {
  if (!check || typeof check !== "object") return t("numbers.none");
  const unverified = Array.isArray(check.unverified) ? check.unverified : [];
  return h("span", {}, t("numbers.summary", { checked: check.checked ?? 0, traced: check.traced ?? 0, unverified: unverified.length }),
    check.repaired ? ` ${t("numbers.repaired")}` : "",
    unverified.length ? h("ul", { class: "narrative" }, unverified.map((f) => h("li", {}, `${text(f.text)} (${text(f.field)})`))) : null);
}

function expertCard(session, expert, record) {
  const card = h("article", { class: "card expert", "data-expert": expert, "data-status": record?.status || "missing" },
    h("h3", {}, expertName(expert)));
  if (!record || record.status !== "success") {
    card.append(expertMissing(session, expert, record));
    return card;
  }
  const s = summaryOf(expert, record.data);
  card.append(dl([
    [t("field.signal"), enumWord(s.signal)],
    [t("field.confidence"), confidence(s.confidence)],
    [t("field.as_of"), text(s.asOf)],
    [t("field.duration"), seconds(record.duration_ms)],
    [t("field.data_gaps"), notes(s.dataGaps, t("list.no_gaps"))],
    [t("field.staleness"), notes(s.staleness, t("list.no_staleness"))],
    [t("field.risk"), s.risk ? h("span", { class: "narrative" }, s.risk) : t("list.no_risk_reported")],
    s.numbersCheck !== undefined && [t("field.numbers_check"), numbersCheck(s.numbersCheck)],
  ]));
  card.append(h("h4", {}, t("field.reasoning")), folded(s.reasoning, "reasoning"));
  return card;
}

function side(title, thesis, args, extra) {
  return h("section", { class: "card side" }, h("h3", {}, title), folded(thesis),
    h("ul", { class: "narrative" }, (args || []).map((a) => h("li", {}, `${text(a.argument)} — ${text(a.evidence)}`))),
    extra && extra.length ? h("p", { class: "hint narrative" }, text(extra)) : null);
}

function debateSection(session) {
  const d = session.debate_outcome;
  const section = h("section", { id: "debate", "aria-labelledby": "debate-h" }, h("h2", { id: "debate-h" }, t("session.debate")));
  if (!d) {
    section.append(h("p", { class: session.debate?.status === "failed" ? "error" : "hint", id: "debate-none" }, stageState(session, session.debate)));
    return section;
  }
  const contributions = contributionsChart(d);
  if (contributions) section.append(contributions);
  section.append(h("div", { class: "sides" },
    side(t("session.bull"), d.bull_case?.core_thesis, d.bull_case?.supporting_arguments, d.bull_case?.acknowledged_risks),
    side(t("session.bear"), d.bear_case?.core_thesis, d.bear_case?.supporting_arguments, d.bear_case?.acknowledged_strengths)));
  section.append(h("section", { class: "card resolution" }, h("h3", {}, t("session.resolution")),
    dl([[t("field.direction"), enumWord(d.direction)], [t("field.confidence"), confidence(d.confidence)]]),
    folded(d.conflict_resolution), serviceList(d.key_disagreements, t("list.no_disagreements"))));
  return section;
}

async function chartSection(session) {
  const figure = h("figure", { class: "chart-box" });
  const chart = h("div", { id: "price-chart", class: "chart", role: "img", "aria-label": t("session.chart") });
  const caption = h("figcaption", {}, t("session.chart_caption"));
  const outcomeLine = h("p", { id: "outcome", class: "outcome" });
  figure.append(chart, caption, outcomeLine);
  if (session.verdict && typeof levelsOf(session.verdict).entry !== "number") {
    figure.append(h("p", { class: "hint", id: "chart-no-price" }, t("verdict.no_price")));
  }
  const day = session.analysis_date;
  const outcome = session.outcome;
  const none = { figure, levels: levelsOf(session.verdict), draw: () => {} };
  if (!day) {
    outcomeLine.textContent = t("session.no_bars", { reason: t("session.no_date") });
    return none;
  }
  const scored = outcome && outcome.status === "scored" && outcome.exit_day;
  const end = scored ? outcome.exit_day : day;
  if (scored) caption.textContent = t("session.chart_caption_after");
  let bars = [];
  try {
    bars = (await get(`/bars/${encodeURIComponent(session.symbol)}?start=${shiftDay(day, -180)}&end=${end}`)).bars;
  } catch (error) {
    outcomeLine.textContent = t("session.no_bars", { reason: errorText(error) });
    return none;
  }
  const levels = levelsOf(session.verdict);
  if (outcome) {
    outcomeLine.dataset.status = outcome.status;
    outcomeLine.textContent = outcomeText(outcome, session.verdict?.action, session.symbol);
  }
  const hold = session.verdict?.action === "HOLD";
  const ret = hold ? pct(outcome?.underlying_return) : pct(outcome?.call_return);
  const exit = scored ? { day: outcome.exit_day, price: outcome.exit_price, ret } : null;
  const digits = tickDigits(session.symbol);
  const draw = () => (bars.length ? drawChart(chart, { bars, levels, digits, symbol: session.symbol, analysisDate: day, exit, hold }) : null);
  return { figure, levels, draw };
}

export async function sessionPage(main, route) {
  const session = await get(`/sessions/${encodeURIComponent(route.id)}`);
  const { figure, levels, draw } = await chartSection(session);
  const problem = h("p", { class: "error", role: "alert", id: "session-error" });

  const actions = h("div", { class: "actions no-print" });
  if (session.stages_to_retry?.length) {
    const retry = h("button", { type: "button", id: "retry-session" }, `${t("session.retry")} (${joinNames(session.stages_to_retry.map(stageName))})`);
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
    h("p", { class: "status", id: "session-status", "data-status": session.status }, `${t("field.status")}: ${statusWord(session.status)}`,
      session.status_reason ? h("span", { class: "narrative" }, ` — ${session.status_reason}`) : null),
    actions, problem, figure, verdictCard(session, levels),
    h("section", { id: "experts", "aria-labelledby": "experts-h" }, h("h2", { id: "experts-h" }, t("session.experts")),
      h("div", { class: "cards" }, session.experts.map((e) => expertCard(session, e, session.expert_results[e])))),
    debateSection(session), compare);
  draw();
  previousOf(session).then((before) => {
    mount(compare, h("h2", {}, t("session.compare", { symbol: session.symbol })),
      before ? changesTable(before, session) : h("p", { class: "hint" }, t("session.compare_none")));
  }).catch((error) => mount(compare, h("p", { class: "error" }, errorText(error))));
  return null;
}
