"""The numbers gate's CPU cost per model answer, in process (docs/benchmarks.md, section 10; CPU time:
a busy machine inflates it less than wall time).

For each expert of the rules engine on a few snapshot symbols, the answer is the rules engine's own verdict
(its narrative reads like a model's, with a dozen figures or more) and the input the LLM prompt the expert
would send (system + user, the facts JSON filled in). Timed: reading the input's figures (``sources_from``),
tracing the answer's figures (``check_texts``), and the whole ``NumbersGate.review`` (policy ``mark``, no
model call). Run: ``python -m benchmarks.numbers_gate``."""

from __future__ import annotations

import asyncio
import statistics
import time
from datetime import date
from typing import Any

from pydantic import BaseModel

from research.container import build_container
from research.infrastructure.agents.llm_agent import AGENTS_DIR, LANGUAGE_NAMES, facts_json
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.infrastructure.rules.scoring import Language
from research.settings import Settings
from service_kit.llm.numbers.gate import NumbersGate, answer_texts, check_texts
from service_kit.llm.numbers.sources import sources_from
from service_kit.llm.prompts import PromptTemplate
from shared_contracts.experts import ExpertType

SYMBOLS = ("600519.SH", "000001.SZ", "300750.SZ", "601318.SH")
EXPERTS = (ExpertType.TECHNICAL_ANALYST, ExpertType.FINANCIAL_AUDITOR, ExpertType.VALUATION_MODELER)
ROUNDS, REPEAT = 50, 5


def _per_call_us(action: Any, rounds: int = ROUNDS) -> float:
    """The median over ``REPEAT`` runs of the mean time of one call, in µs."""
    runs = []
    for _ in range(REPEAT):
        start = time.process_time()
        for _ in range(rounds):
            action()
        runs.append((time.process_time() - start) / rounds * 1e6)
    return statistics.median(runs)


async def _cases(language: Language) -> list[tuple[str, str, Any]]:
    container = build_container(
        Settings(_env_file=None, analysis_engine="rules", report_language=language),
        provider=OfflineSnapshotProvider(),
    )
    cases = []
    for expert in EXPERTS:
        template = PromptTemplate.load(AGENTS_DIR / expert.value / "prompts")
        for symbol in SYMBOLS:
            try:
                result = await container.experts.run(expert.value, symbol, analysis_date=date(2024, 6, 28))
            except Exception:
                continue
            system, user = template.render(
                language=LANGUAGE_NAMES[language],
                facts=facts_json(result["input"])["facts"],
            )
            cases.append((system, user, result))
    return cases


async def main() -> None:
    from research.domain.model.verdicts import FinancialVerdict, TechnicalVerdict, ValuationVerdictModel

    models: list[type[BaseModel]] = [TechnicalVerdict, FinancialVerdict, ValuationVerdictModel]
    gate = NumbersGate("mark")
    rows = []
    languages: tuple[Language, ...] = ("zh", "en")
    for language in languages:
        for system, user, result in await _cases(language):
            verdict = next(m.model_validate(result) for m in models if _fits(m, result))
            texts = answer_texts(verdict)
            sources = sources_from([system, user])
            found = check_texts(texts, sources)

            async def never(_: str) -> Any:
                raise AssertionError

            rows.append(
                {
                    "chars": sum(len(t) for t in texts.values()),
                    "figures": found.checked,
                    "prompt_chars": len(system) + len(user),
                    "sources_us": _per_call_us(lambda s=system, u=user: sources_from([s, u])),
                    "trace_us": _per_call_us(lambda t=texts, s=sources: check_texts(t, s)),
                    "review_us": await _review_us(gate, verdict, system, user, never),
                }
            )
    for key in ("chars", "figures", "prompt_chars", "sources_us", "trace_us", "review_us"):
        values = [row[key] for row in rows]
        print(f"{key:13} median {statistics.median(values):9.1f}  min {min(values):9.1f}  max {max(values):9.1f}")
    print(f"answers: {len(rows)}")


def _fits(model: Any, result: dict[str, Any]) -> bool:
    return all(name in result for name, info in model.model_fields.items() if info.is_required())


async def _review_us(gate: NumbersGate, verdict: Any, system: str, user: str, never: Any) -> float:
    runs = []
    for _ in range(REPEAT):
        start = time.process_time()
        for _ in range(ROUNDS):
            await gate.review(verdict, sources_from([system, user]), never)
        runs.append((time.process_time() - start) / ROUNDS * 1e6)
    return statistics.median(runs)


if __name__ == "__main__":
    asyncio.run(main())
