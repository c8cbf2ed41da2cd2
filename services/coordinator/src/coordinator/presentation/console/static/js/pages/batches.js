// Batches: the caller's batches, newest first, a page at a time (?watchlist= for one watchlist's runs); a batch's
// own page at #/batches/{id}.

import { get } from "../api.js";
import { batchesTable } from "../batch-list.js";
import { h, mount } from "../dom.js";
import { errorText } from "../format.js";
import { t } from "../i18n.js";
import { batchPage } from "./batch.js";

const PAGE = 20;

function hashFor(watchlist, offset) {
  const query = new URLSearchParams();
  if (watchlist) query.set("watchlist", watchlist);
  if (offset) query.set("offset", String(offset));
  return `#/batches${query.toString() ? `?${query}` : ""}`;
}

async function watchlistNames() {
  try {
    const page = await get("/watchlists?limit=100");
    return new Map(page.items.map((w) => [w.watchlist_id, w.name]));
  } catch {
    return new Map();
  }
}

async function batchesList(main, route) {
  const watchlist = route.query.get("watchlist") || "";
  const offset = Number(route.query.get("offset") || 0);
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (watchlist) params.set("watchlist_id", watchlist);
  const problem = h("p", { class: "error", role: "alert" });
  let page = { items: [], total: 0, offset: 0 };
  try {
    page = await get(`/batches?${params}`);
  } catch (error) {
    problem.textContent = errorText(error);
  }
  const names = await watchlistNames();
  const last = Math.min(page.offset + page.items.length, page.total);
  const nav = h("nav", { class: "pager", "aria-label": t("batches.heading") },
    h("a", { href: hashFor(watchlist, Math.max(0, offset - PAGE)), class: "button", "aria-disabled": offset === 0 ? "true" : null }, t("history.prev")),
    h("span", { id: "batches-range" }, t("history.page", { from: page.total ? page.offset + 1 : 0, to: last, total: page.total })),
    h("a", { href: hashFor(watchlist, offset + PAGE), class: "button", "aria-disabled": last >= page.total ? "true" : null }, t("history.next")));
  mount(main,
    h("h1", {}, watchlist ? t("batches.of_watchlist", { name: names.get(watchlist) || watchlist }) : t("batches.heading")),
    watchlist ? h("p", {}, h("a", { href: "#/batches" }, t("batches.all"))) : null,
    problem,
    page.items.length ? batchesTable(page.items, names) : h("p", { class: "hint", id: "batches-empty" }, t("batches.empty")),
    nav);
  return null;
}

export function batchesPage(main, route) {
  return route.id ? batchPage(main, route) : batchesList(main, route);
}
