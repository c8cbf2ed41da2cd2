// "What the score is made of" (issue 52): the debate's `contributions` — each voting expert's weight × its factor
// family's score, which add up to the score — as a small bar chart on the session page and as a table in the
// Markdown download; the experts that do not vote are listed with why, in words, and those that failed (not
// heard).

import { h, svg } from "./dom.js";
import { confidence, num, signed, text } from "./format.js";
import { enumWord, expertName, t } from "./i18n.js";

const NOTES = ["market_wide", "events", "no_standing_data", "not_a_family"];
const BAR = 200; // a bar's viewBox width: the zero line in the middle, ±scale at the ends

function finite(value) {
  return typeof value === "number" && Number.isFinite(value);
}

/** The outcome's contributions read for display — `{items, voters, others, failed, sum, weight, score}` (`failed`:
 * the experts asked for that failed, so were not heard) — or null when it has none (an older session, or a debate
 * without the stock's standing). */
export function contributionsOf(outcome) {
  const items = Array.isArray(outcome?.contributions)
    ? outcome.contributions.filter((c) => c && typeof c === "object" && typeof c.expert === "string")
    : [];
  if (!items.length) return null;
  const voters = items.filter((c) => c.votes === true && finite(c.contribution));
  const others = items.filter((c) => !voters.includes(c));
  const sum = voters.reduce((total, c) => total + c.contribution, 0);
  const weight = voters.reduce((total, c) => total + (finite(c.weight) ? c.weight : 0), 0);
  const listed = new Set(items.map((c) => c.expert));
  const failed = Array.isArray(outcome.coverage?.failed_experts)
    ? outcome.coverage.failed_experts.filter((name) => typeof name === "string" && !listed.has(name))
    : [];
  return { items, voters, others, failed, sum, weight, score: finite(outcome.score) ? outcome.score : sum };
}

/** Why an expert does not vote (its contribution's `note`), in words. */
export function noVoteReason(note) {
  return t(NOTES.includes(note) ? `contrib.note.${note}` : "contrib.note.other");
}

/** "+0.154 + 0.047 − 0.042": the voters' contributions as the terms of their sum. */
function terms(voters, minus) {
  return voters
    .map((c, i) => {
      if (i === 0) return signed(c.contribution, 3, minus);
      const magnitude = Math.abs(c.contribution).toFixed(3);
      return `${c.contribution < 0 && Number(magnitude) !== 0 ? minus : "+"} ${magnitude}`;
    })
    .join(" ");
}

function sign(value) {
  return value > 0 ? "positive" : value < 0 ? "negative" : "zero";
}

function bar(value, scale, kind) {
  const half = BAR / 2;
  const length = Math.min(half, (Math.abs(value) / scale) * half);
  return svg("svg", { class: "contrib-bar", viewBox: `0 0 ${BAR} 16`, preserveAspectRatio: "none", "aria-hidden": "true", focusable: "false" },
    svg("rect", { class: `bar-${kind}`, x: value < 0 ? half - length : half, y: 2, width: length, height: 12 }),
    svg("line", { class: "zero-line", x1: half, x2: half, y1: 0, y2: 16, "vector-effect": "non-scaling-stroke" }));
}

function swatch(kind) {
  return svg("svg", { class: "swatch", viewBox: "0 0 12 12", width: 12, height: 12, "aria-hidden": "true", focusable: "false" },
    svg("rect", { class: `bar-${kind}`, x: 0, y: 0, width: 12, height: 12 }));
}

/** The session page's chart: a row per voting expert (its weight, a bar left or right of zero, the value in
 * figures), the total row (the sum, equal to the score), the sum written out, and the non-voting experts with why.
 * Null when the outcome has no contributions. */
export function contributionsChart(outcome) {
  const c = contributionsOf(outcome);
  if (!c) return null;
  const scale = Math.max(0.01, Math.abs(c.score), Math.abs(c.sum), ...c.voters.map((v) => Math.abs(v.contribution)));
  const rows = c.voters.map((v) =>
    h("tr", { class: "contrib-row", "data-expert": v.expert, "data-contribution": v.contribution, "data-weight": v.weight, "data-sign": sign(v.contribution) },
      h("th", { scope: "row" }, h("span", { class: "contrib-name" }, expertName(v.expert)),
        h("span", { class: "contrib-side" }, `${t("field.signal")} ${enumWord(v.signal)} · ${t("field.confidence")} ${confidence(v.confidence)}`)),
      h("td", { class: "num" }, num(v.weight)),
      h("td", { class: "contrib-bar-cell" }, bar(v.contribution, scale, sign(v.contribution))),
      h("td", { class: "num contrib-value" }, signed(v.contribution))));
  return h("section", { id: "contributions", class: "card contributions", "aria-labelledby": "contributions-h", "data-score": c.score, "data-sum": c.sum },
    h("h3", { id: "contributions-h" }, t("contrib.heading")),
    h("p", { class: "hint", id: "contributions-explain" }, t("contrib.explain")),
    h("p", { class: "contrib-legend" },
      h("span", {}, swatch("positive"), " ", t("contrib.adds")), " ",
      h("span", {}, swatch("negative"), " ", t("contrib.takes"))),
    h("table", { class: "contrib-table", "aria-labelledby": "contributions-h", "aria-describedby": "contributions-explain" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("contrib.expert")),
        h("th", { scope: "col", class: "num" }, t("contrib.weight")),
        h("th", { scope: "colgroup", colspan: 2 }, t("contrib.contribution")))),
      h("tbody", {}, rows),
      h("tfoot", {}, h("tr", { class: "contrib-total", "data-total": c.sum, "data-sign": sign(c.sum) },
        h("th", { scope: "row" }, t("contrib.total")),
        h("td", { class: "num" }, num(c.weight)),
        h("td", { class: "contrib-bar-cell" }, bar(c.sum, scale, "total")),
        h("td", { class: "num contrib-value", id: "contributions-total" }, signed(c.sum))))),
    h("p", { id: "contributions-sum" }, t("contrib.equation", { terms: terms(c.voters, "\u2212") || signed(0), sum: signed(c.sum), score: signed(c.score) })),
    c.others.length || c.failed.length
      ? h("ul", { class: "contrib-others" },
        c.others.map((o) =>
          h("li", { "data-expert": o.expert, "data-note": o.note || "" }, t("contrib.no_vote", { expert: expertName(o.expert), reason: noVoteReason(o.note) }))),
        c.failed.map((name) => h("li", { "data-expert": name, "data-note": "failed" }, t("contrib.failed", { expert: expertName(name) }))))
      : null);
}

function cell(value) {
  return String(value).replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

function row(cells) {
  return `| ${cells.map(cell).join(" | ")} |`;
}

/** The Markdown download's lines: `| expert | signal | confidence | weight | contribution |`, a row per expert, the
 * total row (the sum, equal to the score), the sum written out, why each non-voting expert does not vote and who
 * failed.
 * Plain hyphen minus signs, so the figures paste into a spreadsheet. Empty without contributions. */
export function contributionsMarkdown(outcome) {
  const c = contributionsOf(outcome);
  if (!c) return [];
  const figure = (value) => signed(value, 3, "-");
  const lines = [
    row([t("md.expert"), t("md.signal"), t("md.confidence"), t("md.weight"), t("md.contribution")]),
    "|---|---|---:|---:|---:|",
    ...c.items.map((item) => row([expertName(item.expert), enumWord(item.signal), num(item.confidence), num(item.weight), figure(finite(item.contribution) ? item.contribution : 0)])),
    row([`**${t("contrib.total")}**`, "", "", num(c.weight), `**${figure(c.sum)}**`]),
    "",
    t("contrib.equation", { terms: terms(c.voters, "-") || figure(0), sum: figure(c.sum), score: figure(c.score) }),
  ];
  if (c.others.length || c.failed.length) {
    lines.push("",
      ...c.others.map((o) => `- ${t("contrib.no_vote", { expert: expertName(o.expert), reason: noVoteReason(o.note) })}`),
      ...c.failed.map((name) => `- ${t("contrib.failed", { expert: expertName(name) })}`));
  }
  return lines;
}
