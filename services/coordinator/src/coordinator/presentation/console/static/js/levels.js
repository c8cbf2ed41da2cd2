// The verdict's price levels: one entry price (the verdict's reference price: the close of the analysis date that
// the stop's and the target's percentages are measured from) and the stop and target as prices.

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
 * levels were measured from, else the last close on or before the analysis date (`bars`, oldest first). */
export function levelsOf(verdict, bars, analysisDate) {
  const before = (bars || []).filter((b) => b.date.slice(0, 10) <= (analysisDate || "9999-12-31"));
  const close = before.at(-1);
  const entry = verdict?.reference_price ?? entryOf(verdict?.stop_loss) ?? entryOf(verdict?.take_profit) ?? close?.close ?? null;
  const entryDay = verdict?.reference_date ?? close?.date?.slice(0, 10) ?? null;
  return { entry, entryDay, stop: level(entry, verdict?.stop_loss), target: level(entry, verdict?.take_profit) };
}
