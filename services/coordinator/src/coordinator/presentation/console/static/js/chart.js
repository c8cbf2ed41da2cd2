// The session's price chart (TradingView lightweight-charts, vendored): daily candles and volume, the verdict's
// entry, stop and target as price lines, the analysis date marked, and the exit once the outcome is known.
// What is drawn is also written on the container as data attributes (data-price-lines, data-bars, ...), so a
// test or a screen-reader summary can read it.

import {
  CandlestickSeries,
  HistogramSeries,
  LineStyle,
  createChart,
  createSeriesMarkers,
} from "../vendor/lightweight-charts/lightweight-charts.standalone.production.mjs";
import { t } from "./i18n.js";

const COLORS = { entry: "#1f5fbf", stop: "#b3261e", target: "#17733a" };

/**
 * Draw into `container`: `bars` [{date, open, high, low, close, volume}], `levels` {entry, stop, target} (prices,
 * any may be null), `analysisDate` (YYYY-MM-DD), `exit` {day, price, reason, label} or null. Returns the chart.
 */
export function drawChart(container, { bars, levels, analysisDate, exit }) {
  const chart = createChart(container, {
    autoSize: true,
    height: 360,
    layout: { attributionLogo: false, background: { color: "#ffffff" }, textColor: "#1b1b1f" },
    rightPriceScale: { borderVisible: false },
    timeScale: { borderVisible: false },
  });
  const candles = chart.addSeries(CandlestickSeries, {
    upColor: "#17733a",
    downColor: "#b3261e",
    wickUpColor: "#17733a",
    wickDownColor: "#b3261e",
    borderVisible: false,
  });
  candles.setData(bars.map((b) => ({ time: b.date.slice(0, 10), open: b.open, high: b.high, low: b.low, close: b.close })));
  const volume = chart.addSeries(HistogramSeries, { priceScaleId: "volume", priceFormat: { type: "volume" }, color: "#9aa4b2" });
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  volume.setData(bars.map((b) => ({ time: b.date.slice(0, 10), value: b.volume })));

  const drawn = [];
  for (const name of ["entry", "stop", "target"]) {
    const price = levels[name];
    if (typeof price !== "number" || !Number.isFinite(price)) continue;
    candles.createPriceLine({
      price,
      color: COLORS[name],
      lineWidth: 2,
      lineStyle: name === "entry" ? LineStyle.Solid : LineStyle.Dashed,
      axisLabelVisible: true,
      title: t(`field.${name}`),
    });
    drawn.push(name);
    container.dataset[name] = String(price);
  }
  const days = new Set(bars.map((b) => b.date.slice(0, 10)));
  const markers = [];
  const markDay = analysisDate && [...days].filter((d) => d <= analysisDate).pop();
  if (markDay) {
    markers.push({ time: markDay, position: "aboveBar", color: "#1f5fbf", shape: "arrowDown", text: t("field.date") });
  }
  if (exit && exit.day && days.has(exit.day)) {
    markers.push({ time: exit.day, position: "belowBar", color: "#6b3fa0", shape: "arrowUp", text: exit.label });
    container.dataset.exitDay = exit.day;
  }
  createSeriesMarkers(candles, markers);
  chart.timeScale().fitContent();
  container.dataset.priceLines = drawn.join(",");
  container.dataset.bars = String(bars.length);
  container.dataset.analysisDate = markDay || "";
  return chart;
}
