"""Scripted LLM replies for the fake OpenAI-compatible server (``fake_llm``): one well-formed reply
per analysing role, each with the prompt substring (``match``) that identifies that role's prompt.

Tooling (end-to-end tests, LLM-mode benchmarks)::

    from stack_fakes.llm_replies import script, with_role
    fake_llm.put_script(script(latency_ms=50))                               # a full successful research
    fake_llm.put_script(with_role(script(), "bull_advocate", status=503))    # the bull's calls fail
    fake_llm.put_script(with_role(script(), "valuation_modeler", reply=MALFORMED))

Each reply validates against the model the role's output parser uses:
research ``research.domain.model.verdicts`` (TechnicalVerdict, FinancialVerdict, ValuationVerdictModel,
MacroVerdict, CatalystVerdict); debate ``debate.infrastructure.agents.output_parser`` (BullAdvocateOutput,
BearAdvocateOutput) and ``debate.domain.dtos.risk_matrix.ResolutionResult``; judge
``judge.infrastructure.adapters.output_parser.JudgeLLMOutput``. ``tests-e2e/test_llm_replies.py`` checks both:
every reply parses into its model, and every ``match`` occurs in its own role's prompt files and in no other
prompt nor in any reply (a reply's text reaches later prompts: expert reasoning is in the debate prompts,
the theses in the judge's).

The replies state no figure that a research's input may not hold (the numbers gate, LLM_NUMBERS_POLICY, would
otherwise ask again): a research over them makes one call per role.

The advocates cite ``technical_analyst`` only (``CITED_EXPERT``): the debate rejects an argument citing an
expert that is not in its input, so a debate over the default replies needs the technical analyst among
the successful experts.
"""

from __future__ import annotations

import copy
from typing import Any

RESEARCH_ROLES = (
    "technical_analyst",
    "financial_auditor",
    "valuation_modeler",
    "macro_intelligence",
    "catalyst_detective",
)
DEBATE_ROLES = ("bull_advocate", "bear_advocate", "resolution")
JUDGE_ROLES = ("judge",)
ROLES = RESEARCH_ROLES + DEBATE_ROLES + JUDGE_ROLES

CITED_EXPERT = "technical_analyst"

# The opening sentence of each role's system prompt (unique: checked by test_llm_replies.py).
MATCH: dict[str, str] = {
    "technical_analyst": "You are a technical analyst for equities.",
    "financial_auditor": "You are a financial auditor.",
    "valuation_modeler": "You are a valuation modeler.",
    "macro_intelligence": "You are a macro strategist.",
    "catalyst_detective": "You are a catalyst detective.",
    "bull_advocate": "You are the BULL ADVOCATE in a structured stock debate.",
    "bear_advocate": "You are the BEAR ADVOCATE in a structured stock debate.",
    "resolution": "You are the RESOLUTION JUDGE of a structured stock debate.",
    "judge": "You are the investment judge of a stock research team.",
}

REPLIES: dict[str, dict[str, Any]] = {
    "technical_analyst": {
        "signal": "BULLISH",
        "confidence": 0.72,
        "summary_reasoning": "Close above MA20 and MA60, MACD histogram positive, RSI14 neutral (scripted e2e reply).",
        "risk_warning": "ATR elevated relative to the price; resistance close above.",
    },
    "financial_auditor": {
        "signal": "BULLISH",
        "confidence": 0.66,
        "summary_reasoning": "Revenue and profit growth positive, ROE high, operating cash flow covers profit.",
        "risk_warning": "Growth slowing in the latest period.",
        "dimension_analyses": [
            {"dimension": "growth", "assessment": "POSITIVE", "comment": "Revenue YoY positive."},
            {"dimension": "profitability", "assessment": "POSITIVE", "comment": "ROE high."},
            {"dimension": "cash_flow", "assessment": "NEUTRAL", "comment": "OCF covers profit."},
        ],
    },
    "valuation_modeler": {
        "valuation_verdict": "FAIRLY_VALUED",
        "confidence_score": 0.55,
        "reasoning_summary": "PE percentile mid-range; earnings yield a little above the 10-year yield.",
        "risk_factors": ["Multiple compression if rates rise", "Earnings-power range assumes no growth"],
    },
    "macro_intelligence": {
        "macro_environment": "NEUTRAL",
        "confidence_score": 0.5,
        "macro_summary": "Manufacturing PMI near the expansion line, CPI low, LPR easing.",
        "key_risks": ["Weak domestic demand", "Deflationary pressure"],
    },
    "catalyst_detective": {
        "catalyst_assessment": "POSITIVE",
        "confidence_score": 0.6,
        "catalyst_summary": "Volume spike on an up day and a dividend increase.",
        "positive_catalysts": [
            {"title": "Dividend increase", "description": "DPS up in the latest annual report.", "date": None}
        ],
        "negative_catalysts": [
            {"title": "Gap down", "description": "A gap down in the last 60 sessions.", "date": None}
        ],
    },
    "bull_advocate": {
        "core_thesis": "Price trend and earnings quality support upside.",
        "supporting_arguments": [
            {
                "argument": "The trend is up",
                "evidence": "Close above MA20 and MA60",
                "source_experts": [CITED_EXPERT],
                "strength": "HIGH",
            }
        ],
        "acknowledged_risks": ["Volatility is elevated"],
    },
    "bear_advocate": {
        "core_thesis": "Valuation leaves little margin of safety.",
        "supporting_arguments": [
            {
                "argument": "Resistance is close",
                "evidence": "Resistance close above the price",
                "source_experts": [CITED_EXPERT],
                "strength": "MEDIUM",
            }
        ],
        "acknowledged_strengths": ["The trend is up"],
    },
    "resolution": {
        "direction": "BULLISH",
        "confidence": 0.7,
        "risk_matrix": [
            {"risk": "Volatility", "probability": "MEDIUM", "impact": "MEDIUM", "mitigation": "Stop below support"},
            {"risk": "Rates rise", "probability": "LOW", "impact": "HIGH", "mitigation": "Build in tranches"},
        ],
        "key_disagreements": ["Whether the valuation leaves room for upside"],
        "conflict_resolution": "The trend evidence outweighs the valuation concern.",
    },
    "judge": {
        "action": "BUY",
        "position_percent": 12,
        "confidence": 0.65,
        "entry_strategy": "Build in two tranches.",
        "stop_loss_percent": 6,
        "stop_loss_basis": "Below support",
        "take_profit_percent": 15,
        "take_profit_basis": "Next resistance",
        "time_horizon": "MEDIUM_TERM",
        "risk_warnings": ["Volatility", "Rates rise"],
        "reasoning": "Bullish outcome with two named risks.",
    },
}

# Malformed model output, one flavour per kind of failure the parsers must survive.
MALFORMED_TEXT = "I think this stock looks fine, but I will not answer in JSON."
TRUNCATED_JSON = '{"signal": "BULLISH", "confidence": 0.7, "summary_reas'


def reply(role: str) -> dict[str, Any]:
    """A fresh copy of the well-formed reply of ``role``."""
    return copy.deepcopy(REPLIES[role])


def rule(role: str, **overrides: Any) -> dict[str, Any]:
    """The fake server's rule for ``role``; ``overrides`` set ``reply``, ``status``, ``latency_ms``, ``times``."""
    base: dict[str, Any] = {"name": role, "match": MATCH[role], "reply": reply(role)}
    base.update(overrides)
    return base


def script(latency_ms: float = 0, roles: tuple[str, ...] = ROLES) -> dict[str, Any]:
    """The script of a full successful LLM research: one rule per role (each with ``latency_ms``)."""
    return {"rules": [rule(role, latency_ms=latency_ms) for role in roles], "default_latency_ms": 0}


def with_role(base: dict[str, Any], role: str, **overrides: Any) -> dict[str, Any]:
    """``base`` with the rule of ``role`` changed: ``reply=MALFORMED_TEXT``, ``status=503``, ``latency_ms=9000``,
    ``times=1``... A rule limited by ``times`` falls through to the well-formed one once it is used up."""
    new = copy.deepcopy(base)
    rules = new["rules"]
    index = next(i for i, r in enumerate(rules) if r.get("name") == role)
    changed = dict(rules[index])
    changed.update(overrides)
    if "times" in overrides:
        rules.insert(index, changed)  # the limited rule first, the original after it
    else:
        rules[index] = changed
    return new


def malformed(role: str, text: str = MALFORMED_TEXT, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A full script whose ``role`` answers ``text`` (not its JSON contract)."""
    return with_role(base or script(), role, reply=text)


def fault(role: str, status: int, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A full script whose ``role`` answers with HTTP ``status``."""
    return with_role(base or script(), role, status=status)


def calls_by_role(calls: list[dict[str, Any]]) -> dict[str, int]:
    """Count the fake server's recorded calls per rule name (``None`` = no rule matched)."""
    counts: dict[str, int] = {}
    for call in calls:
        name = call.get("rule") or "unmatched"
        counts[name] = counts.get(name, 0) + 1
    return counts
