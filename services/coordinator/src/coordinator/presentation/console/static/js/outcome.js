// A session's outcome in one sentence in the reader's language: the exit (day, price, why, the call's return), a
// HOLD's no-trade, or why it is pending, not scorable or unavailable.

import { pct, price } from "./format.js";
import { enumWord, t } from "./i18n.js";
import { phrase } from "./phrases.js";

/** The sentence for `outcome` of a verdict `action` on `symbol`; "" without an outcome. */
export function outcomeText(outcome, action, symbol) {
  if (!outcome) return "";
  if (outcome.status === "scored") {
    if (action === "HOLD" || outcome.call_return === null || outcome.call_return === undefined) {
      return t("outcome.scored_hold", { from: outcome.entry_day ?? "", day: outcome.exit_day ?? "", ret: pct(outcome.underlying_return) });
    }
    return t("outcome.scored", {
      day: outcome.exit_day,
      price: price(outcome.exit_price, symbol),
      reason: enumWord(outcome.exit_reason),
      ret: pct(outcome.call_return),
    });
  }
  const key = ["pending", "not_scorable", "no_fill", "unavailable"].includes(outcome.status) ? outcome.status : "pending";
  return t(`outcome.${key}`, { reason: phrase(outcome.reason || "") || enumWord(outcome.status) });
}
