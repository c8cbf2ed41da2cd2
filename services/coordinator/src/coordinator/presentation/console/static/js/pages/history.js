// History: the client's sessions, newest first, filtered by symbol, status and analysis dates, a page at a time;
// per row, what changed since the previous research of the same symbol.

import { get } from "../api.js";
import { changesTable, previousOf } from "../compare.js";
import { h, mount } from "../dom.js";
import { errorText, text } from "../format.js";
import { actionWord, dateTime, statusWord, t } from "../i18n.js";

const PAGE = 20;
const STATUSES = ["queued", "running", "completed", "partial", "failed", "cancelled", "interrupted"];

function hashFor(filters) {
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== "" && v !== 0 && v != null));
  return `#/history${query.toString() ? `?${query}` : ""}`;
}

export async function historyPage(main, route) {
  const q = route.query;
  const filters = {
    symbol: q.get("symbol") || "",
    status: q.get("status") || "",
    from: q.get("from") || "",
    to: q.get("to") || "",
    offset: Number(q.get("offset") || 0),
  };
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(filters.offset) });
  if (filters.symbol) params.set("symbol", filters.symbol);
  if (filters.status) params.set("status", filters.status);
  if (filters.from) params.set("analysis_date_from", filters.from);
  if (filters.to) params.set("analysis_date_to", filters.to);
  const problem = h("p", { class: "error", role: "alert" });
  let page = { items: [], total: 0, limit: PAGE, offset: 0 };
  try {
    page = await get(`/sessions?${params}`);
  } catch (error) {
    problem.textContent = errorText(error);
  }
  const items = page.items;

  const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id }, label), input);
  const symbol = h("input", { id: "filter-symbol", value: filters.symbol, autocomplete: "off" });
  const status = h("select", { id: "filter-status" }, h("option", { value: "" }, t("history.all")),
    STATUSES.map((s) => h("option", { value: s, selected: s === filters.status }, statusWord(s))));
  const from = h("input", { id: "filter-from", type: "date", value: filters.from });
  const to = h("input", { id: "filter-to", type: "date", value: filters.to });
  const form = h("form", { id: "history-filters", class: "filters" },
    field("filter-symbol", t("field.symbol"), symbol), field("filter-status", t("field.status"), status),
    field("filter-from", `${t("field.date")} ${t("field.from")}`, from), field("filter-to", `${t("field.date")} ${t("field.to")}`, to),
    h("button", { type: "submit" }, t("history.filter")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = hashFor({ symbol: symbol.value.trim(), status: status.value, from: from.value, to: to.value, offset: 0 });
  });

  const changes = h("div", { id: "history-changes", "aria-live": "polite" });
  const rows = items.map((s) => {
    const compare = h("button", { type: "button", class: "small", "data-compare": s.session_id, "aria-label": `${t("history.compare")}: ${s.symbol} ${s.analysis_date || ""}` }, t("history.compare"));
    compare.addEventListener("click", async () => {
      mount(changes, h("p", { class: "status" }, t("loading")));
      try {
        const detail = await get(`/sessions/${encodeURIComponent(s.session_id)}`);
        const before = await previousOf(detail);
        mount(changes, before ? changesTable(before, detail) : h("p", { class: "hint" }, t("session.compare_none")));
      } catch (error) {
        mount(changes, h("p", { class: "error" }, errorText(error)));
      }
    });
    const live = ["queued", "running"].includes(s.status);
    const href = `#/${live ? "live" : "session"}/${s.session_id}`;
    const cell = (label, ...content) => h("td", { "data-label": label }, h("span", { class: "cell-value" }, ...content));
    return h("tr", { "data-session": s.session_id, "data-status": s.status },
      cell(t("field.symbol"), h("a", { href }, s.symbol)),
      cell(t("field.date"), text(s.analysis_date)),
      cell(t("history.action"), s.action ? actionWord(s.action) : t("history.no_action")),
      cell(t("field.status"), statusWord(s.status)),
      cell(t("field.created"), dateTime(s.created_at)),
      cell(t("history.actions"), h("a", { href, class: "button small" }, t("history.open_row")), " ", compare));
  });
  const columns = [t("field.symbol"), t("field.date"), t("history.action"), t("field.status"), t("field.created"), t("history.actions")];
  const table = items.length
    ? h("table", { id: "history-table", class: "stack-on-phone" },
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows))
    : h("p", { class: "hint", id: "history-empty" }, t("history.empty"));

  const last = Math.min(page.offset + page.items.length, page.total);
  const nav = h("nav", { class: "pager", "aria-label": t("history.heading") },
    h("a", { href: hashFor({ ...filters, offset: Math.max(0, filters.offset - PAGE) }), class: "button", "aria-disabled": filters.offset === 0 ? "true" : null, id: "history-prev" }, t("history.prev")),
    h("span", { id: "history-range" }, t("history.page", { from: page.total ? page.offset + 1 : 0, to: last, total: page.total })),
    h("a", { href: hashFor({ ...filters, offset: filters.offset + PAGE }), class: "button", "aria-disabled": last >= page.total ? "true" : null, id: "history-next" }, t("history.next")));

  mount(main, h("h1", {}, t("history.heading")), form, problem, table, nav, changes);
  return null;
}
