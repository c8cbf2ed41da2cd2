"""RulesJudgeAgent: the deterministic judge engine (the default when no LLM is configured).

Every number comes from ``policy`` (thresholds and formulas documented there and in the README); the
reasoning cites the inputs and the arithmetic so a reader can recompute the verdict."""

from __future__ import annotations

from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import LevelProposal, VerdictProposal
from judge.domain.model.enums import Action, RiskLevel, TimeHorizon
from judge.domain.model.risk import (
    MAX_STOP_ATR,
    MAX_STOP_LOSS_PERCENT,
    MIN_REWARD_RISK,
    MIN_STOP_ATR,
    MIN_STOP_LOSS_PERCENT,
    RISK_BUDGET_PERCENT,
    Volatility,
    is_a_share,
)
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.infrastructure.rules import policy
from judge.infrastructure.rules.policy import LevelChoice
from judge.infrastructure.rules.texts import Language, excerpt, price_text, text
from shared_contracts.engine import EngineInfo

MAX_LISTED_RISKS = 5
RISK_TEXT_LIMIT = 200
THESIS_EXCERPT_LIMIT = 160


class RulesJudgeAgent(IJudgeAgentPort):
    def __init__(self, *, max_position_percent: float, language: Language) -> None:
        self._max_position = max_position_percent
        self._language = language

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        risks = judge_input.risk_count
        disagreements = judge_input.named_disagreements
        c = judge_input.confidence
        action = policy.decide_action(judge_input.direction, c)
        level = policy.risk_level(risks)
        horizon = policy.horizon(action, c, level, len(disagreements), judge_input.evidence_horizon)
        volatility, price, key_levels = judge_input.volatility, judge_input.reference_price, judge_input.key_levels
        if volatility is None:
            position = policy.size_position(action, c, risks, self._max_position)
            stop, take = policy.choose_levels(action, level, price, key_levels)
        else:
            stop = policy.atr_stop(action, volatility, price, key_levels)
            take = policy.atr_take(action, stop.distance_percent, price, key_levels, judge_input.valuation_bounds)
            position = policy.size_by_risk_budget(action, c, risks, stop.distance_percent, self._max_position)
        return VerdictProposal(
            action=action,
            position_percent=position,
            confidence=self._confidence(action, c, len(disagreements)),
            entry_strategy=self._entry(action, position, judge_input, stop),
            stop_loss=LevelProposal(stop.distance_percent, self._stop_basis(action, level, stop, volatility)),
            take_profit=LevelProposal(take.distance_percent, self._take_basis(action, level, stop, take, volatility)),
            time_horizon=horizon,
            risk_warnings=self._warnings(judge_input, action),
            reasoning=self._reasoning(judge_input, action, position, level, horizon, stop, take),
            engine=EngineInfo(kind="rules"),
        )

    @staticmethod
    def _confidence(action: Action, debate_confidence: float, disagreements: int) -> float:
        raw = policy.verdict_confidence(debate_confidence, disagreements)
        return raw if action is Action.HOLD else policy.calibrated_confidence(raw)

    def _t(self, key: str, **values: object) -> str:
        return text(self._language, key, **values)

    def _entry(self, action: Action, position: float, judge_input: JudgeInput, stop: LevelChoice) -> str:
        if action is Action.HOLD:
            hold = self._t("entry_hold", threshold=policy.ACTION_THRESHOLD)
            return hold + self._reference(judge_input, "hold_levels_from")
        half = round(position / 2, 2)
        at_price = self._reference(judge_input, "at_price")
        if action is Action.SELL:
            key = "entry_sell_a_share" if is_a_share(judge_input.symbol) else "entry_sell"
            return self._t(key, position=position, half=half, at_price=at_price)
        second = (
            self._t("entry_buy_second_support", support=price_text(stop.anchor), half=half)
            if stop.anchor is not None
            else self._t("entry_buy_second_plain", half=half)
        )
        return self._t("entry_buy", position=position, half=half, at_price=at_price, second=second)

    def _reference(self, judge_input: JudgeInput, key: str) -> str:
        """The reference price (and the day of that close, when known) in the phrase ``key``; "" without one."""
        price, day = judge_input.reference_price, judge_input.reference_date
        if price is None:
            return ""
        if day is None:
            return self._t(key, price=price_text(price))
        return self._t(f"{key}_dated", price=price_text(price), date=day.isoformat())

    def _percent_basis(self, which: str, action: Action, level: RiskLevel, choice: LevelChoice) -> str:
        """The percentage rules' basis (no volatility), which says that it is the fallback."""
        if choice.anchor is None:
            basis = self._t(f"{which}_percent", level=level.value, distance=choice.distance_percent)
        else:
            side = "short" if action is Action.SELL else "long"
            basis = self._t(
                f"{which}_anchor_{side}", anchor=price_text(choice.anchor), distance=choice.distance_percent
            )
        return basis + self._t("percent_rules")

    def _stop_basis(self, action: Action, level: RiskLevel, stop: LevelChoice, volatility: Volatility | None) -> str:
        if volatility is None:
            return self._percent_basis("stop", action, level, stop)
        atr = volatility.atr_percent
        if stop.source == "key_level" and stop.anchor is not None:
            side = "short" if action is Action.SELL else "long"
            basis = self._t(
                f"stop_atr_anchor_{side}",
                anchor=price_text(stop.anchor),
                buffer=policy.ANCHOR_BUFFER_ATR,
                atr_multiple=stop.distance_percent / atr,
                distance=stop.distance_percent,
            )
        else:
            multiple = policy.STOP_ATR_MULTIPLE
            basis = self._t(
                "stop_atr", multiple=multiple, atr=atr, source=self._source(volatility), distance=multiple * atr
            )
        if stop.bounded:
            distance = stop.distance_percent
            basis += self._t(
                "stop_bounded",
                distance=distance,
                atr_multiple=distance / atr,
                min_atr=MIN_STOP_ATR,
                max_atr=MAX_STOP_ATR,
                min_pct=MIN_STOP_LOSS_PERCENT,
                max_pct=MAX_STOP_LOSS_PERCENT,
            )
        return basis

    def _take_basis(
        self, action: Action, level: RiskLevel, stop: LevelChoice, take: LevelChoice, volatility: Volatility | None
    ) -> str:
        if volatility is None:
            return self._percent_basis("take", action, level, take)
        ratio = take.distance_percent / stop.distance_percent
        if take.anchor is None:
            return self._t("take_reward_risk", ratio=MIN_REWARD_RISK, distance=take.distance_percent)
        if take.source == "valuation":
            key = "take_valuation"
        else:
            key = "take_atr_anchor_short" if action is Action.SELL else "take_atr_anchor_long"
        return self._t(key, anchor=price_text(take.anchor), distance=take.distance_percent, ratio=ratio)

    def _source(self, volatility: Volatility) -> str:
        if volatility.source == "atr" and volatility.atr_price is not None:
            return self._t("atr_source_atr", atr_price=price_text(volatility.atr_price))
        return self._t("atr_source_realised", vol=volatility.realised_volatility_pct)

    def _warnings(self, judge_input: JudgeInput, action: Action) -> tuple[str, ...]:
        risks = judge_input.named_risks
        warnings = []
        if failed := judge_input.failed_experts:
            names = self._t("list_sep").join(failed)
            warnings.append(self._t("warn_failed_experts", count=len(failed), names=names))
        warnings += [excerpt(r, RISK_TEXT_LIMIT) for r in risks[:MAX_LISTED_RISKS]]
        if len(risks) > MAX_LISTED_RISKS:
            warnings.append(self._t("warn_more_risks", count=len(risks) - MAX_LISTED_RISKS))
        disagreements = judge_input.named_disagreements
        if disagreements:
            first = excerpt(disagreements[0], RISK_TEXT_LIMIT)
            warnings.append(self._t("warn_disagreements", count=len(disagreements), first=first))
        if action is Action.HOLD and judge_input.confidence < policy.ACTION_THRESHOLD:
            warnings.append(
                self._t("warn_low_confidence", confidence=judge_input.confidence, threshold=policy.ACTION_THRESHOLD)
            )
        if not risks:
            warnings.append(self._t("warn_no_risks"))
        return tuple(warnings)

    def _reasoning(
        self,
        judge_input: JudgeInput,
        action: Action,
        position: float,
        level: RiskLevel,
        horizon: TimeHorizon,
        stop: LevelChoice,
        take: LevelChoice,
    ) -> str:
        risks = judge_input.risk_count
        disagreements = len(judge_input.named_disagreements)
        c = judge_input.confidence
        parts = [
            self._t(
                "reason_action",
                direction=judge_input.direction.value,
                confidence=c,
                threshold=policy.ACTION_THRESHOLD,
                action=action.value,
            )
        ]
        volatility = judge_input.volatility
        if action is Action.SELL:
            parts.append(self._t("reason_sell_a_share" if is_a_share(judge_input.symbol) else "reason_sell_other"))
        scale, mult = policy.confidence_scale(c), policy.risk_multiplier(risks)
        if action is Action.HOLD:
            parts.append(self._t("reason_no_position"))
        elif volatility is None:
            raw = self._max_position * scale * mult
            parts.append(
                self._t(
                    "reason_position",
                    max=self._max_position,
                    scale=scale,
                    mult=mult,
                    risks=risks,
                    raw=raw,
                    position=position,
                )
            )
        else:
            risk = policy.budget_risk(c, risks)
            parts.append(
                self._t(
                    "reason_position_budget",
                    budget=RISK_BUDGET_PERCENT,
                    scale=scale,
                    mult=mult,
                    risks=risks,
                    risk=risk,
                    stop=stop.distance_percent,
                    raw=risk / stop.distance_percent * 100,
                    limit=policy.position_limit(stop.distance_percent, self._max_position),
                    max=self._max_position,
                    position=position,
                )
            )
        if volatility is None:
            parts.append(
                self._t(
                    "reason_levels",
                    risks=risks,
                    level=level.value,
                    stop=round(stop.distance_percent, 2),
                    take=round(take.distance_percent, 2),
                )
            )
            parts.append(self._t("reason_no_volatility"))
        else:
            parts.append(
                self._t(
                    "reason_levels_atr",
                    atr=volatility.atr_percent,
                    source=self._source(volatility),
                    stop=stop.distance_percent,
                    stop_atr=stop.distance_percent / volatility.atr_percent,
                    min_atr=MIN_STOP_ATR,
                    max_atr=MAX_STOP_ATR,
                    take=take.distance_percent,
                    ratio=take.distance_percent / stop.distance_percent,
                    min_ratio=MIN_REWARD_RISK,
                    risks=risks,
                    level=level.value,
                )
            )
        why = self._why(action, level, horizon, disagreements, judge_input.evidence_horizon)
        parts.append(self._t("reason_horizon", horizon=horizon.value, why=why))
        parts.append(
            self._t(
                "reason_confidence",
                confidence=c,
                count=min(disagreements, policy.MAX_DISAGREEMENT_DISCOUNTS),
                result=policy.verdict_confidence(c, disagreements),
            )
        )
        if action is not Action.HOLD:
            raw = policy.verdict_confidence(c, disagreements)
            parts.append(self._t("reason_calibrated", raw=raw, calibrated=policy.calibrated_confidence(raw)))
        none = self._t("none")
        parts.append(
            self._t(
                "reason_theses",
                bull=_clause(judge_input.bull_thesis) or none,
                bear=_clause(judge_input.bear_thesis) or none,
                resolution=_clause(judge_input.conflict_resolution) or none,
            )
        )
        separator = "" if self._language == "zh" else " "
        return separator.join(parts)

    def _why(
        self,
        action: Action,
        level: RiskLevel,
        horizon: TimeHorizon,
        disagreements: int,
        evidence_horizon: TimeHorizon | None,
    ) -> str:
        if action is Action.HOLD:
            return self._t("why_hold")
        if evidence_horizon is not None:
            return self._t("why_evidence")
        if disagreements >= policy.CONTESTED_DISAGREEMENTS:
            return self._t("why_contested", count=disagreements)
        if level is RiskLevel.HIGH:
            return self._t("why_high_risk")
        if horizon is TimeHorizon.LONG_TERM:
            return self._t("why_strong", threshold=policy.LONG_TERM_CONFIDENCE)
        return self._t("why_default")


def _clause(thesis: str) -> str:
    """A thesis quoted inside a sentence: its own closing punctuation dropped (no "。；" or "。。")."""
    return excerpt(thesis, THESIS_EXCERPT_LIMIT).rstrip("。；;.，, ")
