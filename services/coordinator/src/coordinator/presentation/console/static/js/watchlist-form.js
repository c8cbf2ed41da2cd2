// A watchlist's name and symbols, to create one or to edit it: the symbols typed separated by commas, spaces or new
// lines; a symbol the research universe lacks is named in the problem the API answers (400 unknown_symbols).

import { call } from "./api.js";
import { h } from "./dom.js";
import { field, onSubmit, problemLine } from "./forms.js";
import { t } from "./i18n.js";

/** The symbols of a text, upper-cased, each once, in the order typed. */
export function symbolsOf(text) {
  return [...new Set(text.split(/[\s,，、;；]+/).map((s) => s.trim().toUpperCase()).filter(Boolean))];
}

/** The form; `watchlist` to edit (else a new one), `onSaved(view)` after the API accepted it. */
export function watchlistForm(watchlist, onSaved) {
  const prefix = watchlist ? "edit" : "new";
  const name = h("input", { id: `${prefix}-watchlist-name`, required: true, maxlength: 100, autocomplete: "off", value: watchlist?.name || "" });
  const symbols = h("textarea", { id: `${prefix}-watchlist-symbols`, required: true, rows: 4, spellcheck: "false" });
  symbols.value = watchlist ? watchlist.symbols.join(", ") : "";
  const submit = h("button", { type: "submit", id: `${prefix}-watchlist-submit` }, watchlist ? t("wl.save") : t("wl.create"));
  const problem = problemLine(`${prefix}-watchlist-error`);
  const saved = h("p", { class: "hint", role: "status", id: `${prefix}-watchlist-saved` });
  const form = h("form", { id: `${prefix}-watchlist`, class: "card", novalidate: true },
    h("h2", {}, watchlist ? t("wl.edit") : t("wl.new")),
    field(name.id, t("wl.name"), name),
    field(symbols.id, t("wl.symbols"), symbols, t("wl.symbols_help")),
    submit, problem, saved);
  onSubmit(form, submit, problem, async () => {
    saved.textContent = "";
    const body = { name: name.value.trim(), symbols: symbolsOf(symbols.value) };
    const path = watchlist ? `/watchlists/${encodeURIComponent(watchlist.watchlist_id)}` : "/watchlists";
    const answer = await call(path, { method: watchlist ? "PUT" : "POST", body });
    saved.textContent = t("wl.saved");
    await onSaved(answer.body);
  });
  return form;
}
