"""Does the verdict's score rank the stocks? The report's headline: on each grid date (a month on the month-end
grid), the cross-sectional Spearman IC of each verdict's signed score (``ResearchRecord.signed_score``) with
the stock's next ``IC_HORIZON_DAYS``-day return entered at the next open; the top-minus-bottom quintile spread
net of costs; and BUY against every other verdict over the same 20 days (like for like).

Months are the unit: each date's cross-section gives one IC, one spread, one BUY-minus-rest difference, and
the interval is over dates. A date counts with at least ``MIN_SCORED_PER_MONTH`` scored stocks. Beside the score,
on the same cells: the IC of −log 20-day traded value, the paired difference and the size-neutral IC
(``verdict_statistics.benchmarks``).

Example::

    ranked = ranked_verdicts(records, series)            # one per ok verdict with a score and a forward return
    ic_section([(r.key, r.score, r.forward.value) for r in ranked])
    liquidity_benchmark(ranked_cells(ranked, series))["paired_difference"]  # score IC − liquidity IC, by month
    quintile_spread(ranked, cost=0.003)["spread_net"]    # {"value", "low", "high", "n"}
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats

from evaluation.bar_series import BarSeries
from evaluation.records import ResearchRecord
from shared_contracts.price_limits import blocks
from shared_contracts.scoring import IC_HORIZON_DAYS, ForwardReturn, forward_return
from verdict_statistics.benchmarks import RankedCell, log_traded_value
from verdict_statistics.metrics import MIN_SCORED_PER_MONTH, Estimate, mean_ci
from verdict_statistics.scorecard import Json, estimate_json, ic_section

QUINTILE = 0.2
"""The top and bottom fifth of a date's cross-section by score (ties share their average rank)."""


@dataclass(frozen=True)
class RankedVerdict:
    record: ResearchRecord
    score: float
    forward: ForwardReturn

    @property
    def key(self) -> str:
        """The cross-section it belongs to: its analysis date."""
        return self.record.analysis_date.isoformat()


def fallback_dates(records: Sequence[ResearchRecord]) -> list[str]:
    """Dates on which a policy that has a ``score`` would have ranked some ``ok`` verdict by the previous policy's
    fallback (the debate's signed confidence, for a verdict without a score: ``ResearchRecord.signed_score``). The
    ranking statistics leave those verdicts out (``ranked_verdicts``), so a date scored by the fallback alone has no
    IC. Empty for a policy without scores (the previous one), which is ranked by its fallback throughout."""
    ok = [r for r in records if r.status == "ok"]
    if not any(r.score is not None for r in ok):
        return []
    return sorted({r.analysis_date.isoformat() for r in ok if r.score is None and r.signed_score is not None})


def ranked_verdicts(records: Sequence[ResearchRecord], series: Mapping[str, BarSeries]) -> list[RankedVerdict]:
    """Every ``ok`` record with a signed score and a complete forward return (not stale, horizon passed); for a
    policy that has scores, only the verdicts with one (``fallback_dates``)."""
    scored_only = any(r.score is not None for r in records if r.status == "ok")
    out = []
    for record in records:
        if scored_only and record.score is None:
            continue
        score = record.signed_score
        bars = series.get(record.symbol)
        if score is None or bars is None:
            continue
        window = bars.from_entry(record.entry_day, IC_HORIZON_DAYS)
        forward = forward_return(
            window, signal_day=record.entry_day, symbol=record.symbol, analysis_day=record.analysis_date
        )
        if forward is not None:
            out.append(RankedVerdict(record, score, forward))
    return out


def information_coefficient(ranked: Sequence[RankedVerdict]) -> Json:
    """``verdict_statistics.scorecard.ic_section`` with one cross-section per analysis date."""
    return ic_section([(r.key, r.score, r.forward.value) for r in ranked])


def ranked_cells(ranked: Sequence[RankedVerdict], series: Mapping[str, BarSeries]) -> list[RankedCell]:
    """Each ranked verdict as a cell of the liquidity benchmark: its date, score, forward return and the log of its
    stock's mean traded value over the 20 bars up to and including its entry day (no later bar is read)."""
    return [
        RankedCell(r.key, r.score, r.forward.value, log_traded_value(series[r.record.symbol].bars, r.record.entry_day))
        for r in ranked
    ]


def _by_date(ranked: Sequence[RankedVerdict]) -> dict[str, list[RankedVerdict]]:
    groups: dict[str, list[RankedVerdict]] = defaultdict(list)
    for item in ranked:
        groups[item.key].append(item)
    return {key: groups[key] for key in sorted(groups)}


def _statement(estimate: Estimate, what: str) -> str:
    if estimate.low is None or estimate.high is None:
        return f"Too few dates for an interval: nothing can be claimed about {what}."
    if estimate.low > 0:
        return f"{what} is positive: the 95 % interval lies above 0."
    if estimate.high < 0:
        return f"{what} is negative: the 95 % interval lies below 0."
    return f"No significant {what}: the 95 % interval includes 0."


def quintile_spread(ranked: Sequence[RankedVerdict], *, cost: float) -> Json:
    """Per date, the mean forward return of the top score quintile bought (a limit-up open not filled) minus the
    bottom quintile sold short (a limit-down open not filled), each leg paying ``cost``: ``spread_net`` =
    top − bottom − 2 × cost. Also the top quintile net of its cost against the date's mean (a long-only
    investor's excess). Means over dates with a t 95 % interval; dates with fewer than
    ``MIN_SCORED_PER_MONTH`` stocks, or an empty leg, are left out."""
    spreads, excess, tops, bottoms = [], [], [], []
    for group in _by_date(ranked).values():
        if len(group) < MIN_SCORED_PER_MONTH:
            continue
        ranks = stats.rankdata([item.score for item in group], method="average")
        top, bottom = [], []
        for item, rank in zip(group, ranks, strict=True):
            percentile = (float(rank) - 1.0) / (len(group) - 1)
            if percentile >= 1.0 - QUINTILE and not blocks(1, item.forward.at_limit):
                top.append(item.forward.value)
            elif percentile <= QUINTILE and not blocks(-1, item.forward.at_limit):
                bottom.append(item.forward.value)
        if not top or not bottom:
            continue
        top_mean, bottom_mean = statistics.fmean(top), statistics.fmean(bottom)
        tops.append(top_mean)
        bottoms.append(bottom_mean)
        spreads.append(top_mean - bottom_mean - 2.0 * cost)
        excess.append(top_mean - cost - statistics.fmean(item.forward.value for item in group))
    spread = mean_ci(spreads)
    return {
        "cost": cost,
        "top": estimate_json(mean_ci(tops)),
        "bottom": estimate_json(mean_ci(bottoms)),
        "spread_net": estimate_json(spread),
        "top_net_minus_all": estimate_json(mean_ci(excess)),
        "statement": _statement(spread, "top-minus-bottom spread net of costs"),
    }


def buy_against_rest(ranked: Sequence[RankedVerdict], *, cost: float) -> Json:
    """Like for like: the 20-day next-open return of BUY verdicts (net of ``cost``; a limit-up open not filled)
    against that of every other verdict (no trade, no cost) over the same days. Per trade means, and per date
    the BUY mean minus the rest's mean, averaged over dates with both (t 95 % interval)."""
    buys, rest, differences = [], [], []
    for group in _by_date(ranked).values():
        bought = [
            item.forward.value - cost
            for item in group
            if item.record.action == "BUY" and not blocks(1, item.forward.at_limit)
        ]
        others = [item.forward.value for item in group if item.record.action != "BUY"]
        buys += bought
        rest += others
        if bought and others:
            differences.append(statistics.fmean(bought) - statistics.fmean(others))
    difference = mean_ci(differences)
    no_fill = sum(item.record.action == "BUY" and blocks(1, item.forward.at_limit) for item in ranked)
    return {
        "horizon_days": IC_HORIZON_DAYS,
        "cost": cost,
        "buy": estimate_json(mean_ci(buys)),
        "buy_no_fill": no_fill,
        "rest": estimate_json(mean_ci(rest)),
        "difference_per_date": estimate_json(difference),
        "statement": _statement(difference, "difference between BUY and the other verdicts"),
    }
