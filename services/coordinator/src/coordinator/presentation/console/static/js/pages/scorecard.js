// Scorecard: per-action hit rates and returns with their intervals, and the reliability chart (confidence
// against hit rate per decile, with the interval of each bin), from GET /api/v1/coordinator/scorecard.

import { get } from "../api.js";
import { h, mount, svg } from "../dom.js";
import { estimate, num } from "../format.js";
import { t } from "../i18n.js";

function reliability(calibration) {
  const size = 260;
  const pad = 32;
  const x = (v) => pad + v * (size - 2 * pad);
  const y = (v) => size - pad - v * (size - 2 * pad);
  const bins = (calibration.bins || []).filter((b) => b.n > 0 && b.hit_rate && b.hit_rate.value !== null);
  const chart = svg("svg", { viewBox: `0 0 ${size} ${size}`, width: size, height: size, role: "img", id: "reliability-chart", "aria-labelledby": "reliability-h", "data-bins": bins.length },
    svg("rect", { x: pad, y: pad, width: size - 2 * pad, height: size - 2 * pad, fill: "none", stroke: "#9aa4b2" }),
    svg("line", { x1: x(0), y1: y(0), x2: x(1), y2: y(1), stroke: "#9aa4b2", "stroke-dasharray": "4 4" }),
    svg("text", { x: size / 2, y: size - 6, "text-anchor": "middle", "font-size": 11 }, t("field.confidence")),
    svg("text", { x: 10, y: size / 2, "font-size": 11, transform: `rotate(-90 10 ${size / 2})`, "text-anchor": "middle" }, t("score.hit_rate")),
    bins.map((b) => {
      const cx = x(b.mean_confidence);
      return svg("g", { class: "bin" },
        svg("line", { x1: cx, x2: cx, y1: y(b.hit_rate.low), y2: y(b.hit_rate.high), stroke: "#1f5fbf" }),
        svg("circle", { cx, cy: y(b.hit_rate.value), r: 3 + Math.min(6, Math.sqrt(b.n)), fill: "#1f5fbf" },
          svg("title", {}, `${num(b.mean_confidence)} → ${estimate(b.hit_rate)}`)));
    }));
  return chart;
}

export async function scorecardPage(main) {
  const card = await get("/scorecard");
  const rows = Object.entries(card.per_action || {}).map(([action, a]) =>
    h("tr", { "data-action": action },
      h("th", { scope: "row" }, action),
      h("td", {}, String(a.count)),
      h("td", {}, a.hit_rate ? estimate(a.hit_rate) : t("none")),
      h("td", {}, estimate(a.call_return?.mean)),
      h("td", {}, estimate(a.realised_return?.mean))));
  const brier = card.calibration?.brier;
  mount(main,
    h("h1", {}, t("score.heading")),
    h("p", { id: "scorecard-counts" }, t("score.sessions", card)),
    rows.length
      ? h("table", { id: "scorecard-table" },
        h("thead", {}, h("tr", {}, [t("score.action"), t("score.count"), t("score.hit_rate"), t("score.call_return"), t("score.realised")].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows))
      : h("p", { class: "hint" }, t("score.none")),
    h("section", { class: "card" }, h("h2", { id: "reliability-h" }, t("score.reliability")), reliability(card.calibration || {}),
      brier ? h("p", {}, t("score.brier", { score: num(brier.score, 3), base: num(brier.base_rate, 3), skill: num(brier.skill, 3) })) : null),
    h("p", { class: "hint" }, card.method));
  return null;
}
