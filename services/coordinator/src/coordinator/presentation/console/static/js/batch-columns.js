// The ranked table's columns, each once: its header, how it sorts, its cell on the page and its value(s) in the
// CSV download (the figures as numbers, unformatted; the words in the reader's language).

import { h, svg } from "./dom.js";
import { EXPERTS, confidence, pct, signed } from "./format.js";
import { actionWord, expertName, shortExpertName, statusWord, t } from "./i18n.js";

const BAR = 60; // a contribution bar's width (px), zero in the middle
const LINE = 13; // a contribution's height (px): a line of the figures beside the bars

function actionCell(row) {
  if (!row.action) return h("span", { class: "status-word" }, statusWord(row.status));
  return h("span", { class: `action-word action-${row.action}`, "data-action": row.action }, actionWord(row.action));
}

function changeText(change) {
  if (!change) return "";
  const before = change.before ? actionWord(change.before) : t("none");
  return t(`batch.change.${change.kind}`, { before });
}

/** Each voting expert's contribution as a small bar left or right of zero, with the figures written beside. */
function contributionsCell(row) {
  if (!row.contributions) return t("none");
  const scale = Math.max(0.01, ...row.contributions.map((c) => Math.abs(c.contribution)));
  const height = row.contributions.length * LINE;
  const bars = svg("svg", { class: "contrib-mini", width: BAR, height, viewBox: `0 0 ${BAR} ${height}`, "aria-hidden": "true", focusable: "false" },
    row.contributions.map((c, i) => {
      const length = (Math.abs(c.contribution) / scale) * (BAR / 2);
      const kind = c.contribution > 0 ? "positive" : c.contribution < 0 ? "negative" : "zero";
      return svg("rect", { class: `bar-${kind}`, x: c.contribution < 0 ? BAR / 2 - length : BAR / 2, y: i * LINE + 3, width: length, height: LINE - 6 });
    }),
    svg("line", { class: "zero-line", x1: BAR / 2, x2: BAR / 2, y1: 0, y2: height }));
  const terms = row.contributions.map((c) =>
    h("span", { class: "contrib-term", "data-expert": c.expert, "data-contribution": c.contribution }, `${shortExpertName(c.expert)} ${signed(c.contribution)}`));
  return h("span", { class: "contrib-cell" }, bars, h("span", { class: "contrib-terms" }, terms));
}

function figure(value, show) {
  return typeof value === "number" && Number.isFinite(value) ? show(value) : t("none");
}

/** One CSV column per expert that votes in any row: its contribution. */
function contributionFields(rows) {
  const voting = new Set(rows.flatMap((row) => (row.contributions || []).map((c) => c.expert)));
  return EXPERTS.filter((e) => voting.has(e)).map((e) => [`${t("contrib.contribution")}: ${expertName(e)}`,
    (row) => row.contributions?.find((c) => c.expert === e)?.contribution ?? null]);
}

/** The columns for a batch; `withChange` when it has a previous run to compare with. A column: {key, label,
 * numeric, sortable, first (the first click's direction), cell(row, sparklines), csv: [[header, value(row)], ...]
 * or a function of the rows giving them}. */
export function batchColumns({ withChange }) {
  const columns = [
    { key: "rank", label: t("batch.col.rank"), numeric: true, sortable: true, first: "asc",
      cell: (row) => String(row.rank), csv: [[t("batch.col.rank"), (row) => row.rank]] },
    { key: "symbol", label: t("field.symbol"), sortable: true, first: "asc",
      cell: (row) => h("a", { href: `#/session/${encodeURIComponent(row.session_id)}`, class: "symbol" }, row.symbol),
      csv: [[t("field.symbol"), (row) => row.symbol]] },
    { key: "action", label: t("field.action"), sortable: true, first: "asc", cell: actionCell,
      csv: [[t("field.action"), (row) => (row.action ? actionWord(row.action) : statusWord(row.status))]] },
    { key: "score", label: t("field.score"), numeric: true, sortable: true, first: "desc",
      cell: (row) => figure(row.score, (v) => signed(v)), csv: [[t("field.score"), (row) => row.score]] },
    { key: "contributions", label: t("batch.col.contributions"), cell: contributionsCell,
      csv: contributionFields },
    { key: "universe_rank", label: t("field.rank"), numeric: true, sortable: true, first: "desc",
      cell: (row) => figure(row.universe_rank, (v) => pct(v, 0)), csv: [[t("field.rank"), (row) => row.universe_rank]] },
    { key: "position_percent", label: t("batch.col.position"), numeric: true, sortable: true, first: "desc",
      cell: (row) => figure(row.position_percent, (v) => v.toFixed(1)), csv: [[t("batch.col.position"), (row) => row.position_percent]] },
    { key: "confidence", label: t("field.confidence"), numeric: true, sortable: true, first: "desc",
      cell: (row) => figure(row.confidence, confidence), csv: [[t("field.confidence"), (row) => row.confidence]] },
    { key: "sparkline", label: t("batch.col.sparkline"), cell: (row, sparklines) => sparklines.cell(row.symbol), csv: [] },
  ];
  if (withChange) {
    columns.push({ key: "change", label: t("batch.col.change"), sortable: true, first: "asc",
      cell: (row) => h("span", { class: `change change-${row.change?.kind || "none"}`, "data-change": row.change?.kind || "" }, changeText(row.change) || t("none")),
      csv: [[t("batch.col.change"), (row) => changeText(row.change)]] });
  }
  columns.push({ key: "session", label: t("batch.col.session"), hidden: true, csv: [[t("batch.col.session"), (row) => row.session_id]] });
  return columns;
}
