// Watchlists: the caller's lists of symbols, each run now or on a schedule; a new one; the channels runs are sent
// to. One watchlist's page is #/watchlists/{id}.

import { get } from "../api.js";
import { channelsSection, listChannels } from "../channels.js";
import { deliveriesSection } from "../deliveries.js";
import { h, mount } from "../dom.js";
import { errorText } from "../format.js";
import { actionButton, problemLine } from "../forms.js";
import { t } from "../i18n.js";
import { watchlistForm } from "../watchlist-form.js";
import { runWatchlist, watchlistPage } from "./watchlist.js";

function watchlistRow(watchlist, problem) {
  const href = `#/watchlists/${encodeURIComponent(watchlist.watchlist_id)}`;
  const run = actionButton({ class: "small", "data-run": watchlist.watchlist_id }, t("wl.run"), problem, () => runWatchlist(watchlist));
  return h("tr", { "data-watchlist": watchlist.watchlist_id, "data-name": watchlist.name },
    h("td", {}, h("a", { href }, watchlist.name)),
    h("td", { class: "symbols" }, `${t("wl.count", { count: watchlist.symbols.length })}: ${watchlist.symbols.slice(0, 8).join(", ")}${watchlist.symbols.length > 8 ? " …" : ""}`),
    h("td", {}, watchlist.last_batch_id ? h("a", { href: `#/batches/${encodeURIComponent(watchlist.last_batch_id)}` }, t("wl.last_run")) : t("wl.no_runs")),
    h("td", {}, h("div", { class: "row-actions" }, run, h("a", { href, class: "button small" }, t("wl.edit")))));
}

async function watchlistsList(main) {
  const problem = problemLine("watchlists-error");
  let items = [];
  try {
    items = (await get("/watchlists?limit=100")).items;
  } catch (error) {
    problem.textContent = errorText(error);
  }
  const table = items.length
    ? h("table", { id: "watchlists-table" },
      h("thead", {}, h("tr", {}, [t("wl.name"), t("wl.symbols"), t("wl.last_run"), ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, items.map((w) => watchlistRow(w, problem))))
    : h("p", { class: "hint", id: "watchlists-empty" }, t("wl.empty"));
  const form = watchlistForm(null, (created) => {
    location.hash = `#/watchlists/${encodeURIComponent(created.watchlist_id)}`;
  });
  const channels = await channelsSection();
  const deliveries = await deliveriesSection(await listChannels().catch(() => []));
  mount(main, h("h1", {}, t("wl.heading")), problem, table, form, channels, deliveries);
  return null;
}

export function watchlistsPage(main, route) {
  return route.id ? watchlistPage(main, route) : watchlistsList(main);
}
