// The session's price chart (TradingView lightweight-charts, vendored): daily candles (up/down colours by the
// reader's convention) and volume in the bottom fifth, the entry, stop and target (and the exit price once the
// outcome is known) as price lines whose labels are placed so that they never overlap, the analysis date and the
// exit day marked. What is drawn is also written on the container as data attributes (data-price-lines, data-bars,
// ...), so a test or a screen-reader summary can read it.

import {
  CandlestickSeries,
  HistogramSeries,
  LineStyle,
  createChart,
  createSeriesMarkers,
} from "../vendor/lightweight-charts/lightweight-charts.standalone.production.mjs";
import { upDown } from "./colors.js";
import { h } from "./dom.js";
import { locale, t } from "./i18n.js";

const COLORS = { entry: "#1f5fbf", stop: "#b3261e", target: "#17733a", exit: "#6b3fa0" };
const LABEL_GAP = 2; // px between two stacked labels

/** A tick-mark label: the year, the month's name, or the month and day (never a bare day number). */
function tickMark(time, type) {
  const day = typeof time === "string" ? new Date(`${time}T00:00:00Z`) : new Date(Number(time) * 1000);
  const fmt = (options) => day.toLocaleDateString(locale(), { timeZone: "UTC", ...options });
  if (type === 0) return fmt({ year: "numeric" });
  if (type === 1) return fmt({ month: "short" });
  return fmt({ month: "short", day: "numeric" });
}

/** Tops (px) for labels wanted at `ys` (each `height` tall) inside [0, limit]: in order, none overlapping. */
export function placeLabels(ys, height, limit) {
  const order = ys.map((y, i) => [y - height / 2, i]).sort((a, b) => a[0] - b[0]);
  const tops = new Array(ys.length);
  let floor = 0;
  for (const [want, i] of order) {
    tops[i] = Math.max(want, floor);
    floor = tops[i] + height + LABEL_GAP;
  }
  // Pushed past the bottom: shift the stack up from the last one.
  let ceiling = limit - height;
  for (const [, i] of [...order].reverse()) {
    if (tops[i] <= ceiling) break;
    tops[i] = ceiling;
    ceiling = tops[i] - height - LABEL_GAP;
  }
  return tops;
}

/**
 * Draw into `container`: `bars` [{date, open, high, low, close, volume}], `levels` {entry, stop, target} (prices,
 * any may be null), `digits` (the market's tick precision), `symbol`, `analysisDate` (YYYY-MM-DD), `exit`
 * {day, price, ret} or null, `hold` (a HOLD's stop and target are labelled as applying only if entering). Returns
 * the chart.
 */
export function drawChart(container, { bars, levels, digits = 2, symbol = "", analysisDate, exit, hold = false }) {
  const colours = upDown(symbol);
  const shown = (price) => price.toFixed(digits);
  const chart = createChart(container, {
    autoSize: true,
    height: 360,
    layout: { attributionLogo: false, background: { color: "#ffffff" }, textColor: "#1b1b1f" },
    localization: { locale: locale(), priceFormatter: shown },
    rightPriceScale: { borderVisible: false, scaleMargins: { top: 0.08, bottom: 0.24 } },
    timeScale: { borderVisible: false, tickMarkFormatter: tickMark },
  });
  const lines = ["entry", "stop", "target"]
    .filter((name) => typeof levels[name] === "number" && Number.isFinite(levels[name]))
    .map((name) => ({
      name,
      price: levels[name],
      text: `${t(`chart.${name}`, { price: shown(levels[name]) })}${hold && name !== "entry" ? t("chart.if_entering") : ""}`,
    }));
  if (exit && typeof exit.price === "number") {
    lines.push({ name: "exit", price: exit.price, text: t("chart.exit", { day: exit.day, ret: exit.ret }) });
  }
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: colours.up,
    downColor: colours.down,
    wickUpColor: colours.up,
    wickDownColor: colours.down,
    borderVisible: false,
    priceFormat: { type: "price", precision: digits, minMove: 10 ** -digits },
    lastValueVisible: false,
    priceLineVisible: false,
    // The levels stay in view even when they lie beyond the bars' range.
    autoscaleInfoProvider: (original) => {
      const range = original();
      if (!range || !range.priceRange) return range;
      const prices = lines.map((l) => l.price);
      return {
        ...range,
        priceRange: {
          minValue: Math.min(range.priceRange.minValue, ...prices),
          maxValue: Math.max(range.priceRange.maxValue, ...prices),
        },
      };
    },
  });
  candles.setData(bars.map((b) => ({ time: b.date.slice(0, 10), open: b.open, high: b.high, low: b.low, close: b.close })));
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: "volume", priceFormat: { type: "volume" }, lastValueVisible: false, priceLineVisible: false });
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  volume.setData(bars.map((b) => ({ time: b.date.slice(0, 10), value: b.volume, color: b.close >= b.open ? `${colours.up}66` : `${colours.down}66` })));

  for (const line of lines) {
    candles.createPriceLine({
      price: line.price,
      color: COLORS[line.name],
      lineWidth: 2,
      lineStyle: line.name === "entry" ? LineStyle.Solid : line.name === "exit" ? LineStyle.Dotted : LineStyle.Dashed,
      axisLabelVisible: false,
      title: "",
    });
    if (line.name !== "exit") container.dataset[line.name] = String(line.price);
  }
  const labels = h("ul", { class: "chart-labels", "aria-label": t("chart.labels") },
    lines.map((line) => h("li", { class: `chart-label chart-label-${line.name}`, "data-line": line.name, style: null }, line.text)));
  for (const li of labels.children) li.style.borderColor = COLORS[li.dataset.line];
  container.append(labels);
  const place = () => {
    const items = [...labels.children];
    const ys = lines.map((line) => candles.priceToCoordinate(line.price) ?? 0);
    const height = Math.max(0, ...items.map((li) => li.offsetHeight));
    const tops = placeLabels(ys, height, container.clientHeight * 0.76);
    items.forEach((li, i) => (li.style.top = `${Math.round(tops[i])}px`));
  };
  chart.timeScale().subscribeVisibleLogicalRangeChange(() => requestAnimationFrame(place));
  chart.timeScale().subscribeSizeChange(() => requestAnimationFrame(place));

  const days = new Set(bars.map((b) => b.date.slice(0, 10)));
  const markers = [];
  const markDay = analysisDate && [...days].filter((d) => d <= analysisDate).pop();
  if (markDay) markers.push({ time: markDay, position: "aboveBar", color: COLORS.entry, shape: "arrowDown" });
  if (exit && exit.day && days.has(exit.day)) {
    markers.push({ time: exit.day, position: "belowBar", color: COLORS.exit, shape: "arrowUp" });
    container.dataset.exitDay = exit.day;
  }
  createSeriesMarkers(candles, markers);
  // Room beside the first and the last bar, so the axis labels at the edges are shown whole.
  chart.timeScale().setVisibleLogicalRange({ from: -6, to: bars.length + 4 });
  requestAnimationFrame(place);
  container.dataset.priceLines = lines.filter((l) => l.name !== "exit").map((l) => l.name).join(",");
  container.dataset.bars = String(bars.length);
  container.dataset.analysisDate = markDay || "";
  container.dataset.upColor = colours.up;
  return chart;
}
