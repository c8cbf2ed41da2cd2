"""JudgeAgentAdapter: the LLM judge engine — prompt files, the OpenAI-compatible chat, pydantic-validated JSON.

Untrusted text (theses, risks, disagreements, the resolution) is fenced and size-capped; numbers are
formatted by us. The symbol is validated by the domain (a ticker of at most 32 safe characters). The prompt
carries the stock's standing the debate decided on (score, universe rank, coverage, each expert's contribution)
and the market view with the exposure the guardrails will scale a BUY/SELL position by."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

import structlog

from judge.application.guardrails import GuardrailPolicy, apply_guardrails
from judge.application.price_gate import hold_without_price
from judge.application.price_levels import price_levels
from judge.domain.dtos.judge_input import JudgeInput
from judge.domain.dtos.verdict_proposal import VerdictProposal
from judge.domain.model import risk
from judge.domain.ports.judge_agent import IJudgeAgentPort
from judge.infrastructure.agents.output_schemas import JudgeLLMOutput
from judge.infrastructure.rules.policy import ANCHOR_BAND_MAX_ATR, ANCHOR_BAND_MIN_ATR, STOP_ATR_MULTIPLE
from judge.infrastructure.rules.texts import price_text
from service_kit.llm.client import OpenAICompatibleChat
from service_kit.llm.json_output import parse_model_output
from service_kit.llm.numbers.gate import Levels, NumbersGate
from service_kit.llm.numbers.sources import sources_from
from service_kit.llm.prompts import PromptTemplate, fence_untrusted
from service_kit.llm.tracing import model_call_stage
from shared_contracts.debate import Contribution, contribution_line
from shared_contracts.engine import EngineInfo
from shared_contracts.standing import BOTTOM_RANK, MIN_STANDING_COVERAGE, TOP_RANK

log = structlog.get_logger(__name__)

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "agents" / "judge" / "prompts"
THESIS_MAX_CHARS = 2000
LIST_MAX_ITEMS = 20
ITEM_MAX_CHARS = 300
LIST_MAX_CHARS = 4000
TEMPERATURE = 0.2
JUDGE_STAGE = "judge"
"""The stage of the judge's model calls (their span's ``gen_ai.agent.name``, the token counter's ``stage``)."""
_LANGUAGE_NAMES = {"zh": "Simplified Chinese (简体中文)", "en": "English"}


class JudgeAgentAdapter(IJudgeAgentPort):
    def __init__(
        self,
        chat: OpenAICompatibleChat,
        *,
        max_position_percent: float,
        language: Literal["zh", "en"],
        gate: NumbersGate | None = None,
    ) -> None:
        self._chat = chat
        self._max_position = max_position_percent
        self._language = language
        self._gate = gate or NumbersGate()
        self._prompts = PromptTemplate.load(PROMPTS_DIR)

    def render(self, judge_input: JudgeInput) -> tuple[str, str]:
        """(system, user) prompts for this input."""
        levels = judge_input.key_levels
        return self._prompts.render(
            language=_LANGUAGE_NAMES[self._language],
            max_position_percent=f"{self._max_position:g}",
            symbol=judge_input.symbol.strip(),
            direction=judge_input.direction.value,
            confidence=f"{judge_input.confidence:.4g}",
            bull_thesis=fence_untrusted("BULL THESIS", judge_input.bull_thesis, THESIS_MAX_CHARS),
            bear_thesis=fence_untrusted("BEAR THESIS", judge_input.bear_thesis, THESIS_MAX_CHARS),
            risk_count=str(len(judge_input.named_risks)),
            risk_factors=fence_untrusted("RISK FACTORS", _bullets(judge_input.named_risks), LIST_MAX_CHARS),
            disagreement_count=str(len(judge_input.named_disagreements)),
            failed_experts=", ".join(judge_input.failed_experts) or "none",
            key_disagreements=fence_untrusted(
                "KEY DISAGREEMENTS", _bullets(judge_input.named_disagreements), LIST_MAX_CHARS
            ),
            conflict_resolution=fence_untrusted(
                "CONFLICT RESOLUTION", judge_input.conflict_resolution, THESIS_MAX_CHARS
            ),
            reference_price=_reference(judge_input),
            support_levels=_prices(levels.support),
            resistance_levels=_prices(levels.resistance),
            market=_market(judge_input.symbol),
            atr=_atr(judge_input),
            realised_volatility=_realised(judge_input),
            intrinsic_value_range=_valuation(judge_input),
            evidence_horizon=judge_input.evidence_horizon.value if judge_input.evidence_horizon else "not provided",
            risk_limits=_risk_limits(judge_input),
            min_stop_atr=f"{risk.MIN_STOP_ATR:g}",
            max_stop_atr=f"{risk.MAX_STOP_ATR:g}",
            min_reward_risk=f"{risk.MIN_REWARD_RISK:g}",
            risk_budget_percent=f"{risk.RISK_BUDGET_PERCENT:g}",
            stop_atr_multiple=f"{STOP_ATR_MULTIPLE:g}",
            anchor_band_atr=f"{ANCHOR_BAND_MIN_ATR:g} to {ANCHOR_BAND_MAX_ATR:g}",
            **_standing(judge_input),
        )

    async def decide(self, judge_input: JudgeInput) -> VerdictProposal:
        """The model's verdict, its texts through the numbers gate: figures traced to the prompt's, and the
        stop, target and position the texts quote equal to the structured ones the guardrails leave."""
        system, user = self.render(judge_input)

        async def ask_again(instruction: str) -> JudgeLLMOutput:
            again = await self._chat.complete(user + instruction, system, TEMPERATURE)
            return parse_model_output(again.text, JudgeLLMOutput)

        # an answer cut off at its length limit is refused by the client, with what the model wrote
        with model_call_stage(JUDGE_STAGE):
            completion = await self._chat.complete(user, system, TEMPERATURE)
            output = parse_model_output(completion.text, JudgeLLMOutput)
            levels = self._structured_levels(output, judge_input)
            output, check = await self._gate.review(output, sources_from([system, user]), ask_again, levels)
        proposal = output.proposal(EngineInfo(kind="llm", model=self._chat.model), check)
        proposal = hold_without_price(proposal, judge_input, self._language)
        log.info("judge_llm_verdict", symbol=judge_input.symbol, action=proposal.action.value)
        return proposal

    def _structured_levels(self, output: JudgeLLMOutput, judge_input: JudgeInput) -> Levels:
        """The stop, target (distance % and price) and position the verdict will carry once the guardrails
        have held the model's proposal; the position also as it was before the market exposure scaled it."""
        proposal = output.proposal(EngineInfo(kind="llm"))
        policy = GuardrailPolicy(max_position_percent=self._max_position, language=self._language)
        held, _notes = apply_guardrails(proposal, judge_input, policy)
        full, _notes = apply_guardrails(replace(proposal, exposure_applied=True), judge_input, policy)
        stop, take = price_levels(held.action, held.stop_loss, held.take_profit, judge_input.reference_price)
        return {
            "stop": [abs(stop.percent_from_entry), *([stop.price] if stop.price is not None else [])],
            "take": [abs(take.percent_from_entry), *([take.price] if take.price is not None else [])],
            # the position the verdict carries, and the one before the market exposure (the prompt asks for that)
            "position": list(dict.fromkeys([held.position_percent, full.position_percent])),
        }


_NOT_GIVEN = "not provided (the debate had no relative evidence: it weighed the experts' own votes)"


def _standing(judge_input: JudgeInput) -> dict[str, str]:
    """The ``score``, ``universe_rank``, ``standing_coverage``, ``contributions`` and ``market_view`` slots."""
    score, rank, coverage = judge_input.score, judge_input.universe_rank, judge_input.standing_coverage
    return {
        "score": _NOT_GIVEN if score is None else f"{score:+.2f} (in -1 to 1, higher = more bullish)",
        "universe_rank": "not provided"
        if rank is None
        else f"{rank:.2f} (the score's percentile in the reference universe: the top {1 - TOP_RANK:.0%} is "
        f"bullish, the bottom {BOTTOM_RANK:.0%} bearish)",
        "standing_coverage": "not provided"
        if coverage is None
        else f"{coverage:.2f} (share of the composite's weight with data; below {MIN_STANDING_COVERAGE:.2f} no side)",
        "contributions": "\n".join(_contribution(c) for c in judge_input.contributions) or "  (none given)",
        "market_view": _market_view(judge_input.market_view),
    }


def _contribution(c: Contribution) -> str:
    return f"  - {contribution_line(c)}"


def _market_view(view: str | None) -> str:
    table = ", ".join(f"{name} {share:g}" for name, share in risk.MARKET_EXPOSURE.items())
    exposure = risk.market_exposure(view)
    if exposure is None:
        return f"not heard: full exposure, nothing is scaled ({table})"
    return (
        f"{view}: market exposure {exposure:g} ({table}). Propose position_percent at full exposure; the service "
        f"multiplies a BUY or SELL position by {exposure:g}."
    )


def _bullets(items: tuple[str, ...]) -> str:
    if not items:
        return "(none)"
    lines = [f"- {' '.join(item.split())[:ITEM_MAX_CHARS]}" for item in items[:LIST_MAX_ITEMS]]
    if len(items) > LIST_MAX_ITEMS:
        lines.append(f"[{len(items) - LIST_MAX_ITEMS} more omitted]")
    return "\n".join(lines)


def _prices(prices: Sequence[float]) -> str:
    return ", ".join(price_text(p) for p in sorted(prices)) if prices else "not provided"


def _reference(judge_input: JudgeInput) -> str:
    if judge_input.reference_price is None:
        return "not provided"
    price = price_text(judge_input.reference_price)
    return f"{price} (the close of {judge_input.reference_date.isoformat()})" if judge_input.reference_date else price


def _market(symbol: str) -> str:
    if risk.is_a_share(symbol):
        return "A-share (SELL means exit or avoid, not a short; buy orders in lots of 100 shares)"
    return "not an A-share (a SELL may be a sale of the holding or a short)"


def _atr(judge_input: JudgeInput) -> str:
    if judge_input.atr is None:
        return "not provided"
    if judge_input.reference_price is None:
        return f"{price_text(judge_input.atr)} (no reference price, so not usable as a percentage)"
    return f"{price_text(judge_input.atr)} ({judge_input.atr / judge_input.reference_price * 100:.2f}% of the price)"


def _realised(judge_input: JudgeInput) -> str:
    vol = judge_input.realised_volatility_pct
    return "not provided" if vol is None else f"{vol:.4g}% a year"


def _valuation(judge_input: JudgeInput) -> str:
    low, high = judge_input.intrinsic_value_low, judge_input.intrinsic_value_high
    if low is None and high is None:
        return "not provided"
    return f"{price_text(low) if low is not None else '?'} to {price_text(high) if high is not None else '?'}"


def _risk_limits(judge_input: JudgeInput) -> str:
    """The volatility rules worked out in numbers for this input (the guardrails hold the answer to them)."""
    volatility = judge_input.volatility
    if volatility is None:
        return "Volatility is unknown: no ATR bounds apply; set the levels from the risks and key levels."
    atr = volatility.atr_percent
    low, high = risk.stop_bounds(volatility)
    usual = min(max(STOP_ATR_MULTIPLE * atr, low), high)
    how = "ATR over the reference price" if volatility.source == "atr" else "estimated from realised volatility"
    return (
        f"Risk limits: one ATR = {atr:.2f}% of the price ({how}). stop_loss_percent between {low:.2f} and "
        f"{high:.2f} ({risk.MIN_STOP_ATR:g}-{risk.MAX_STOP_ATR:g} ATR; usually {usual:.2f}, "
        f"{STOP_ATR_MULTIPLE:g} ATR). take_profit_percent at least {risk.MIN_REWARD_RISK:g} × stop_loss_percent. "
        f"position_percent at most {risk.RISK_BUDGET_PERCENT:g} / stop_loss_percent × 100 "
        f"(e.g. {risk.risk_budget_cap(usual):g} with a {usual:.2f}% stop)."
    )
