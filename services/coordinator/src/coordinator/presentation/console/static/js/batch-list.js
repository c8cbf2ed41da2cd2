// A list of batches (GET /batches): when each was made, as of which day, for which watchlist, how far it got.

import { h } from "./dom.js";
import { statusWord, t } from "./i18n.js";

/** A table of batch summaries (a link to each, its status and progress); `names` maps watchlist ids to names. */
export function batchesTable(items, names, id = "batches-table") {
  return h("table", { id },
    h("thead", {}, h("tr", {}, [t("field.created"), t("field.date"), t("batches.watchlist"), t("field.status"), t("batches.items")].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, items.map((b) =>
      h("tr", { "data-batch": b.batch_id, "data-status": b.status },
        h("td", {}, h("a", { href: `#/batches/${encodeURIComponent(b.batch_id)}` }, new Date(b.created_at).toLocaleString())),
        h("td", {}, b.analysis_date),
        h("td", {}, b.watchlist_id ? h("a", { href: `#/watchlists/${encodeURIComponent(b.watchlist_id)}` }, names.get(b.watchlist_id) || t("batches.watchlist")) : t("none")),
        h("td", {}, statusWord(b.status)),
        h("td", {}, t("batch.progress", b.progress))))));
}
