"""The decision is explained by its own research (issue 52): over every symbol of the offline snapshot on four
dates, in both languages, with the rules engines (``in_process_grid``):

- a BUY comes from a BULLISH debate, which has at least one bullish voting expert and a positive sum of
  contributions; a SELL mirrors it;
- the contributions add up to the debate's and the verdict's score (within 0.005), and the verdict's score and
  rank are the debate's;
- every figure the debate's resolution and the verdict's reasoning state for the score, the rank, the
  contributions and the market exposure is the structured field's;
- no bull case says that no expert (or no dimension) is bullish beside a BUY, and no bear case the mirror beside a
  SELL;
- one entry price (issue 51): the verdict's reference price is the judge's, at the market's tick, its levels are
  measured from it and its texts quote it; a HOLD's entry strategy says its levels apply only if entering, and a
  HOLD states no market exposure kept.

The counts are printed (``pytest -s``) and recorded in docs/decisions.md, "One decision (issue 52)"."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from in_process_grid import Research, every

from shared_contracts.experts import EXPERT_LABELS, stance_of
from shared_contracts.projection import summarize_expert_result
from shared_contracts.text import format_price, tick_decimals

SCORE = re.compile(r"(?:综合得分|composite score(?: in its reference universe is)?) ([+-]\d+\.\d\d)")
SUM = re.compile(r" = ([+-]\d+\.\d\d)(?=（| \(|；|;)")
"""The resolution's "score = … = +0.40" before its non-voters or its rank."""
RANK = re.compile(r"(?:池内分位|universe rank) (\d\.\d\d)")
EXPOSURE = re.compile(r"(?:仓位保留|the position keeps) (\d+)%")
NO_BULL = ("无人看多", "none of the", "没有一个维度", "no dimension adds")
NO_BEAR = ("无人看空", "没有一个维度在参照池中为综合得分减分", "no dimension takes")


@pytest.fixture(scope="module")
def runs(rules_grid: dict[str, list[Research]]) -> dict[str, list[Research]]:
    return rules_grid


def _contributions(r: Research) -> list[dict[str, Any]]:
    return list(r.debate.get("contributions") or [])


def test_every_trade_stands_on_its_experts_and_the_debate(runs: dict[str, list[Research]]) -> None:
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    for r in every(runs):
        action, direction = r.verdict["action"], r.debate["direction"]
        counts[action] += 1
        counts["with contributions"] += bool(_contributions(r))
        if r.experts["technical_analyst"] is not None and not _contributions(r):
            wrong.append(r.where("the technical analyst answered, yet the debate weighed no standing"))
        if action == "HOLD":
            continue
        side = "BULLISH" if action == "BUY" else "BEARISH"
        sign = 1.0 if action == "BUY" else -1.0
        voters = [c for c in _contributions(r) if c["votes"]]
        total = sum(float(c["contribution"]) for c in voters)
        if direction != side:
            wrong.append(r.where(f"{action} on a {direction} debate"))
        if not any(c["signal"] == side for c in voters):
            wrong.append(r.where(f"{action} without a {side} voting expert: {voters}"))
        if not sign * total > 0:
            wrong.append(r.where(f"{action} with contributions summing to {total:+.4f}"))
    print(f"\ncoherence sweep: {dict(counts)}; incoherent trades: {len(wrong)}")
    assert counts["BUY"] > 0
    assert counts["SELL"] > 0
    assert counts["with contributions"] > 0.7 * sum(counts[a] for a in ("BUY", "SELL", "HOLD"))
    assert wrong[:20] == []


def test_the_contributions_sum_to_the_score(runs: dict[str, list[Research]]) -> None:
    checked, off = 0, []
    for r in every(runs):
        contributions = _contributions(r)
        assert r.verdict["score"] == r.debate.get("score"), r.where("verdict and debate scores differ")
        assert r.verdict["universe_rank"] == r.debate.get("universe_rank"), r.where("ranks differ")
        if not contributions:
            continue
        total = sum(float(c["contribution"]) for c in contributions)
        checked += 1
        if abs(total - r.debate["score"]) > 0.005:
            off.append(r.where(f"Σ {total:+.4f} against score {r.debate['score']:+.4f}"))
        assert all(c["contribution"] == 0 for c in contributions if not c["votes"]), r.where("a non-voter counts")
    print(f"\ncontributions summed: {checked} researches, {len(off)} off by more than 0.005")
    assert checked > 500
    assert off[:20] == []


def test_the_texts_state_the_structured_figures(runs: dict[str, list[Research]]) -> None:
    stated, wrong = Counter[str](), []
    for r in every(runs):
        score, rank = r.debate.get("score"), r.debate.get("universe_rank")
        if score is None:
            continue  # no standing: the experts' own votes were weighed (no composite figures to state)
        texts = {"resolution": r.debate["conflict_resolution"], "verdict": r.verdict["reasoning"]}
        for where, text in texts.items():
            for figure in SCORE.findall(text) + SUM.findall(text):
                stated["score"] += 1
                if score is None or figure != f"{score:+.2f}":
                    wrong.append(r.where(f"{where} states score {figure}, the field is {score}"))
            for figure in RANK.findall(text):
                stated["rank"] += 1
                if rank is None or figure != f"{rank:.2f}":
                    wrong.append(r.where(f"{where} states rank {figure}, the field is {rank}"))
            for c in _contributions(r):
                label = EXPERT_LABELS[r.language].get(str(c["expert"]), str(c["expert"]))
                for figure in re.findall(rf"{re.escape(label)} ([+-]\d+\.\d\d)", text):
                    stated["contribution"] += 1
                    if figure != f"{float(c['contribution']):+.2f}":
                        wrong.append(r.where(f"{where} states {label} {figure}, the field is {c['contribution']}"))
        for figure in EXPOSURE.findall(r.verdict["reasoning"]):
            stated["exposure"] += 1
            exposure = r.verdict.get("market_exposure")
            if exposure is None or int(figure) != round(exposure * 100):
                wrong.append(r.where(f"verdict states exposure {figure}%, the field is {exposure}"))
    print(f"\nfigures stated and checked: {dict(stated)}")
    assert min(stated[k] for k in ("score", "rank", "contribution", "exposure")) > 100
    assert wrong[:20] == []


def test_no_case_denies_the_side_the_verdict_takes(runs: dict[str, list[Research]]) -> None:
    denied = []
    for r in every(runs):
        if r.verdict["action"] == "BUY" and any(p in r.debate["bull_case"]["core_thesis"] for p in NO_BULL):
            denied.append(r.where(r.debate["bull_case"]["core_thesis"]))
        if r.verdict["action"] == "SELL" and any(p in r.debate["bear_case"]["core_thesis"] for p in NO_BEAR):
            denied.append(r.where(r.debate["bear_case"]["core_thesis"]))
    assert denied[:20] == []


IF_ENTERING = {"zh": "止损/止盈位仅在入场时适用", "en": "The stop and take-profit apply only if entering"}
UNPRICED = ("没有可执行的价格依据", "there is no price to act on")


def test_one_entry_price_prices_the_verdict_its_levels_and_its_texts(runs: dict[str, list[Research]]) -> None:
    """Issue 51: the verdict's reference_price is the judge's (the technical analyst's close of the analysis date, at
    the market's tick); the stop and target percentages are measured from it and the texts quote that number."""
    wrong, quoted = [], 0
    for r in every(runs):
        verdict, price, day = r.verdict, r.judge_input.reference_price, r.judge_input.reference_date
        if (verdict["reference_price"], verdict["reference_date"]) != (price, day.isoformat() if day else None):
            wrong.append(r.where(f"reference {verdict['reference_price']} {verdict['reference_date']} vs {price}"))
        if price is None:
            continue
        if price != round(price, tick_decimals(r.symbol, price)):
            wrong.append(r.where(f"reference {price} not at the tick"))
        for name in ("stop_loss", "take_profit"):
            level = verdict[name]
            # the price is rounded to the cent (to 4 decimals below 1), the percentage to 0.01
            at, rounding = level["price"], 0.5 * 10 ** -(2 if (level["price"] or 0) >= 1 else 4) + price * 5e-5
            if at is not None and abs(at - price * (1 + level["percent_from_entry"] / 100)) > rounding + 1e-9:
                wrong.append(r.where(f"{name} {level} is not measured from {price}"))
        texts = verdict["entry_strategy"] + verdict["reasoning"]
        if format_price(price, price) in texts:
            quoted += 1
        elif verdict["action"] != "HOLD" or r.judge_input.reference_date is not None:
            wrong.append(r.where(f"{format_price(price, price)} not quoted: {verdict['entry_strategy']}"))
    assert quoted > 100
    assert wrong[:20] == []


def test_a_hold_opens_nothing_and_says_its_levels_apply_only_if_entering(runs: dict[str, list[Research]]) -> None:
    holds, wrong = 0, []
    for r in every(runs):
        verdict = r.verdict
        if verdict["action"] != "HOLD":
            assert IF_ENTERING[r.language] not in verdict["entry_strategy"], r.where("a trade's levels apply")
            continue
        holds += 1
        unpriced = any(words in verdict["entry_strategy"] for words in UNPRICED)  # a call without a price or volatility
        priced = r.judge_input.reference_price is not None and not unpriced
        if priced and IF_ENTERING[r.language] not in verdict["entry_strategy"]:
            wrong.append(r.where(f"levels not said to apply only if entering: {verdict['entry_strategy']}"))
        if EXPOSURE.search(verdict["reasoning"]):  # "仓位保留 80%" beside "仓位 0%"
            wrong.append(r.where(f"exposure kept by a HOLD: {verdict['reasoning'][:200]}"))
    assert holds > 100
    assert wrong[:20] == []


def test_no_disagreement_calls_an_expert_bullish_or_bearish_against_its_own_signal(
    runs: dict[str, list[Research]],
) -> None:
    """A disagreement names an expert bullish (看多) or bearish (看空) only when that is its own stance (its signal
    as the debate reads it); weighed by the standing, it says which dimension adds to the score and which takes
    from it instead."""
    wrong = []
    for r in every(runs):
        for line in r.debate.get("key_disagreements") or []:
            for expert, data in r.experts.items():
                label = EXPERT_LABELS[r.language].get(expert, expert)
                summary = summarize_expert_result(expert, data) if data else None
                stance = stance_of(summary.signal) if summary else None
                signal = None if stance is None else stance.value
                for word, meant in (("看多", "BULLISH"), ("看空", "BEARISH"), (" is bullish", "BULLISH"),
                                    (" is bearish", "BEARISH")):  # fmt: skip
                    if f"{label}{word}" in line and signal != meant:
                        wrong.append(r.where(f"{expert} ({signal}) called {word.strip()}: {line[:100]!r}"))
    assert wrong[:20] == []
