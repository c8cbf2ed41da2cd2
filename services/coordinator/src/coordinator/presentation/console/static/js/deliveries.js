// Deliveries: the notifications the outbox could not deliver (failed: attempts spent or refused for good) and those
// still waiting for their next attempt; a failed one is sent again with "Retry" (its attempts counted afresh).

import { call, get } from "./api.js";
import { h, mount } from "./dom.js";
import { errorText } from "./format.js";
import { actionButton, problemLine } from "./forms.js";
import { lang, t } from "./i18n.js";

function when(iso) {
  return iso ? new Date(iso).toLocaleString(lang() === "zh" ? "zh-CN" : "en-GB") : "";
}

function deliveryRow(delivery, channels, problem, reload) {
  const channel = channels.get(delivery.channel_id);
  const retry = delivery.status === "failed"
    ? actionButton({ class: "small", "data-retry-delivery": delivery.delivery_id }, t("deliv.retry"), problem, async () => {
      await call(`/deliveries/${encodeURIComponent(delivery.delivery_id)}/retry`, { method: "POST" });
      await reload();
    })
    : h("span", { class: "hint" }, t("deliv.next", { when: when(delivery.next_attempt_at) }));
  const batch = delivery.batch_id
    ? h("a", { href: `#/batches/${encodeURIComponent(delivery.batch_id)}` }, t("wl.last_run"))
    : "";
  return h("tr", { "data-delivery": delivery.delivery_id, "data-status": delivery.status },
    h("td", {}, t(`deliv.status.${delivery.status}`)),
    h("td", {}, channel ? t(`chan.kind.${channel.kind}`) + (channel.name ? ` · ${channel.name}` : "") : t("deliv.channel_gone")),
    h("td", {}, batch),
    h("td", {}, t("deliv.attempts", { count: delivery.attempts })),
    h("td", { class: "error" }, delivery.last_error || ""),
    h("td", {}, retry));
}

/** The deliveries section of the watchlists page: failed ones first, then those waiting to be tried again. */
export async function deliveriesSection(channels) {
  const problem = problemLine("deliveries-error");
  const list = h("div", { id: "deliveries-list" });
  const byId = new Map(channels.map((c) => [c.channel_id, c]));
  async function reload() {
    let rows = [];
    try {
      const [failed, pending] = await Promise.all(["failed", "pending"].map((s) => get(`/deliveries?status=${s}&limit=50`)));
      rows = [...failed.items, ...pending.items.filter((d) => d.attempts > 0)];
    } catch (error) {
      problem.textContent = errorText(error);
      return;
    }
    mount(list, rows.length
      ? h("table", { id: "deliveries-table" },
        h("thead", {}, h("tr", {}, [t("deliv.col.status"), t("chan.heading"), t("deliv.col.run"), t("deliv.col.attempts"), t("deliv.col.error"), ""]
          .map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map((d) => deliveryRow(d, byId, problem, reload))))
      : h("p", { class: "hint", id: "deliveries-empty" }, t("deliv.none")));
  }
  const section = h("section", { id: "deliveries", "aria-labelledby": "deliveries-h" },
    h("h2", { id: "deliveries-h" }, t("deliv.heading")),
    h("p", { class: "hint" }, t("deliv.explain")),
    problem, list);
  await reload();
  return section;
}
