// One watchlist: run it now (as of a day, or the data's last trading day) and land on its batch; edit its name and
// symbols; delete it; its schedules; its last runs.

import { call, get } from "../api.js";
import { batchesTable } from "../batch-list.js";
import { listChannels } from "../channels.js";
import { h, mount } from "../dom.js";
import { errorText } from "../format.js";
import { actionButton, field, problemLine } from "../forms.js";
import { t } from "../i18n.js";
import { schedulesSection } from "../schedules.js";
import { watchlistForm } from "../watchlist-form.js";

const RUNS = 10;

/** Run `watchlist` now (as of `day`, or the data's last trading day) and open its batch. */
export async function runWatchlist(watchlist, day) {
  const body = day ? { analysis_date: day } : {};
  const accepted = (await call(`/watchlists/${encodeURIComponent(watchlist.watchlist_id)}/run`, { method: "POST", body })).body;
  location.hash = `#/batches/${encodeURIComponent(accepted.batch_id)}`;
}

async function lastRuns(watchlist) {
  const section = h("section", { id: "watchlist-runs", "aria-labelledby": "watchlist-runs-h" }, h("h2", { id: "watchlist-runs-h" }, t("wl.last_runs")));
  try {
    const page = await get(`/batches?watchlist_id=${encodeURIComponent(watchlist.watchlist_id)}&limit=${RUNS}`);
    section.append(page.items.length
      ? batchesTable(page.items, new Map([[watchlist.watchlist_id, watchlist.name]]), "watchlist-runs-table")
      : h("p", { class: "hint" }, t("wl.no_runs")));
    if (page.total > RUNS) section.append(h("p", {}, h("a", { href: `#/batches?watchlist=${encodeURIComponent(watchlist.watchlist_id)}` }, t("batches.of_watchlist", { name: watchlist.name }))));
  } catch (error) {
    section.append(h("p", { class: "error" }, errorText(error)));
  }
  return section;
}

export async function watchlistPage(main, route) {
  const watchlist = await get(`/watchlists/${encodeURIComponent(route.id)}`);
  let channels = [];
  try {
    channels = await listChannels();
  } catch {
    channels = [];
  }
  const problem = problemLine("watchlist-error");
  const day = h("input", { id: "run-date", type: "date" });
  const run = actionButton({ id: "run-watchlist" }, t("wl.run"), problem, () => runWatchlist(watchlist, day.value));
  const remove = actionButton({ id: "delete-watchlist", class: "small" }, t("wl.delete"), problem, async () => {
    if (!window.confirm(t("wl.confirm_delete", { name: watchlist.name }))) return;
    await call(`/watchlists/${encodeURIComponent(watchlist.watchlist_id)}`, { method: "DELETE" });
    location.hash = "#/watchlists";
  });
  const heading = h("h1", {}, t("wl.heading_one", { name: watchlist.name }));
  const symbols = h("p", { id: "watchlist-symbols" }, `${t("wl.count", { count: watchlist.symbols.length })}: ${watchlist.symbols.join(", ")}`);
  const form = watchlistForm(watchlist, (saved) => {
    Object.assign(watchlist, saved);
    heading.textContent = t("wl.heading_one", { name: saved.name });
    symbols.textContent = `${t("wl.count", { count: saved.symbols.length })}: ${saved.symbols.join(", ")}`;
  });
  const [schedules, runs] = await Promise.all([schedulesSection(watchlist, channels), lastRuns(watchlist)]);
  mount(main,
    h("p", {}, h("a", { href: "#/watchlists" }, t("wl.all"))),
    heading, symbols,
    h("div", { class: "run-now card" }, field(day.id, `${t("field.date")}`, day, t("wl.run_help")), h("div", { class: "actions" }, run, remove)),
    problem, runs, schedules, form);
  return null;
}
