// Channels: where a run's ranked table is sent when it ends. Add one (kind, target, secret, language), list them
// (the API masks a bot's URL), send a test and see what the receiver answered, delete one.

import { call, get } from "./api.js";
import { h, mount } from "./dom.js";
import { errorText } from "./format.js";
import { actionButton, field, onSubmit, problemLine } from "./forms.js";
import { LANGUAGES, lang, t } from "./i18n.js";

export const KINDS = ["webhook", "slack", "feishu", "wecom", "telegram", "email"];

/** The caller's channels (the first hundred). */
export async function listChannels() {
  return (await get("/channels?limit=100")).items;
}

export function channelLabel(channel) {
  return channel.name || `${t(`chan.kind.${channel.kind}`)} ${channel.target}`;
}

function channelRow(channel, problem, reload) {
  const result = h("span", { class: "test-result", role: "status", "data-channel": channel.channel_id });
  const test = actionButton({ class: "small", "data-test-channel": channel.channel_id }, t("chan.test"), problem, async () => {
    const answer = (await call(`/channels/${encodeURIComponent(channel.channel_id)}/test`, { method: "POST" })).body;
    result.dataset.delivered = String(answer.delivered);
    result.textContent = answer.delivered
      ? t("chan.test_ok", { status: answer.status_code ?? "" })
      : t("chan.test_failed", { error: answer.error || `HTTP ${answer.status_code ?? "?"}` });
  });
  const remove = actionButton({ class: "small", "data-delete-channel": channel.channel_id }, t("wl.delete"), problem, async () => {
    if (!window.confirm(t("chan.confirm_delete", { name: channelLabel(channel) }))) return;
    await call(`/channels/${encodeURIComponent(channel.channel_id)}`, { method: "DELETE" });
    await reload();
  });
  return h("tr", { "data-channel": channel.channel_id, "data-kind": channel.kind },
    h("td", {}, t(`chan.kind.${channel.kind}`)),
    h("td", {}, channel.name || t("none")),
    h("td", { class: "target" }, channel.target),
    h("td", {}, LANGUAGES[channel.language] || channel.language, channel.has_secret ? ` · ${t("chan.has_secret")}` : ""),
    h("td", {}, h("div", { class: "row-actions" }, test, remove), result));
}

function channelForm(onCreated) {
  const kind = h("select", { id: "channel-kind" }, KINDS.map((k) => h("option", { value: k }, t(`chan.kind.${k}`))));
  const target = h("input", { id: "channel-target", required: true, maxlength: 2000, autocomplete: "off", spellcheck: "false" });
  const secret = h("input", { id: "channel-secret", type: "password", maxlength: 500, autocomplete: "off" });
  const name = h("input", { id: "channel-name", maxlength: 100, autocomplete: "off" });
  const language = h("select", { id: "channel-language" },
    Object.entries(LANGUAGES).map(([code, label]) => h("option", { value: code, selected: code === lang() }, label)));
  const submit = h("button", { type: "submit", id: "channel-submit" }, t("chan.create"));
  const problem = problemLine("channel-error");
  const once = h("p", { class: "secret-once", role: "status", id: "channel-secret-once" });
  const form = h("form", { id: "new-channel", class: "card", novalidate: true },
    h("h3", {}, t("chan.new")),
    h("div", { class: "filters" }, field(kind.id, t("chan.kind"), kind), field(language.id, t("chan.language"), language)),
    field(target.id, t("chan.target"), target, t("chan.target_help")),
    field(secret.id, t("chan.secret"), secret, t("chan.secret_help")),
    field(name.id, t("chan.name"), name),
    submit, problem, once);
  onSubmit(form, submit, problem, async () => {
    once.textContent = "";
    const body = { kind: kind.value, target: target.value.trim(), language: language.value };
    if (secret.value) body.secret = secret.value;
    if (name.value.trim()) body.name = name.value.trim();
    const created = (await call("/channels", { method: "POST", body })).body;
    form.reset();
    language.value = lang();
    if (created.secret) once.textContent = t("chan.secret_once", { secret: created.secret });
    await onCreated();
  });
  return form;
}

/** The channels section of the watchlists page. */
export async function channelsSection() {
  const problem = problemLine("channels-error");
  const list = h("div", { id: "channels-list" });
  async function reload() {
    let channels = [];
    try {
      channels = await listChannels();
    } catch (error) {
      problem.textContent = errorText(error);
      return;
    }
    mount(list, channels.length
      ? h("table", { id: "channels-table" },
        h("thead", {}, h("tr", {}, [t("chan.kind"), t("wl.name"), t("chan.target"), t("chan.language"), ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, channels.map((c) => channelRow(c, problem, reload))))
      : h("p", { class: "hint", id: "channels-empty" }, t("chan.none")));
  }
  const section = h("section", { id: "channels", "aria-labelledby": "channels-h" },
    h("h2", { id: "channels-h" }, t("chan.heading")),
    h("p", { class: "hint" }, t("chan.explain")),
    problem, list, channelForm(reload));
  await reload();
  return section;
}
