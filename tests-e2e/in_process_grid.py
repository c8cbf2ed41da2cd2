"""The rules pipeline in-process over a grid: every symbol of the offline snapshot on a few dates, in both report
languages — each research service expert through its use cases, the coordinator's projections into the debate and
the judge inputs, the debate's and the judge's use cases. Made once per test session (``conftest.rules_grid``)
and read by the tests of what an investor reads (``test_narrative_text``) and of the decision's coherence
(``test_decision_coherence``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import date
from typing import Any

from coordinator.infrastructure.adapters.debate_gateway_adapter import debate_request_body
from coordinator.infrastructure.adapters.judge_gateway_adapter import to_judge_input
from debate.container import build_container as debate_container
from debate.presentation.rest.debate_schemas import DebateRunRequest, to_debate_input
from debate.settings import Settings as DebateSettings
from judge.container import build_container as judge_container
from judge.domain.dtos.judge_input import JudgeInput as JudgeDomainInput
from judge.settings import Settings as JudgeSettings
from research.container import build_container as research_container
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.settings import Settings as ResearchSettings
from shared_contracts.debate import DebateOutcome
from shared_contracts.errors import ServiceError
from shared_contracts.experts import ExpertType
from shared_contracts.judge import JudgeInput

DATES = [date(2020, 3, 31), date(2021, 6, 30), date(2023, 6, 30), date(2025, 9, 30)]
"""2020-03-31: before many symbols' first bar and before most annual reports are public; 2021-06-30: bars of late
listings not yet there; 2023 and 2025: full data, the last one the snapshot's end."""
LANGUAGES = ("zh", "en")
NOT_NARRATIVE = {"input", "output", "user_prompt", "raw_llm_output", "data_gaps", "staleness", "inputs_as_of"}
"""Trace and audit fields (data notes, the engine's inputs and arithmetic) hold data, not the text an investor reads."""


@dataclass
class Research:
    symbol: str
    on: date
    language: str
    experts: dict[str, dict[str, Any] | None]
    debate: dict[str, Any]
    judge_input: JudgeInput
    verdict: dict[str, Any]

    def where(self, what: str) -> str:
        return f"{self.symbol} {self.on} {self.language} {what}"


def texts_of(value: Any, path: str) -> list[tuple[str, str]]:
    """Every string under ``value`` with its path, trace and audit fields left out."""
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [t for k, v in value.items() if k not in NOT_NARRATIVE for t in texts_of(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [t for i, v in enumerate(value) for t in texts_of(v, f"{path}[{i}]")]
    return []


async def researches(snapshot: OfflineSnapshotProvider, language: str) -> list[Research]:
    """Every research of the grid in ``language``, asked per call of services whose REPORT_LANGUAGE is the other
    one; a symbol with no expert answering on a date is left out."""
    other = "en" if language == "zh" else "zh"
    research_services = research_container(
        ResearchSettings(_env_file=None, analysis_engine="rules", report_language=other), provider=snapshot
    )
    debate_services = debate_container(DebateSettings(_env_file=None, analysis_engine="rules", report_language=other))
    judge_services = judge_container(JudgeSettings(_env_file=None, analysis_engine="rules", report_language=other))
    research = research_services.dispatchers(language)
    debate, judge = debate_services.debate_services(language), judge_services.judge_services(language)
    symbols = await snapshot.available_symbols()
    assert symbols is not None
    made: list[Research] = []
    for symbol in symbols:
        for on in DATES:
            experts: dict[str, dict[str, Any] | None] = {}
            for expert in ExpertType:
                try:
                    experts[expert.value] = await research.run(expert.value, symbol, analysis_date=on)
                except ServiceError:
                    experts[expert.value] = None  # no data yet on that day: the research goes on without it
            if not any(experts.values()):
                continue  # every expert refused: the research is a 422, there is nothing to read
            body = DebateRunRequest.model_validate(debate_request_body(symbol, experts))
            outcome = await debate.run(to_debate_input(body))
            debated = DebateOutcome.model_validate(outcome.model_dump(mode="json")).model_dump(mode="json")
            failed = [name for name, result in experts.items() if result is None]
            context = {
                "expert_results": experts,
                "analysis_date": on.isoformat(),
                "failed_experts": failed,
                "language": language,
            }
            judge_input = to_judge_input(symbol, debated, context)
            verdict = await judge.run(JudgeDomainInput.from_wire(judge_input))
            made.append(Research(symbol, on, language, experts, debated, judge_input, verdict.model_dump(mode="json")))
    return made


def grid() -> dict[str, list[Research]]:
    """Every research of the grid in each language."""
    snapshot = OfflineSnapshotProvider()

    async def both() -> dict[str, list[Research]]:
        return {language: await researches(snapshot, language) for language in LANGUAGES}

    return asyncio.run(both())


def every(runs: dict[str, list[Research]]) -> list[Research]:
    return [r for language in LANGUAGES for r in runs[language]]
