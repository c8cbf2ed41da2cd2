// The verdict's price levels: one entry price (the verdict's reference price: the close of the analysis date that
// the stop's and the target's percentages are measured from) and the stop and target as prices, or none.

/** An absolute level: its price, else the entry moved by its percent. */
function level(entry, value) {
  if (!value) return null;
  if (typeof value.price === "number") return value.price;
  if (typeof entry === "number" && typeof value.percent_from_entry === "number") return entry * (1 + value.percent_from_entry / 100);
  return null;
}

/** The entry the judge measured a level's percent from (price ÷ (1 + percent)), or null. */
function entryOf(value) {
  if (!value || typeof value.price !== "number" || typeof value.percent_from_entry !== "number") return null;
  return value.price / (1 + value.percent_from_entry / 100);
}

/** {entry, entryDay, stop, target}: the verdict's reference price and date when it has them, else the entry its
 * levels were measured from (an older session's), else none: the console never makes up a price the verdict does not
 * have. */
export function levelsOf(verdict) {
  const entry = verdict?.reference_price ?? entryOf(verdict?.stop_loss) ?? entryOf(verdict?.take_profit) ?? null;
  const entryDay = typeof verdict?.reference_price === "number" ? verdict?.reference_date ?? null : null;
  return { entry, entryDay, stop: level(entry, verdict?.stop_loss), target: level(entry, verdict?.take_profit) };
}
