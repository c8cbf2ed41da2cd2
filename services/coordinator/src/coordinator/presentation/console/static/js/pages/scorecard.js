// Scorecard: per-action hit rates and returns (an interval only from 10 outcomes up), each statistic explained in a
// line, and the reliability chart (confidence against hit rate per bin, both axes with values, each bin's interval)
// with the Brier score, from GET /api/v1/coordinator/scorecard.

import { get } from "../api.js";
import { h, mount, svg } from "../dom.js";
import { confidence, num, pct } from "../format.js";
import { actionWord, t } from "../i18n.js";

const MIN_INTERVAL_N = 10; // fewer outcomes than this: the value alone, no interval
const TICKS = [0, 0.25, 0.5, 0.75, 1];

/** An estimate {value, low, high, n}: "55.0 % [41.0 %, 68.0 %] (n=40)", the value alone under 10 outcomes. */
export function estimateText(e, asPct = true) {
  if (!e || e.value === null || e.value === undefined) return t("none");
  const f = asPct ? (v) => pct(v) : (v) => num(v, 3);
  if (!(e.n >= MIN_INTERVAL_N) || e.low === null || e.high === null) return t("score.too_few", { value: f(e.value), n: e.n ?? 0 });
  return t("score.interval", { value: f(e.value), low: f(e.low), high: f(e.high), n: e.n });
}

function reliability(calibration) {
  const size = 300;
  const pad = 44;
  const left = 58; // room for the tick labels ("100 %") and, left of them, the rotated axis title
  const x = (v) => left + v * (size - left - pad);
  const y = (v) => size - pad - v * (size - 2 * pad);
  const bins = (calibration.bins || []).filter((b) => b.n > 0 && b.hit_rate && b.hit_rate.value !== null);
  return svg("svg", { viewBox: `0 0 ${size} ${size}`, width: size, height: size, role: "img", id: "reliability-chart", "aria-labelledby": "reliability-h", "data-bins": bins.length },
    svg("rect", { x: left, y: pad, width: size - left - pad, height: size - 2 * pad, fill: "none", stroke: "#9aa4b2" }),
    svg("line", { x1: x(0), y1: y(0), x2: x(1), y2: y(1), stroke: "#9aa4b2", "stroke-dasharray": "4 4" }),
    TICKS.map((v) => svg("g", { class: "tick" },
      svg("line", { x1: x(v), x2: x(v), y1: y(0), y2: y(0) + 4, stroke: "#4a4f59" }),
      svg("text", { class: "tick-x", x: x(v), y: y(0) + 16, "text-anchor": "middle", "font-size": 10 }, `${Math.round(v * 100)} %`),
      svg("line", { x1: x(0) - 4, x2: x(0), y1: y(v), y2: y(v), stroke: "#4a4f59" }),
      svg("text", { class: "tick-y", x: x(0) - 6, y: y(v) + 3, "text-anchor": "end", "font-size": 10 }, `${Math.round(v * 100)} %`))),
    svg("text", { x: x(0.5), y: size - 8, "text-anchor": "middle", "font-size": 11 }, t("score.axis_confidence")),
    svg("text", { id: "reliability-y-title", x: 14, y: y(0.5), "font-size": 11, transform: `rotate(-90 14 ${y(0.5)})`, "text-anchor": "middle" }, t("score.axis_hit_rate")),
    bins.map((b) => {
      const cx = x(b.mean_confidence);
      const interval = b.n >= MIN_INTERVAL_N && b.hit_rate.low !== null && b.hit_rate.high !== null;
      return svg("g", { class: "bin" },
        interval ? svg("line", { x1: cx, x2: cx, y1: y(b.hit_rate.low), y2: y(b.hit_rate.high), stroke: "#1f5fbf" }) : null,
        svg("circle", { cx, cy: y(b.hit_rate.value), r: 3 + Math.min(6, Math.sqrt(b.n)), fill: "#1f5fbf" },
          svg("title", {}, `${confidence(b.mean_confidence)} → ${estimateText(b.hit_rate)}`)));
    }));
}

function brierLines(brier) {
  if (!brier || typeof brier.score !== "number") return [h("p", { id: "scorecard-brier" }, t("score.no_brier"))];
  return [
    h("p", { id: "scorecard-brier" }, t("score.brier_plain", { score: num(brier.score, 3), base: num(brier.base_rate, 3), reference: num(brier.base_rate_score, 3) })),
    h("p", { id: "scorecard-skill" }, typeof brier.skill === "number" ? t("score.skill", { skill: num(brier.skill, 3) }) : t("score.skill_none")),
  ];
}

export async function scorecardPage(main) {
  const card = await get("/scorecard");
  const rows = Object.entries(card.per_action || {}).map(([action, a]) => {
    // A cell without a value says why: no call of this action yet, or too few scored outcomes to measure it.
    const why = a.count ? t("score.not_measured") : t("score.no_calls");
    const cell = (e) => (e && e.value !== null && e.value !== undefined ? estimateText(e) : why);
    const callReturn = action === "HOLD" && a.call_return?.mean?.value == null ? t("score.hold_no_return") : cell(a.call_return?.mean);
    return h("tr", { "data-action": action },
      h("th", { scope: "row" }, actionWord(action)),
      h("td", { class: "score-count" }, t("score.count_cell", { count: a.count ?? 0, scored: a.scored ?? 0 })),
      h("td", {}, cell(a.hit_rate)),
      h("td", {}, callReturn),
      // A HOLD takes no position: its realised return is 0 by definition, not an estimate with an interval.
      h("td", { class: "score-realised" }, action === "HOLD" ? t("score.hold_realised") : cell(a.realised_return?.mean)));
  });
  const explain = ["count", "hit_rate", "call_return", "realised"].map((key) => h("li", {}, t(`score.explain.${key}`)));
  mount(main,
    h("h1", {}, t("score.heading")),
    h("p", { id: "scorecard-counts" }, t("score.sessions", card)),
    rows.length
      ? h("table", { id: "scorecard-table" },
        h("thead", {}, h("tr", {}, [t("score.action"), t("score.count"), t("score.hit_rate"), t("score.call_return"), t("score.realised")].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows))
      : h("p", { class: "hint" }, t("score.none")),
    h("ul", { class: "hint explain", id: "scorecard-explain" }, explain),
    h("section", { class: "card" }, h("h2", { id: "reliability-h" }, t("score.reliability")), reliability(card.calibration || {}),
      h("p", { class: "hint" }, t("score.explain.reliability")),
      ...brierLines(card.calibration?.brier),
      h("p", { class: "hint" }, t("score.explain.brier"))),
    h("p", { class: "hint", id: "scorecard-method" }, t("score.method"), " ", h("code", {}, card.method || t("score.method_doc"))));
  return null;
}
