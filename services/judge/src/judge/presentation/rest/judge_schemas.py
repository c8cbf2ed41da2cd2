"""Wire ↔ domain, once: ``shared_contracts.judge.JudgeInput`` → domain ``JudgeInput``, and
``VerdictDTO`` → ``shared_contracts.judge.Verdict`` (the request/response models themselves are owned by
shared_contracts)."""

from __future__ import annotations

from judge.application.dtos.verdict_dto import PriceLevelDTO, VerdictDTO
from judge.domain.dtos.judge_input import JudgeInput, KeyLevels
from judge.domain.model.enums import Direction, TimeHorizon
from shared_contracts import judge as wire
from shared_contracts.symbols import canonical_symbol


def to_judge_input(body: wire.JudgeInput) -> JudgeInput:
    levels = body.key_levels
    return JudgeInput(
        symbol=canonical_symbol(body.symbol),
        direction=Direction(body.direction),
        confidence=body.confidence,
        bull_thesis=body.bull_thesis,
        bear_thesis=body.bear_thesis,
        risk_factors=tuple(body.risk_factors),
        key_disagreements=tuple(body.key_disagreements),
        conflict_resolution=body.conflict_resolution,
        reference_price=body.reference_price,
        reference_date=body.reference_date,
        key_levels=KeyLevels(tuple(levels.support), tuple(levels.resistance)) if levels else KeyLevels(),
        failed_experts=tuple(body.failed_experts),
        atr=body.atr,
        realised_volatility_pct=body.realised_volatility_pct,
        evidence_horizon=TimeHorizon(body.evidence_horizon) if body.evidence_horizon else None,
        intrinsic_value_low=body.intrinsic_value_low,
        intrinsic_value_high=body.intrinsic_value_high,
        portfolio_value=body.portfolio_value,
        score=body.score,
        universe_rank=body.universe_rank,
        standing_coverage=body.standing_coverage,
        market_view=body.market_view,
    )


def to_wire_verdict(dto: VerdictDTO) -> wire.Verdict:
    return wire.Verdict(
        symbol=dto.symbol,
        action=dto.action.value,
        position_percent=dto.position_percent,
        position_shares=dto.position_shares,
        confidence=dto.confidence,
        score=dto.score,
        universe_rank=dto.universe_rank,
        market_exposure=dto.market_exposure,
        entry_strategy=dto.entry_strategy,
        stop_loss=_level(dto.stop_loss),
        take_profit=_level(dto.take_profit),
        time_horizon=dto.time_horizon.value,
        risk_warnings=list(dto.risk_warnings),
        reasoning=dto.reasoning,
        engine=dto.engine,
        guardrail_adjustments=[
            wire.GuardrailAdjustment(rule=n.rule, detail=n.detail) for n in dto.guardrail_adjustments
        ],
        numbers_check=dto.numbers_check,
    )


def _level(level: PriceLevelDTO) -> wire.PriceLevel:
    return wire.PriceLevel(percent_from_entry=level.percent_from_entry, price=level.price, basis=level.basis)
