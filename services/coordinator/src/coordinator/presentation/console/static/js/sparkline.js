// A ranked row's sparkline: the closes of the 60 trading days up to the analysis date as a small SVG line. The bars
// are fetched only when the row scrolls into view, a few symbols at a time, and kept for the page's life.

import { get } from "./api.js";
import { svg } from "./dom.js";
import { num, pct } from "./format.js";
import { t } from "./i18n.js";

const DAYS = 60;
const CALENDAR_DAYS = 130; // enough calendar days for 60 trading days, holidays included
const AT_ONCE = 4;
const WIDTH = 100;
const HEIGHT = 24;

function shiftDay(day, days) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86400000).toISOString().slice(0, 10);
}

/** The last `DAYS` closes on or before `day`, oldest first. */
export function closesTo(bars, day) {
  return bars.filter((b) => b.date.slice(0, 10) <= day && Number.isFinite(b.close)).slice(-DAYS).map((b) => b.close);
}

/** The line of `closes` (an empty box without two of them), labelled with the first and last close. */
export function sparkline(closes, day) {
  if (closes.length < 2) {
    return svg("svg", { class: "sparkline", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": t("batch.no_bars"), "data-closes": 0 },
      svg("title", {}, t("batch.no_bars")),
      svg("line", { class: "no-bars", x1: WIDTH * 0.4, x2: WIDTH * 0.6, y1: HEIGHT / 2, y2: HEIGHT / 2 }));
  }
  const low = Math.min(...closes);
  const span = Math.max(...closes) - low || 1;
  const points = closes.map((c, i) => `${((i / (closes.length - 1)) * WIDTH).toFixed(1)},${(HEIGHT - 2 - ((c - low) / span) * (HEIGHT - 4)).toFixed(1)}`);
  const first = closes[0];
  const last = closes.at(-1);
  const label = t("batch.sparkline", { date: day, first: num(first), last: num(last), change: pct(last / first - 1) });
  return svg("svg", { class: `sparkline ${last >= first ? "up" : "down"}`, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: "none", role: "img", "aria-label": label, "data-closes": closes.length },
    svg("title", {}, label),
    svg("polyline", { points: points.join(" "), fill: "none", "vector-effect": "non-scaling-stroke" }));
}

/** Fills sparkline cells as they come into view: `cell(symbol)` gives a cell's content (the line when its bars are
 * known, else a placeholder that is filled later); `stop()` ends it with the page. */
export class SparklineLoader {
  constructor(day) {
    this.day = day;
    this.closes = new Map(); // symbol → closes (an empty list when there are no bars)
    this.waiting = new Map(); // symbol → the placeholders to fill
    this.asked = new Set(); // symbols queued or loading
    this.queue = [];
    this.active = 0;
    this.stopped = false;
    this.observer = new IntersectionObserver((entries) => this.seen(entries), { rootMargin: "200px" });
  }

  cell(symbol) {
    if (this.closes.has(symbol)) return sparkline(this.closes.get(symbol), this.day);
    const box = svg("svg", { class: "sparkline loading", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, "aria-hidden": "true", "data-symbol": symbol });
    if (!this.waiting.has(symbol)) this.waiting.set(symbol, new Set());
    this.waiting.get(symbol).add(box);
    // Its row is watched (the cell itself may be scrolled out of sight sideways); it is in the table by then.
    queueMicrotask(() => this.observer.observe(box.closest("tr") || box));
    return box;
  }

  seen(entries) {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      this.observer.unobserve(entry.target);
      const symbol = entry.target.dataset.symbol; // the row's (or the placeholder's)
      if (!this.asked.has(symbol)) {
        this.asked.add(symbol);
        this.queue.push(symbol);
      }
    }
    this.next();
  }

  next() {
    while (!this.stopped && this.active < AT_ONCE && this.queue.length) {
      const symbol = this.queue.shift();
      this.active += 1;
      this.load(symbol).finally(() => {
        this.active -= 1;
        this.next();
      });
    }
  }

  async load(symbol) {
    let closes = [];
    try {
      const path = `/bars/${encodeURIComponent(symbol)}?start=${shiftDay(this.day, -CALENDAR_DAYS)}&end=${this.day}`;
      closes = closesTo((await get(path)).bars || [], this.day);
    } catch {
      closes = [];
    }
    if (this.stopped) return;
    this.closes.set(symbol, closes);
    for (const box of this.waiting.get(symbol) || []) {
      if (box.isConnected) box.replaceWith(sparkline(closes, this.day));
    }
    this.waiting.delete(symbol);
  }

  stop() {
    this.stopped = true;
    this.observer.disconnect();
    this.queue = [];
  }
}
