"""RulesJudgeAgent: the deterministic judge engine (the default when no LLM is configured).

Every number comes from ``policy`` (thresholds and formulas documented there and in the README); the
reasoning cites the inputs and the arithmetic so a reader can recompute the verdict."""

from __future__ import annotations

import math

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model import risk
from judge.domain.model.enums import Action, RiskLevel, TimeHorizon
from judge.domain.model.risk import Volatility, is_a_share
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.infrastructure.rules import policy
from judge.infrastructure.rules.policy import LevelChoice
from judge.infrastructure.rules.texts import Language, Say, text, writer
from shared_contracts.engine import EngineInfo
from shared_contracts.enum_words import enum_word
from shared_contracts.experts import EXPERT_LABELS
from shared_contracts.reference_price import REFERENCE_STALE_WEEKDAYS
from shared_contracts.standing import BOTTOM_RANK, MIN_STANDING_COVERAGE, TOP_RANK, standing_side
from shared_contracts.text import format_price, shorten

MAX_LISTED_RISKS = 5
RISK_TEXT_LIMIT = 200
THESIS_EXCERPT_LIMIT = 160


class RulesJudgeAgent(IJudgeAgentPort):
    def __init__(self, *, max_position_percent: float, language: Language) -> None:
        self._max_position = max_position_percent
        self._language = language

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        risks, c = judge_input.risk_count, judge_input.confidence
        disagreements = len(judge_input.named_disagreements)
        score = judge_input.score
        exposure = policy.market_exposure(judge_input.market_view)
        if score is not None:  # the debate weighed the experts' standings: act on its side
            _, strength = standing_side(score, judge_input.universe_rank, judge_input.standing_coverage)
            thin = judge_input.standing_coverage is not None and judge_input.standing_coverage < MIN_STANDING_COVERAGE
            action = Action.HOLD if thin else policy.standing_action(judge_input.direction.value)
        else:
            action, strength = policy.decide_action(judge_input.direction, c), c
        called, unpriced = action, judge_input.unpriced if action is not Action.HOLD else ()
        if unpriced:  # no price to act on: the call stands in the reasoning, the action is a HOLD
            action = Action.HOLD
        level = policy.risk_level(risks)
        if score is not None:
            horizon = policy.STANDING_HORIZON if action is not Action.HOLD else TimeHorizon.SHORT_TERM
        else:
            horizon = policy.horizon(action, c, level, disagreements, judge_input.evidence_horizon)
        volatility, price, key_levels = judge_input.volatility, judge_input.reference_price, judge_input.key_levels
        if volatility is None:
            position = policy.size_position(action, c if score is None else 1.0, risks, self._max_position)
            position = position if score is None else policy.scaled(position, exposure)
            stop, take = policy.choose_levels(action, level, price, key_levels)
        else:
            stop = policy.atr_stop(action, volatility, price, key_levels, horizon)
            take = policy.atr_take(action, stop.distance_percent, price, key_levels, judge_input.valuation_bounds)
            if score is None:
                position = policy.size_by_risk_budget(action, c, risks, stop.distance_percent, self._max_position)
            else:
                position = policy.size_standing(
                    action, risks, stop.distance_percent, self._max_position, 1.0 if exposure is None else exposure
                )
        day = judge_input.reference_date
        say = writer(
            self._language,
            confidence=c,
            threshold=policy.ACTION_THRESHOLD,
            direction=enum_word(judge_input.direction.value, self._language),
            action=enum_word(action.value, self._language),
            risks=risks,
            level=enum_word(level.value, self._language),
            horizon=enum_word(horizon.value, self._language),
            max=self._max_position,
            position=position,
            half=round(position / 2, 2),
            scale=policy.confidence_scale(c),
            mult=policy.risk_multiplier(risks),
            budget=risk.RISK_BUDGET_PERCENT,
            stop=stop.distance_percent,
            take=take.distance_percent,
            ratio=take.distance_percent / stop.distance_percent,
            min_ratio=risk.MIN_REWARD_RISK,
            min_atr=risk.MIN_STOP_ATR,
            max_atr=risk.MAX_STOP_ATR,
            min_pct=risk.MIN_STOP_LOSS_PERCENT,
            max_pct=risk.MAX_STOP_LOSS_PERCENT,
            buffer=policy.ANCHOR_BUFFER_ATR,
            multiple=policy.stop_multiple(horizon),
            atr=volatility.atr_percent if volatility else None,
            source=self._source(volatility, price) if volatility else None,
            price=format_price(price, price) if price is not None else None,
            date=day.isoformat() if day else None,
            score=score,
            made_of=_made_of(self._language, judge_input),
            rank=text(self._language, "rank_unknown")
            if judge_input.universe_rank is None
            else f"{judge_input.universe_rank:.2f}",
            coverage=text(self._language, "coverage_unknown")
            if judge_input.standing_coverage is None
            else f"{judge_input.standing_coverage:.0%}",
            strength=strength,
            top=TOP_RANK,
            bottom=BOTTOM_RANK,
            min_coverage=MIN_STANDING_COVERAGE,
            view=enum_word(str(judge_input.market_view), self._language),
            exposure=exposure,
            horizon_days=policy.HORIZON_DAYS[horizon],
            step=policy.POSITION_STEP,
        )
        raw = policy.verdict_confidence(c, disagreements)
        if score is not None:
            confidence = strength
        else:
            confidence = raw if action is Action.HOLD else policy.calibrated_confidence(raw)
        return VerdictProposal(
            action=action,
            position_percent=position,
            confidence=confidence,
            market_exposure=exposure,
            exposure_applied=True,  # sized with it (``policy.size_standing``, ``policy.scaled``)
            entry_strategy=say("entry_hold_unpriced") if unpriced else _entry(say, action, judge_input, stop),
            stop_loss=LevelProposal(
                stop.distance_percent,
                _stop_basis(say, action, stop, volatility, policy.stop_multiple(horizon), price),
            ),
            take_profit=LevelProposal(take.distance_percent, _take_basis(say, action, take, volatility, price)),
            time_horizon=horizon,
            risk_warnings=_warnings(say, judge_input, action, self._language),
            reasoning=self._reasoning(say, judge_input, action, level, horizon, stop, take, raw, position)
            if not unpriced
            else self._unpriced_reasoning(say, judge_input, called, unpriced, raw),
            engine=EngineInfo(kind="rules"),
        )

    def _unpriced_reasoning(
        self, say: Say, judge_input: JudgeInput, called: Action, unpriced: tuple[str, ...], raw: float
    ) -> str:
        """The call the evidence made, why it cannot be acted on, and the HOLD's levels and theses."""
        standing = judge_input.score is not None
        parts = [
            say("reason_standing" if standing else "reason_action", action=enum_word(called.value, self._language))
        ]
        parts += [say("reason_unpriced", missing=_missing(say, unpriced)), say("reason_no_position")]
        if not standing:
            count = min(len(judge_input.named_disagreements), policy.MAX_DISAGREEMENT_DISCOUNTS)
            parts.append(say("reason_confidence", count=count, result=raw))
        theses = (judge_input.bull_thesis, judge_input.bear_thesis, judge_input.conflict_resolution)
        bull, bear, resolution = (_clause(thesis) or say("none") for thesis in theses)
        parts.append(_theses(say, bull, bear, resolution))
        return ("" if self._language == "zh" else " ").join(parts)

    def _source(self, volatility: Volatility, price: float | None) -> str:
        if volatility.source == "atr" and volatility.atr_price is not None:
            atr_price = format_price(volatility.atr_price, price)
            return text(self._language, "atr_source_atr", atr_price=atr_price)
        return text(self._language, "atr_source_realised", vol=volatility.realised_volatility_pct)

    def _reasoning(
        self,
        say: Say,
        judge_input: JudgeInput,
        action: Action,
        level: RiskLevel,
        horizon: TimeHorizon,
        stop: LevelChoice,
        take: LevelChoice,
        raw: float,
        position: float,
    ) -> str:
        c, risks, volatility = judge_input.confidence, judge_input.risk_count, judge_input.volatility
        standing = judge_input.score is not None
        parts = [say("reason_standing" if standing else "reason_action")]
        if standing and action is not Action.HOLD:  # a HOLD has no position for the market view to scale
            parts.append(say("reason_exposure" if judge_input.market_view else "reason_no_market_view"))
        if action is Action.SELL:
            parts.append(say("reason_sell_a_share" if is_a_share(judge_input.symbol) else "reason_sell_other"))
        if action is Action.HOLD or volatility is None:  # ``JudgeInput.unpriced``: a trade always has a volatility
            parts.append(say("reason_no_position"))
        elif standing:
            exposure = policy.market_exposure(judge_input.market_view) or 1.0
            limit = policy.position_limit(stop.distance_percent, self._max_position)
            mult = policy.risk_multiplier(risks)
            sized = risk.RISK_BUDGET_PERCENT * mult / stop.distance_percent * 100.0 * exposure
            rounding = _rounding(say, min(sized, limit * exposure), limit * exposure, position)
            parts.append(say("reason_position_standing", mult=mult, limit=limit, raw=sized, rounding=rounding))
        else:
            at_risk = policy.budget_risk(c, risks)
            limit = policy.position_limit(stop.distance_percent, self._max_position)
            raw_position = at_risk / stop.distance_percent * 100
            rounding = _rounding(say, raw_position, limit, position)
            parts.append(say("reason_position_budget", risk=at_risk, raw=raw_position, limit=limit, rounding=rounding))
        if volatility is None:
            levels = {"stop": round(stop.distance_percent, 2), "take": round(take.distance_percent, 2)}
            parts += [say("reason_levels", **levels), say("reason_no_volatility")]
        else:
            parts.append(say("reason_levels_atr", stop_atr=stop.distance_percent / volatility.atr_percent))
        disagreements = len(judge_input.named_disagreements)
        parts.append(say("reason_horizon", why=_why(say, action, level, horizon, disagreements, judge_input)))
        count = min(disagreements, policy.MAX_DISAGREEMENT_DISCOUNTS)
        if not standing:
            parts.append(say("reason_confidence", count=count, result=raw))
        if action is not Action.HOLD and not standing:
            parts.append(say("reason_calibrated", raw=raw, calibrated=policy.calibrated_confidence(raw)))
        theses = (judge_input.bull_thesis, judge_input.bear_thesis, judge_input.conflict_resolution)
        bull, bear, resolution = (_clause(thesis) or say("none") for thesis in theses)
        parts.append(_theses(say, bull, bear, resolution))
        return ("" if self._language == "zh" else " ").join(parts)


def _made_of(language: Language, judge_input: JudgeInput) -> str:
    """ " (= technical_analyst +0.42 + valuation_modeler −0.03 …)" from the debate's contributions; "" without."""
    voters = [c for c in judge_input.contributions if c.votes]
    if not voters:
        return ""
    terms = " + ".join(f"{EXPERT_LABELS[language].get(c.expert, c.expert)} {c.contribution:+.2f}" for c in voters)
    return text(language, "made_of", terms=terms)


def _missing(say: Say, unpriced: tuple[str, ...]) -> str:
    return say("list_sep").join(say(f"unpriced_{what}", days=REFERENCE_STALE_WEEKDAYS) for what in unpriced)


def _rounding(say: Say, raw: float, limit: float, position: float) -> str:
    """How the sized position ``raw`` became ``position`` under ``limit``: rounded down to a step, held at the
    limit, or raised to the minimum position; never "rounded down" to a larger number."""
    step = policy.POSITION_STEP
    stepped = math.floor(raw / step + 1e-9) * step
    if math.isclose(position, stepped, abs_tol=1e-6):
        return say("round_step", position=position)
    if math.isclose(position, limit, abs_tol=1e-6):
        return say("round_limit", position=position)
    return say("round_floor", stepped=stepped, position=position)


def _reference(say: Say, judge_input: JudgeInput, key: str) -> str:
    """The reference price (and the day of that close, when known) in the phrase ``key``; "" without one."""
    if judge_input.reference_price is None:
        return ""
    return say(key if judge_input.reference_date is None else f"{key}_dated")


def _entry(say: Say, action: Action, judge_input: JudgeInput, stop: LevelChoice) -> str:
    if action is Action.HOLD:
        hold = "entry_hold_standing" if judge_input.score is not None else "entry_hold"
        return say(hold) + _reference(say, judge_input, "hold_levels_from")
    at_price = _reference(say, judge_input, "at_price")
    if action is Action.SELL:
        return say("entry_sell_a_share" if is_a_share(judge_input.symbol) else "entry_sell", at_price=at_price)
    if stop.anchor is not None:
        second = say("entry_buy_second_support", support=format_price(stop.anchor, judge_input.reference_price))
    else:
        second = say("entry_buy_second_plain")
    return say("entry_buy", at_price=at_price, second=second)


def _side(action: Action) -> str:
    return "short" if action is Action.SELL else "long"


def _percent_basis(say: Say, which: str, action: Action, choice: LevelChoice, reference: float | None) -> str:
    """The percentage rules' basis (no volatility), which says that it is the fallback."""
    distance = choice.distance_percent
    if choice.anchor is None:
        return say("level_percent", distance=distance) + say("percent_rules")
    anchor = format_price(choice.anchor, reference)
    return say(f"{which}_anchor_{_side(action)}", anchor=anchor, distance=distance) + say("percent_rules")


def _stop_basis(
    say: Say, action: Action, stop: LevelChoice, volatility: Volatility | None, multiple: float, reference: float | None
) -> str:
    if volatility is None:
        return _percent_basis(say, "stop", action, stop, reference)
    distance, atr = stop.distance_percent, volatility.atr_percent
    if stop.source == "key_level" and stop.anchor is not None:
        anchor = format_price(stop.anchor, reference)
        basis = say(f"stop_atr_anchor_{_side(action)}", anchor=anchor, atr_multiple=distance / atr, distance=distance)
    else:
        basis = say("stop_atr", distance=multiple * atr)
    if stop.bounded:
        basis += say("stop_bounded", distance=distance, atr_multiple=distance / atr)
    return basis


def _take_basis(
    say: Say, action: Action, take: LevelChoice, volatility: Volatility | None, reference: float | None
) -> str:
    if volatility is None:
        return _percent_basis(say, "take", action, take, reference)
    if take.anchor is None:
        return say("take_reward_risk", ratio=risk.MIN_REWARD_RISK, distance=take.distance_percent)
    key = "take_valuation" if take.source == "valuation" else f"take_atr_anchor_{_side(action)}"
    return say(key, anchor=format_price(take.anchor, reference), distance=take.distance_percent)


def _warnings(say: Say, judge_input: JudgeInput, action: Action, language: Language) -> tuple[str, ...]:
    risks, disagreements, failed = judge_input.named_risks, judge_input.named_disagreements, judge_input.failed_experts
    names = say("list_sep").join(EXPERT_LABELS[language].get(name, name) for name in failed)
    warnings = [say("warn_failed_experts", count=len(failed), names=names)] if failed else []
    warnings += [shorten(r, RISK_TEXT_LIMIT) for r in risks[:MAX_LISTED_RISKS]]
    if len(risks) > MAX_LISTED_RISKS:
        warnings.append(say("warn_more_risks", count=len(risks) - MAX_LISTED_RISKS))
    if disagreements:
        first = shorten(disagreements[0], RISK_TEXT_LIMIT)
        warnings.append(say("warn_disagreements", count=len(disagreements), first=first))
    if judge_input.score is not None:
        if judge_input.standing_coverage is not None and judge_input.standing_coverage < MIN_STANDING_COVERAGE:
            warnings.append(say("warn_low_coverage"))
    elif action is Action.HOLD and judge_input.confidence < policy.ACTION_THRESHOLD:
        warnings.append(say("warn_low_confidence"))
    if not risks:
        warnings.append(say("warn_no_risks"))
    return tuple(warnings)


def _why(
    say: Say, action: Action, level: RiskLevel, horizon: TimeHorizon, disagreements: int, judge_input: JudgeInput
) -> str:
    if action is Action.HOLD:
        return say("why_hold")
    if judge_input.score is not None:
        return say("why_standing")
    if judge_input.evidence_horizon is not None:
        return say("why_evidence")
    if disagreements >= policy.CONTESTED_DISAGREEMENTS:
        return say("why_contested", count=disagreements)
    if level is RiskLevel.HIGH:
        return say("why_high_risk")
    if horizon is TimeHorizon.LONG_TERM:
        return say("why_strong", threshold=policy.LONG_TERM_CONFIDENCE)
    return say("why_default")


def _theses(say: Say, bull: str, bear: str, resolution: str) -> str:
    """The three theses quoted, each in whole sentences."""
    return say("reason_theses", bull=bull, bear=bear, resolution=resolution)


def _clause(thesis: str) -> str:
    """A thesis quoted inside a sentence: its own closing punctuation dropped (no "。；" or "。。")."""
    return shorten(thesis, THESIS_EXCERPT_LIMIT).rstrip("。；;.，, ")
