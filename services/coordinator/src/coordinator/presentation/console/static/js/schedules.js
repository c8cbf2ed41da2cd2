// A watchlist's schedules: when it runs by itself (a cron read in a time zone, on trading days only if asked) and
// whom it tells; each with its next slots and its last runs (a link to each run's batch). Add one, delete one.

import { call, get } from "./api.js";
import { h, mount } from "./dom.js";
import { errorText } from "./format.js";
import { actionButton, field, onSubmit, problemLine } from "./forms.js";
import { channelLabel } from "./channels.js";
import { joinNames, lang, statusWord, t } from "./i18n.js";

const ZONES = ["Asia/Shanghai", "Asia/Hong_Kong", "Asia/Tokyo", "Europe/London", "America/New_York", "UTC"];

/** A UTC instant as the schedule's zone reads it. */
export function inZone(instant, zone) {
  const options = { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", weekday: "short" };
  try {
    return new Date(instant).toLocaleString(lang() === "zh" ? "zh-CN" : "en-GB", options);
  } catch {
    return new Date(instant).toISOString();
  }
}

function runItem(run, zone) {
  const when = inZone(run.slot, zone);
  if (run.batch_id) {
    return h("li", { "data-batch": run.batch_id },
      h("a", { href: `#/batches/${encodeURIComponent(run.batch_id)}` }, when), ` · ${run.batch_status ? statusWord(run.batch_status) : t("none")}`);
  }
  return h("li", { class: "error" }, `${when} · ${t("sched.no_batch", { error: run.error || t("none") })}`);
}

function scheduleCard(schedule, names, path, problem, reload) {
  const remove = actionButton({ class: "small", "data-delete-schedule": schedule.schedule_id }, t("wl.delete"), problem, async () => {
    if (!window.confirm(t("sched.confirm_delete", { cron: schedule.cron }))) return;
    await call(`${path}/${encodeURIComponent(schedule.schedule_id)}`, { method: "DELETE" });
    await reload();
  });
  const zone = schedule.timezone;
  return h("article", { class: "card schedule", "data-schedule": schedule.schedule_id },
    h("h3", {}, h("code", {}, schedule.cron), ` (${zone})${schedule.trading_days_only ? t("sched.trading_suffix") : ""}`),
    schedule.channels.length ? h("p", {}, `${t("sched.channels")}: ${joinNames(schedule.channels.map((c) => names.get(c) || c))}`) : null,
    h("div", { class: "sides" },
      h("div", {}, h("h4", {}, t("sched.next")), h("ul", { class: "next-fires" }, schedule.next_fire_times.map((s) => h("li", {}, inZone(s, zone))))),
      h("div", {}, h("h4", {}, t("sched.last")), schedule.last_runs.length
        ? h("ul", { class: "last-runs" }, schedule.last_runs.map((r) => runItem(r, zone)))
        : h("p", { class: "hint" }, t("sched.no_runs")))),
    h("div", { class: "row-actions" }, remove));
}

function scheduleForm(path, channels, onCreated) {
  const cron = h("input", { id: "schedule-cron", required: true, value: "0 18 * * 1-5", autocomplete: "off", spellcheck: "false" });
  const zone = h("input", { id: "schedule-timezone", required: true, value: "Asia/Shanghai", list: "schedule-zones", autocomplete: "off" });
  const zones = h("datalist", { id: "schedule-zones" }, ZONES.map((z) => h("option", { value: z })));
  const trading = h("input", { type: "checkbox", id: "schedule-trading-days", checked: true });
  const chosen = h("select", { id: "schedule-channels", multiple: true, size: Math.min(5, Math.max(2, channels.length)) },
    channels.map((c) => h("option", { value: c.channel_id }, channelLabel(c))));
  const submit = h("button", { type: "submit", id: "schedule-submit" }, t("sched.create"));
  const problem = problemLine("schedule-error");
  const form = h("form", { id: "new-schedule", class: "card", novalidate: true },
    h("h3", {}, t("sched.new")),
    field(cron.id, t("sched.cron"), cron, t("sched.cron_help")),
    field(zone.id, t("sched.timezone"), zone), zones,
    h("div", { class: "check" }, trading, h("label", { for: trading.id }, t("sched.trading_days"))),
    channels.length ? field(chosen.id, t("sched.channels"), chosen) : h("p", { class: "hint" }, t("sched.channels_none")),
    submit, problem);
  onSubmit(form, submit, problem, async () => {
    const body = {
      cron: cron.value.trim(),
      timezone: zone.value.trim() || "Asia/Shanghai",
      trading_days_only: trading.checked,
      channels: [...chosen.selectedOptions].map((o) => o.value),
    };
    await call(path, { method: "POST", body });
    await onCreated();
  });
  return form;
}

/** The schedules section of a watchlist's page; `channels` the caller's (to choose from and to name). */
export async function schedulesSection(watchlist, channels) {
  const path = `/watchlists/${encodeURIComponent(watchlist.watchlist_id)}/schedules`;
  const names = new Map(channels.map((c) => [c.channel_id, channelLabel(c)]));
  const problem = problemLine("schedules-error");
  const list = h("div", { id: "schedules-list" });
  async function reload() {
    try {
      const items = (await get(path)).items;
      mount(list, items.length ? items.map((s) => scheduleCard(s, names, path, problem, reload)) : h("p", { class: "hint", id: "schedules-empty" }, t("sched.none")));
    } catch (error) {
      problem.textContent = errorText(error);
    }
  }
  await reload();
  return h("section", { id: "schedules", "aria-labelledby": "schedules-h" },
    h("h2", { id: "schedules-h" }, t("sched.heading")), problem, list, scheduleForm(path, channels, reload));
}
