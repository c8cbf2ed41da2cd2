// A batch's ranked table as rows: each item's figures, its voting experts' contributions (from the batch's
// results) and its change since the previous run of the same watchlist; how the rows sort by a column.

import { contributionsOf } from "./contributions.js";

const ACTIONS = ["BUY", "HOLD", "SELL"];
const CHANGES = ["new_buy", "new_sell", "flip", "to_hold", "other", "new", "unchanged"];

/** What changed for a symbol between the previous run's item (`before`, undefined when the symbol was not in that
 * run) and this run's (`now`): {kind: new | unchanged | new_buy | new_sell | flip | to_hold | other, before}, or null
 * when this run has no verdict for it. */
export function changeOf(before, now) {
  if (!now.action) return null;
  if (!before) return { kind: "new", before: null };
  const was = before.action || null;
  if (was === now.action) return { kind: "unchanged", before: was };
  if ((was === "BUY" && now.action === "SELL") || (was === "SELL" && now.action === "BUY")) return { kind: "flip", before: was };
  if (now.action === "BUY") return { kind: "new_buy", before: was };
  if (now.action === "SELL") return { kind: "new_sell", before: was };
  if (was === "BUY" || was === "SELL") return { kind: "to_hold", before: was };
  return { kind: "other", before: was };
}

/** The voting experts' contributions of each item of a page of results, by session id. */
export function contributionsBySession(results) {
  const found = new Map();
  for (const item of results.items || []) {
    const research = item.research;
    const outcome = research?.verdict?.contributions
      ? { contributions: research.verdict.contributions, score: research.verdict.score }
      : research?.debate_outcome;
    const parts = contributionsOf(outcome);
    if (parts) found.set(item.session_id, parts.voters);
  }
  return found;
}

/** The table's rows in the server's order (best first): `view` the batch, `voters` contributionsBySession's map,
 * `previous` the previous run (a batch view) or null. */
export function rowsOf(view, voters, previous) {
  const before = previous ? new Map(previous.items.map((item) => [item.symbol, item])) : null;
  return view.items.map((item, index) => ({
    ...item,
    rank: index + 1,
    contributions: voters.get(item.session_id) || null,
    change: before ? changeOf(before.get(item.symbol), item) : null,
  }));
}

/** What a column sorts by: a number, a string, or null (always last). */
export function sortValue(row, key) {
  switch (key) {
    case "action":
      return row.action ? ACTIONS.indexOf(row.action) : null;
    case "change":
      return row.change ? CHANGES.indexOf(row.change.kind) : null;
    case "symbol":
      return row.symbol;
    default:
      return typeof row[key] === "number" && Number.isFinite(row[key]) ? row[key] : null;
  }
}

/** The rows sorted by `key`, "asc" or "desc"; rows without a value last either way, ties in rank order. */
export function sortRows(rows, key, direction) {
  const sign = direction === "desc" ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = sortValue(a, key);
    const y = sortValue(b, key);
    if (x === null || y === null) return x === y ? a.rank - b.rank : x === null ? 1 : -1;
    const order = typeof x === "string" ? x.localeCompare(y) : x - y;
    return order ? sign * order : a.rank - b.rank;
  });
}
