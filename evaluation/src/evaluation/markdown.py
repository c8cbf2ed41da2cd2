"""report.md: the report for reading, rendered from report.json's figures (so the two never disagree)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluation.comparison import STRATEGIES, STRATEGY_LABELS
from evaluation.formatting import DASH, interval, number, percent
from evaluation.samples import SAMPLE_LABELS, SAMPLES
from evaluation.verdicts import STATUSES
from verdict_statistics.scorecard import ACTIONS

CONFIGURATIONS = ("policy", "technical_only")
Report = dict[str, Any]
HEADINGS = {"whole": "Whole period", "in_sample": "In-sample", "out_of_sample": "Out-of-sample"}


def render_markdown(report: Report) -> str:
    """The whole report as Markdown, charts embedded by relative path."""
    parts = [
        _header(report),
        _how_to_read(report),
        _headline(report),
        _coverage(report),
        _actions(report),
        _per_action(report),
        _portfolio(report),
        _calibration(report),
        _stops(report),
        _caveats(),
    ]
    return "\n\n".join(part.strip("\n") for part in parts) + "\n"


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def _share(entry: dict[str, Any]) -> str:
    """A count with its share and the share's Wilson interval: ``12 (40.0% [24.6%, 57.7%])``."""
    share = entry["share"]
    if share["value"] is None:
        return str(entry["count"])
    return f"{entry['count']} ({percent(share['value'], 1)} [{percent(share['low'], 1)}, {percent(share['high'], 1)}])"


def _header(report: Report) -> str:
    o = report["options"]
    sell = "short (`--allow-short`)" if o["allow_short"] else "exit/avoid: flat, a short call for the hit rate"
    rows = [
        ("command", f"`{o['command']}`" if o["command"] else DASH),
        ("commit", o["commit"] or DASH),
        ("machine", o["machine"] or DASH),
        ("range", f"{o['start']} → {o['end']}, grid {o['grid']} ({len(report['grid'])} dates)"),
        ("symbols", str(len(report["symbols"]))),
        ("split", f"in-sample: analysis date before {o['split_date']}; out-of-sample: from {o['split_date']}"),
        ("experts (policy)", ", ".join(o["experts"]) or DASH),
        ("engine", o["engine"] + (" (LLM)" if o["llm"] else "")),
        ("SELL", sell),
    ]
    warnings = "\n\n".join(f"> **Warning.** {text}" for text in report["warnings"])
    return "# Walk-forward evaluation\n\n" + table(["run", ""], rows) + ("\n\n" + warnings if warnings else "")


def _how_to_read(report: Report) -> str:
    days = report["method"]["holding_days"]
    return f"""## How to read this

On every grid date each symbol was researched as of that date in two configurations: `policy` (the experts
above, the product's verdict) and `technical_only` (the technical analyst alone through the same debate and
judge, a baseline). Each verdict is scored on the daily bars after it: entry at the **next open** after the
close of its `as_of` day (a BUY that opens limit-up, a SELL that opens limit-down: *no fill*), held
{days["SHORT_TERM"]}/{days["MEDIUM_TERM"]}/{days["LONG_TERM"]} trading days for a short/medium/long horizon
unless the stop or take-profit is reached first, paying a round-trip cost of
{percent(report["method"]["round_trip_cost"])}; a verdict whose horizon has not ended yet is *pending* and left
out of returns and hit rates. Every figure states its sample size n. A mean is shown as
`value [low, high]`, its 95 % confidence interval; a share or hit rate with its 95 % Wilson interval. An
interval that contains 0 (for a return) is no evidence of an edge, however good the value looks.
*In-sample* are analysis dates before the split date, *out-of-sample* those from it on; rules tuned by
looking at this data can only be judged on the out-of-sample rows. Method and caveats: `docs/evaluation.md`."""


def _headline(report: Report) -> str:
    days = report["method"]["ic_horizon_days"]
    ic_rows, spread_rows, like_rows = [], [], []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            ic = report["ic"][c][sample]
            ic_rows.append(
                [
                    c,
                    SAMPLE_LABELS[sample],
                    interval(ic["mean"], 3, as_percent=False),
                    _wilson(ic["positive_months"]),
                    ic["observations"],
                ]
            )
            q = report["quintiles"][c][sample]
            spread_rows.append(
                [
                    c,
                    SAMPLE_LABELS[sample],
                    interval(q["top"]),
                    interval(q["bottom"]),
                    interval(q["spread_net"]),
                    interval(q["top_net_minus_all"]),
                ]
            )
            lk = report["like_for_like"][c][sample]
            like_rows.append(
                [
                    c,
                    SAMPLE_LABELS[sample],
                    interval(lk["buy"]),
                    lk["buy_no_fill"],
                    interval(lk["rest"]),
                    interval(lk["difference_per_date"]),
                ]
            )
    minimum = report["method"]["ic_min_per_date"]
    text = (
        "## Headline: does the score rank the stocks?\n\nOn each grid date, the Spearman rank correlation (IC) of "
        f"each verdict's score with the stock's next {days} trading days' return entered at the next open (the "
        "score: `verdict.score`, else the debate's confidence signed by its direction). One IC per date with at "
        f"least {minimum} scored stocks; the mean is over dates (months on the month-end grid), its 95 % t "
        "interval too: months are the unit, not stocks.\n\n"
    )
    text += table(["configuration", "sample", "mean IC [95 % CI] (n dates)", "dates with IC > 0", "verdicts"], ic_rows)
    excluded = sorted(
        {d for c in CONFIGURATIONS for d in report["ic"][c]["whole"].get("fallback_verdicts_left_out_on", [])}
    )
    if excluded:
        text += (
            "\n\nLeft out of every ranking statistic: the verdicts without a `score`, which the previous policy's "
            f"fallback (the debate's signed confidence) would rank, on {len(excluded)} date(s): {', '.join(excluded)}."
        )
    text += "\n\n" + _beside_liquidity(report)
    cost = percent(report["method"]["round_trip_cost"])
    text += (
        f"\n\n**Quintile spread.** Per date, the mean {days}-day return of the top fifth by score (bought: a "
        "limit-up open not filled) minus the bottom fifth (sold short: a limit-down open not filled), each leg paying "
        f"the round-trip cost {cost}; and the top fifth net of its cost minus the date's mean (long-only).\n\n"
    )
    text += "\n".join(
        f"- {c}, {SAMPLE_LABELS[s]}: {report['quintiles'][c][s]['statement']}"
        for c in CONFIGURATIONS
        for s in SAMPLES
        if s != "whole"
    )
    text += "\n\n" + table(
        ["configuration", "sample", "top (gross)", "bottom (gross)", "top − bottom, net", "top net − all"], spread_rows
    )
    text += (
        f"\n\n**Like for like.** BUY verdicts (net of the cost; limit-up opens not filled) against every other "
        f"verdict (no trade) over the same {days} days from the next open; the difference per date is the mean "
        "over dates with both.\n\n"
    )
    return text + table(
        [
            "configuration",
            "sample",
            "BUY, per trade",
            "BUY not filled",
            "others, per verdict",
            "BUY − others, per date",
        ],
        like_rows,
    )


def _beside_liquidity(report: Report) -> str:
    """The score's IC beside that of −log 20-day traded value on the same cells, their paired difference and the
    size-neutral IC, with what the paired difference says."""
    rows, statements = [], []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            liquidity = report["benchmarks"][c][sample]["liquidity"]
            rows.append(
                [
                    c,
                    SAMPLE_LABELS[sample],
                    interval(liquidity["score_mean"], 3, as_percent=False),
                    interval(liquidity["mean"], 3, as_percent=False),
                    interval(liquidity["paired_difference"], 3, as_percent=False),
                    interval(report["ic_size_neutral"][c][sample]["mean"], 3, as_percent=False),
                ]
            )
            statements.append(f"- {c}, {SAMPLE_LABELS[sample]}: {liquidity['statement']}")
    bars = report["benchmarks"]["policy"]["whole"]["liquidity"]["window_bars"]
    text = (
        "**Beside a size/liquidity tilt.** The simplest factor that could explain the score is −log of the stock's "
        f"mean traded value (close × volume) over the {bars} bars up to its entry day: small, illiquid stocks "
        "first. Its IC is taken on the same stocks and dates as the score's and against the same return; *score − "
        "liquidity* is the difference of the two ICs paired by date, and the *size-neutral* IC ranks what is left of "
        "the score once each date's log traded value is regressed out. Were the score only a size tilt, both would "
        "be near 0.\n\n"
    )
    headers = ["configuration", "sample", "score IC (same cells)", "−log traded value IC", "score − liquidity"]
    return text + "\n".join(statements) + "\n\n" + table([*headers, "size-neutral IC"], rows)


def _wilson(estimate: dict[str, Any]) -> str:
    if estimate["value"] is None:
        return DASH
    return f"{percent(estimate['value'], 0)} of {estimate['n']}"


def _coverage(report: Report) -> str:
    rows, reasons = [], []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            cov = report["coverage"][c][sample]
            by = cov["by_status"]
            rows.append([c, SAMPLE_LABELS[sample], cov["n"], *(_share(by[s]) for s in STATUSES), cov["partial"]])
        whole = report["coverage"][c]["whole"]
        for kind, key in (("refused", "refusal_reasons"), ("failed", "failure_reasons")):
            reasons += [[c, kind, item["reason"], item["count"]] for item in whole[key]]
    engines = "; ".join(
        f"{c}: " + (", ".join(f"{k} {v}" for k, v in report["coverage"][c]["whole"]["engines"].items()) or DASH)
        for c in CONFIGURATIONS
    )
    text = "## 1. Coverage\n\nResearches by status (count, share [95 % CI]); *partial*: ok, but an expert failed.\n\n"
    text += table(["configuration", "sample", "n", "ok", "refused", "failed", "partial"], rows)
    text += (
        "\n\nWhy researches were refused or failed (whole period; grouped by the text before the first colon, "
        "numbers in parentheses left out):\n\n"
    )
    text += table(["configuration", "status", "reason", "count"], reasons) if reasons else "None."
    return text + f"\n\nVerdict engines (ok researches, whole period): {engines}."


def _actions(report: Report) -> str:
    rows = []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            a = report["actions"][c][sample]
            counts = [_share(a["counts"][action]) for action in ACTIONS]
            rows.append([c, SAMPLE_LABELS[sample], a["n"], *counts, interval(a["flip_rate"], 1)])
    sweeps = []
    for c in CONFIGURATIONS:
        k = report["concentration"][c]["whole"]
        worst = k["max"]
        top = f"{percent(worst['share'], 0)} {worst['action']} on {worst['date']}" if worst["date"] else DASH
        sweeps.append([c, k["dates"], k["dates_over_limit"], top])
    limit = percent(report["concentration"]["policy"]["whole"]["limit"], 0)
    return (
        "## 2. Actions\n\nVerdicts by action (count, share [95 % CI]). Flip rate: the share of a symbol's consecutive "
        "verdicts (date order; n = pairs) whose action changed.\n\n"
        + table(["configuration", "sample", "verdicts", *ACTIONS, "flip rate"], rows)
        + f"\n\nMarket-wide sweeps: dates on which more than {limit} of the verdicts took one directional action "
        "(BUY or SELL), whole period.\n\n"
        + table(["configuration", "dates", f"dates over {limit}", "largest share"], sweeps)
        + f"\n\n![Actions per grid date]({report['charts']['actions_over_time']})"
    )


def _per_action(report: Report) -> str:
    rows = []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            for action in ACTIONS:
                s = report["per_action"][c][sample][action]
                exits = "/".join(str(s["exits"][k]) for k in ("stop", "target", "horizon"))
                rows.append(
                    [
                        c,
                        SAMPLE_LABELS[sample],
                        action,
                        s["count"],
                        s["scored"],
                        s["pending"],
                        s["no_fill"],
                        interval(s["hit_rate"], 1) if s["hit_rate"] is not None else DASH,
                        interval(s["call_return"]["mean"]) if action != "HOLD" else DASH,
                        percent(s["call_return"]["median"]),
                        interval(s["realised_return"]["mean"]),
                        exits,
                    ]
                )
    headers = ["configuration", "sample", "action", "n", "scored", "pending", "no fill", "hit rate"]
    headers += ["mean call return"]
    headers += ["median call return", "mean realised return", "exits stop/target/horizon"]
    return (
        "## 3. Verdicts by action\n\nHit rate: the call made money (BUY long, SELL as a short call; HOLD makes "
        "no call). Call return: the directional return from the next open to the exit, after the round-trip cost. "
        "Realised return: what the position earned (SELL is flat unless shorting is allowed, HOLD is flat). No "
        "fill: the entry day opened at the daily limit against the order. Returns are per trade, not annualised; "
        "calls overlap in time and move together, so per-trade intervals are too narrow.\n\n" + table(headers, rows)
    )


def _portfolio(report: Report) -> str:
    p = report["portfolio"]
    unit = p["period_unit"]
    source = {
        "market": "the budget times the market view's share (the mean `market_exposure` of the date's verdicts; "
        "the whole budget when they state none)",
        "verdict": "the sum of the chosen verdicts' positions, capped at the budget",
        "constant": "the whole budget whenever a stock is chosen",
    }[p["exposure_source"]]
    text = (
        f"## 4. Portfolio\n\nOn every grid date the portfolio trades at the next open to target weights: the BUY "
        f"verdicts (SELL short only with `--allow-short`), {p['weighting']} weights within a gross exposure of "
        f"{source} (budget {number(p['budget'])} of the capital, never exceeded), held to the next rebalance; a "
        f"trade pays half the round-trip cost {percent(p['cost'])} on each side; an order into a limit open or a "
        f"halted stock keeps the previous weight. Baselines over the same periods and costs: the equal-weight "
        f"universe (N = {p['n_symbols']}), the same scaled to the policy's mean exposure on each sample, and a "
        f"50/200-day MA crossover (1/N per stock above its 200-day average). Sharpe: annualised with "
        f"{p['periods_per_year']} periods a year, risk-free 0, **always next to the mean gross exposure**. "
        f"Turnover: mean Σ|weight change| per {unit}. The last column is the policy's mean return per {unit} minus "
        "the strategy's, with its 95 % CI.\n\n**Policy against the equal-weight universe at the same exposure, and "
        "raw:**\n\n"
    )
    text += "\n".join(
        f"- {SAMPLE_LABELS[s]}: {p['excess_over'][b][s]['statement']}"
        for b in ("equal_weight_matched", "equal_weight")
        for s in SAMPLES
    )
    headers = ["strategy", f"{unit}s", "mean exposure", "total return", f"mean return per {unit}", "Sharpe"]
    headers += ["max drawdown", "turnover", "costs", f"policy − strategy, per {unit}"]
    for sample in SAMPLES:
        rows = []
        for name in STRATEGIES:
            s = p["strategies"][name][sample]
            excess = interval(p["excess_over"][name][sample]["mean"]) if name != "policy" else DASH
            rows.append(
                [
                    STRATEGY_LABELS[name],
                    s["periods"],
                    percent(s["mean_exposure"], 1),
                    percent(s["total_return"]),
                    interval(s["mean_return"]),
                    f"{number(s['sharpe'])} (at {percent(s['mean_exposure'], 0)})",
                    percent(s["max_drawdown"]),
                    percent(s["turnover"], 1),
                    percent(s["costs"]),
                    excess,
                ]
            )
        text += f"\n\n### {HEADINGS[sample]}\n\n" + table(headers, rows)
    return text + f"\n\n![Equity curves]({report['charts']['equity_curves']})"


def _calibration(report: Report) -> str:
    rows = []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            b = report["calibration"][c][sample]["brier"]
            brier_tail = [number(b["base_rate_score"], 4), number(b["skill"], 3)]
            rows.append(
                [c, SAMPLE_LABELS[sample], b["n"], percent(b["base_rate"], 1), number(b["score"], 4), *brier_tail]
            )
    bins = [
        [_bin(b), b["n"], number(b["mean_confidence"], 3), interval(b["hit_rate"], 1)]
        for b in report["calibration"]["policy"]["out_of_sample"]["bins"]
        if b["n"]
    ]
    text = (
        "## 5. Calibration\n\nThe verdict's confidence against whether the call made money (scored BUY and SELL "
        "calls). Brier score: mean squared gap between confidence and outcome; the base-rate Brier is that of "
        "always predicting the observed hit rate; skill = 1 − Brier / base-rate Brier (above 0 beats it).\n\n"
    )
    text += table(["configuration", "sample", "n", "base rate", "Brier", "base-rate Brier", "skill"], rows)
    constants = []
    for c in CONFIGURATIONS:
        k = report["calibration"][c]["out_of_sample"]["against_in_sample_constant"]
        constants.append([c, k["n"], percent(k["rate"], 1), number(k["score"], 4), number(k["skill"], 3)])
    text += (
        "\n\nOut of sample against the constant known at the split (always the in-sample hit rate): skill above 0 "
        "means the confidence beat it.\n\n"
    )
    text += table(["configuration", "n", "in-sample hit rate", "its Brier out of sample", "skill"], constants)
    text += "\n\nPolicy, out-of-sample calls only, by confidence bin (empty bins left out):\n\n"
    text += table(["confidence", "n", "mean confidence", "hit rate"], bins) if bins else "No scored calls."
    return text + "\n\n" + _probability(report) + f"\n\n![Reliability diagram]({report['charts']['reliability']})"


KIND_LABELS = {"trades": "trades (BUY+SELL)", "hold": "HOLD"}


def _probability(report: Report) -> str:
    """The confidence as the probability that the call is right, trades and HOLDs, against the realised constant."""
    rows, bins = [], []
    for c in CONFIGURATIONS:
        for sample in SAMPLES:
            for kind, label in KIND_LABELS.items():
                k = report["calibration"][c][sample][kind]
                if c != "policy" and not k["n"]:
                    continue
                within = DASH if k["within_tolerance"] is None else ("yes" if k["within_tolerance"] else "no")
                rows.append(
                    [
                        c,
                        SAMPLE_LABELS[sample],
                        label,
                        k["n"],
                        k["months"],
                        percent(k["hit_rate"]["value"], 1),
                        number(k["brier"], 4),
                        number(k["constant_brier"], 4),
                        interval(k["excess"], 4, as_percent=False),
                        interval(k["skill"], 3, as_percent=False),
                        within,
                    ]
                )
    for kind, label in KIND_LABELS.items():
        for b in report["calibration"]["policy"]["out_of_sample"][kind]["bins"]:
            bounds = f"{number(b['low'], 3)}–{number(b['high'], 3)}"
            bins.append([label, bounds, b["n"], number(b["mean_confidence"], 3), interval(b["hit_rate"], 1)])
    tolerance = report["calibration"]["policy"]["whole"]["trades"]["tolerance"]
    text = (
        "### The confidence as the probability that the call is right\n\nA BUY or SELL is right when its trade "
        "was profitable after costs; a HOLD when the long it declined (next open, 20 trading days) lost after "
        "costs. The constant is the realised hit rate of the same calls (the best constant in hindsight); excess "
        "= Brier − the constant's, skill = 1 − Brier / the constant's, each with a 95 % interval from resampling "
        f"months (n = months). Within tolerance: excess ≤ {number(tolerance, 3)}.\n\n"
    )
    headers = ["configuration", "sample", "calls", "n", "months", "hit rate", "Brier", "constant's Brier"]
    text += table([*headers, "excess", "skill", "within tolerance"], rows)
    text += "\n\nPolicy, out-of-sample calls, equal-count bins of the confidence:\n\n"
    text += table(["calls", "confidence", "n", "mean confidence", "hit rate"], bins) if bins else "No scored calls."
    return text


def _bin(b: dict[str, Any]) -> str:
    return f"{number(b['low'], 1)}–{number(b['high'], 1)}"


def _distribution_row(d: dict[str, Any]) -> list[object]:
    ratio = f"{number(d['target_to_stop_median']['value'])} (n={d['target_to_stop_median']['n']})"
    return [d["n"], number(d["median"]), number(d["p10"]), number(d["p90"]), interval(d["within_band"], 1), ratio]


def _stops(report: Report) -> str:
    low, high = report["method"]["atr_band"]
    rows = [
        [c, SAMPLE_LABELS[s], *_distribution_row(report["stop_distance"][c][s])]
        for c in CONFIGURATIONS
        for s in SAMPLES
    ]
    symbols = [[d["symbol"], *_distribution_row(d)] for d in report["stop_distance_by_symbol"]["policy"]]
    band = f"within {number(low, 0)}–{number(high, 0)} ATR"
    headers = ["n", "median", "p10", "p90", band, "take-profit/stop median"]
    text = (
        "## 6. Stop distance in ATR multiples\n\nFor BUY and SELL verdicts with the technical analyst's ATR(14): "
        "|stop %| / 100 × entry close / ATR.\n\n"
    )
    text += table(["configuration", "sample", *headers], rows)
    text += "\n\nPolicy, whole period, per symbol:\n\n"
    return text + (table(["symbol", *headers], symbols) if symbols else "No stop distances.")


def _caveats() -> str:
    return """## Caveats

- Prices are forward-adjusted (qfq) as of the snapshot's fetch: returns are right, absolute levels before
  later dividends are not the prices traded then.
- Survivorship: the universe is the snapshot's, liquid names chosen in 2025; names that fell out before then
  are missing, which flatters buy-and-hold and any long strategy alike.
- The grid dates are calendar dates; a holiday moves the entry to the last close before it.
- Samples are small and not independent: trades overlap in time and symbols move together, so per-trade
  intervals are too narrow; the portfolio's period returns are the fairer test, and even those assume
  independent periods."""
