// One batch: its progress while it runs (its event stream; polling when the stream drops), then the ranked table —
// sortable, each score with what it is made of, a 60-day sparkline per row, the change since the watchlist's
// previous run — and its CSV download.

import { call, followStream, get } from "../api.js";
import { batchColumns } from "../batch-columns.js";
import { contributionsBySession, rowsOf } from "../batch-rows.js";
import { RankedTable } from "../batch-table.js";
import { h, mount } from "../dom.js";
import { saveFile } from "../download.js";
import { errorText, text } from "../format.js";
import { statusWord, t } from "../i18n.js";
import { SparklineLoader } from "../sparkline.js";

const FINISHED = new Set(["completed", "partial", "failed", "cancelled"]);
const RESULTS_PAGE = 200;
const REFRESH_MS = 1000;
const POLL_MS = 2000;

const finished = (view) => FINISHED.has(view.status);
const batchPath = (id) => `/batches/${encodeURIComponent(id)}`;

async function optional(path) {
  try {
    return await get(path);
  } catch {
    return null;
  }
}

/** Every item's voting contributions, a page of results at a time (`onPage` after each). */
async function loadContributions(id, voters, signal, onPage) {
  for (let offset = 0; ; offset += RESULTS_PAGE) {
    const page = await get(`${batchPath(id)}/results?limit=${RESULTS_PAGE}&offset=${offset}`, { signal });
    for (const [session, parts] of contributionsBySession(page)) voters.set(session, parts);
    onPage();
    if (offset + RESULTS_PAGE >= page.total) return;
  }
}

export async function batchPage(main, route) {
  const id = route.id;
  let view = await get(batchPath(id));
  const controller = new AbortController();
  const [previous, watchlist] = await Promise.all([
    view.previous_batch_id ? optional(batchPath(view.previous_batch_id)) : null,
    view.watchlist_id ? optional(`/watchlists/${encodeURIComponent(view.watchlist_id)}`) : null,
  ]);
  const voters = new Map();
  const sparklines = new SparklineLoader(view.analysis_date);
  const table = new RankedTable(batchColumns({ withChange: Boolean(previous) }), sparklines);

  const status = h("p", { id: "batch-status", class: "status", role: "status" });
  const meter = h("progress", { id: "batch-progress", max: 1, value: 0, "aria-labelledby": "batch-status" });
  const problem = h("p", { class: "error", role: "alert", id: "batch-error" });
  const empty = h("p", { class: "hint", id: "batch-empty" });
  const download = h("button", { type: "button", id: "export-csv" }, t("batch.export"));
  download.addEventListener("click", () => saveFile(`batch-${view.analysis_date}-${id.slice(0, 8)}.csv`, [table.csv()], "text/csv;charset=utf-8"));
  const cancel = h("button", { type: "button", id: "cancel-batch", class: "small" }, t("batch.cancel"));
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      view = (await call(`${batchPath(id)}/cancel`, { method: "POST" })).body;
      show();
    } catch (error) {
      problem.textContent = errorText(error);
      cancel.disabled = false;
    }
  });

  function show() {
    const p = view.progress;
    status.dataset.status = view.status;
    status.textContent = `${t("field.status")}: ${statusWord(view.status)} · ${t("batch.progress", p)}`;
    meter.max = Math.max(1, p.total);
    meter.value = p.done;
    cancel.hidden = finished(view);
    main.dataset.finished = String(finished(view));
    empty.textContent = view.items.length ? "" : t("batch.empty");
    table.show(rowsOf(view, voters, previous));
  }

  let refreshing = null;
  function refresh() {
    refreshing ??= new Promise((resolve) => setTimeout(resolve, REFRESH_MS))
      .then(() => get(batchPath(id), { signal: controller.signal }))
      .then((now) => {
        view = now;
        show();
      })
      .finally(() => (refreshing = null));
    return refreshing;
  }

  async function whenDone() {
    try {
      await loadContributions(id, voters, controller.signal, show);
    } catch (error) {
      if (error.name !== "AbortError") problem.textContent = errorText(error);
    }
  }

  async function follow() {
    try {
      await followStream(`${batchPath(id)}/events`, (event) => {
        if (event.data && typeof event.data.done === "number") {
          view = { ...view, status: event.data.status || view.status, progress: { done: event.data.done, total: event.data.total, failed: event.data.failed } };
          status.textContent = `${t("field.status")}: ${statusWord(view.status)} · ${t("batch.progress", view.progress)}`;
          meter.value = view.progress.done;
        }
        refresh().catch(() => {});
      }, controller.signal);
    } catch (error) {
      if (error.name === "AbortError") return;
    }
    // The stream ended (or dropped): read the batch until it has finished.
    while (!controller.signal.aborted) {
      try {
        view = await get(batchPath(id), { signal: controller.signal });
        show();
        if (finished(view)) break;
      } catch (error) {
        if (error.name === "AbortError") return;
        problem.textContent = errorText(error);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (!controller.signal.aborted) await whenDone();
  }

  mount(main,
    h("h1", {}, t("batch.heading", { date: view.analysis_date })),
    watchlist ? h("p", { id: "batch-watchlist" }, h("a", { href: `#/watchlists/${encodeURIComponent(watchlist.watchlist_id)}` }, t("batch.watchlist", { name: watchlist.name }))) : null,
    status, meter,
    h("div", { class: "actions no-print" }, download, cancel),
    problem,
    previous ? h("p", { class: "hint", id: "batch-previous" },
      h("a", { href: `#/batches/${encodeURIComponent(previous.batch_id)}` }, t("batch.previous", { date: text(previous.analysis_date) }))) : null,
    h("div", { class: "table-scroll" }, table.element), empty,
    h("p", { class: "hint" }, t("batch.explain")));
  show();
  if (finished(view)) whenDone();
  else follow();
  return () => {
    controller.abort();
    sparklines.stop();
  };
}
