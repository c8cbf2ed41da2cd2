// New research: a symbol from the research universe, the experts, the analysis date (default: the last trading day
// the data has for the symbol; a live provider's: the last weekday), the language; submitted as a job.

import { call, get } from "../api.js";
import { h, mount } from "../dom.js";
import { EXPERTS, errorText } from "../format.js";
import { LANGUAGES, expertName, lang, setLang, t } from "../i18n.js";

/** The last weekday up to today (YYYY-MM-DD): a live provider's default analysis date. */
export function lastWeekday(today = new Date()) {
  const day = new Date(Date.UTC(today.getFullYear(), today.getMonth(), today.getDate()));
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}

function requestKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

export async function newResearchPage(main) {
  let universe = { open_ended: true, symbols: [] };
  const problem = h("p", { class: "error", role: "alert", id: "new-error" });
  try {
    universe = await get("/universe");
  } catch (error) {
    problem.textContent = errorText(error);
  }
  const bySymbol = new Map(universe.symbols.map((s) => [s.symbol, s]));

  const symbol = h("input", {
    id: "symbol",
    name: "symbol",
    list: "universe-list",
    autocomplete: "off",
    required: true,
    "aria-describedby": "symbol-help symbol-info",
    value: universe.symbols[0]?.symbol || "",
  });
  const info = h("p", { id: "symbol-info", class: "hint", "aria-live": "polite" });
  const date = h("input", { id: "analysis-date", name: "analysis_date", type: "date", "aria-describedby": "date-help" });
  const datalist = h(
    "datalist",
    { id: "universe-list" },
    universe.symbols.map((s) => h("option", { value: s.symbol }, `${s.symbol} · ${s.market}`)),
  );

  function showSymbol() {
    const entry = bySymbol.get(symbol.value.trim().toUpperCase());
    if (entry && entry.bars) {
      info.textContent = `${entry.symbol} · ${entry.market} · ${t("new.symbol_data", entry.bars)}`;
      date.max = entry.bars.last;
      date.min = entry.bars.first;
      date.value = entry.bars.last;
    } else {
      const matches = universe.symbols.filter((s) => s.symbol.includes(symbol.value.trim().toUpperCase()));
      info.textContent = universe.open_ended ? t("new.universe_open") : matches.map((s) => s.symbol).slice(0, 8).join(", ");
      date.removeAttribute("min");
      date.removeAttribute("max");
      if (universe.open_ended) date.value = lastWeekday();
    }
  }
  symbol.addEventListener("input", showSymbol);

  const experts = EXPERTS.map((expert) =>
    h(
      "li",
      {},
      h("input", { type: "checkbox", id: `expert-${expert}`, name: "experts", value: expert, checked: true }),
      h("label", { for: `expert-${expert}` }, expertName(expert)),
    ),
  );
  const language = h(
    "select",
    { id: "report-language" },
    Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, selected: code === lang() }, name)),
  );
  const submit = h("button", { type: "submit", id: "submit-research" }, t("new.submit"));

  const form = h(
    "form",
    { id: "new-research", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "symbol" }, t("new.symbol")), symbol, datalist,
      h("p", { id: "symbol-help", class: "hint" }, t("new.symbol_help")), info),
    h("fieldset", {}, h("legend", {}, t("new.experts")), h("ul", { class: "checks" }, experts)),
    h("div", { class: "field" }, h("label", { for: "analysis-date" }, t("new.date")), date,
      h("p", { id: "date-help", class: "hint" }, t("new.date_help"))),
    h("div", { class: "field" }, h("label", { for: "report-language" }, t("new.language")), language),
    submit,
    problem,
  );

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    problem.textContent = "";
    const chosen = EXPERTS.filter((e) => form.querySelector(`#expert-${e}`).checked);
    if (language.value !== lang()) setLang(language.value);
    const body = { symbol: symbol.value.trim(), experts: chosen, language: lang() };
    if (date.value) body.analysis_date = date.value;
    submit.disabled = true;
    submit.textContent = t("new.submitting");
    try {
      const answer = await call("/research", {
        method: "POST",
        body,
        extraHeaders: { Prefer: "respond-async", "Idempotency-Key": requestKey() },
      });
      const id = answer.body.session_id;
      location.hash = answer.status === 202 ? `#/live/${id}` : `#/session/${id}`;
    } catch (error) {
      problem.textContent = errorText(error);
      submit.disabled = false;
      submit.textContent = t("new.submit");
    }
  });

  mount(main, h("h1", {}, t("new.heading")), form);
  showSymbol();
  return null;
}
