// The ranked table on the page: a header button per sortable column (aria-sort says the order), the rows in that
// order, redrawn as the batch's items end; the CSV download of the same columns in the same order.

import { sortRows } from "./batch-rows.js";
import { csvText } from "./csv.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";

export class RankedTable {
  /** `columns` batchColumns(...), `sparklines` a SparklineLoader. */
  constructor(columns, sparklines) {
    this.columns = columns;
    this.sparklines = sparklines;
    this.order = { key: "rank", direction: "asc" };
    this.rows = [];
    this.headers = new Map();
    const shown = columns.filter((c) => !c.hidden);
    const head = shown.map((column) => {
      const th = h("th", { scope: "col", class: column.numeric ? "num" : null, "data-column": column.key });
      if (column.sortable) {
        const button = h("button", { type: "button", class: "sort", "aria-label": t("batch.sort", { column: column.label }) }, column.label);
        button.addEventListener("click", () => this.sortBy(column));
        th.append(button);
      } else {
        th.append(column.label);
      }
      this.headers.set(column.key, th);
      return th;
    });
    this.body = h("tbody");
    this.element = h("table", { id: "batch-table", class: "ranked" }, h("thead", {}, h("tr", {}, head)), this.body);
  }

  sortBy(column) {
    const again = this.order.key === column.key;
    const direction = again ? (this.order.direction === "asc" ? "desc" : "asc") : column.first;
    this.order = { key: column.key, direction };
    this.draw();
  }

  /** Show `rows` (rowsOf) in the current order. */
  show(rows) {
    this.rows = rows;
    this.draw();
  }

  sorted() {
    return sortRows(this.rows, this.order.key, this.order.direction);
  }

  draw() {
    for (const [key, th] of this.headers) {
      if (key === this.order.key) th.setAttribute("aria-sort", this.order.direction === "asc" ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    }
    this.element.dataset.sort = `${this.order.key}:${this.order.direction}`;
    mount(this.body, this.sorted().map((row) =>
      h("tr", { "data-symbol": row.symbol, "data-session": row.session_id, "data-status": row.status, "data-action": row.action || "", "data-score": row.score ?? "", "data-rank": row.rank },
        this.columns.filter((c) => !c.hidden).map((c) => h("td", { class: c.numeric ? "num" : null, "data-column": c.key }, c.cell(row, this.sparklines))))));
  }

  /** The CSV file's text: a header row and a row per item, in the order shown. */
  csv() {
    const rows = this.sorted();
    const fields = this.columns.flatMap((c) => (typeof c.csv === "function" ? c.csv(rows) : c.csv));
    return csvText(fields.map(([name]) => name), rows.map((row) => fields.map(([, value]) => value(row))));
  }
}
