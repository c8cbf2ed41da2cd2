// The fixed English phrases the services write into data (an outcome's reason, an expert's data gaps), said in the
// reader's language from the catalogue. A phrase this table does not know is shown as the service wrote it.

import { t } from "./i18n.js";

const DAY = "(\\d{4}-\\d{2}-\\d{2})";

/** [pattern, catalogue key, names of the captured groups]; tried in order, the whole phrase must match. */
const PHRASES = [
  [`(\\d+) of (\\d+) trading days have passed \\(no next open yet\\)`, "phrase.no_next_open", ["passed", "total"]],
  [`(\\d+) of (\\d+) trading days have passed`, "phrase.days_passed", ["passed", "total"]],
  [`${DAY} opened limit-up`, "phrase.opened_limit_up", ["day"]],
  [`${DAY} opened limit-down`, "phrase.opened_limit_down", ["day"]],
  [`no bar on or before ${DAY}`, "phrase.no_bar_before", ["day"]],
  [`the reference close of ${DAY} is (\\d+) days before the analysis date ${DAY}: no trade could be entered after it`, "phrase.stale", ["day", "days", "date"]],
  ["the verdict lacks its action, time horizon, stop loss or take profit", "phrase.lacks_levels", []],
  ["too few bars", "phrase.too_few_bars", []],
  ["only (\\d+) annual periods \\(asked for (\\d+)\\)", "phrase.annual_periods", ["count", "limit"]],
  ["no (.+) in any period", "phrase.no_item_any", ["item"]],
  ["no (.+) for ([\\d, ]+)", "phrase.no_item_years", ["item", "years"]],
  ["net profit attributable to the parent is not reported; total net profit is used", "phrase.parent_profit", []],
  ["no valuation history: the PE percentile is the source's \\(window not stated\\)", "phrase.no_pe_history", []],
  ["no PE percentile: no valuation history", "phrase.no_pe_percentile", []],
  ["no PB", "phrase.no_pb", []],
  ["no 10-year government bond yield for the earnings-yield comparison", "phrase.no_bond", []],
  ["no intrinsic value range: needs price, a positive PE and the 10-year yield", "phrase.no_range", []],
  ["no (.+) series", "phrase.no_series", ["item"]],
  ["no news from (.+)", "phrase.no_news", ["source"]],
].map(([pattern, key, names]) => [new RegExp(`^${pattern}$`), key, names]);

/** A named item inside a phrase ("gross margin") from the catalogue, else as it is. */
function item(name) {
  const word = t(`item.${name}`);
  return word === `item.${name}` ? name : word;
}

/** `text` in the reader's language when it is a phrase the table knows; otherwise unchanged. */
export function phrase(text) {
  if (typeof text !== "string") return text;
  for (const [pattern, key, names] of PHRASES) {
    const match = pattern.exec(text.trim());
    if (!match) continue;
    const params = Object.fromEntries(names.map((name, i) => [name, name === "item" ? item(match[i + 1]) : match[i + 1]]));
    return t(key, params);
  }
  return text;
}
