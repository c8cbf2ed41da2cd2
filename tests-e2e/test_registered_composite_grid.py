"""The registered composite still decides (issue 52): on the whole evaluation grid of the run of record (every
snapshot symbol on every month end from 2020-01 to 2025-09), the score and the universe rank the debate weighs
out of the experts' families (``debate.domain.dtos.standing_weighing``) equal the frozen composite of
``research.domain.analysis.relative`` — ``composite`` of the factor percentiles and the score's ``percentile_in``
among the universe's scores — computed here beside it, so the registered out-of-sample result still stands.

It also checks the guarantee the coherence rests on: a stock in the composite's top (bottom) fifth always has a
family placed there, so a BUY always has a bullish voting expert."""

from __future__ import annotations

import asyncio
from datetime import date

from debate.domain.dtos.standing_weighing import weigh_standing
from evaluation.grid import month_ends
from research.application.point_in_time_data import PointInTimeData
from research.application.universe_standing import UniverseStanding
from research.domain.analysis.relative import SPECS, composite, percentile_in
from research.domain.model.symbol import Symbol
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from shared_contracts.experts import ExpertType
from shared_contracts.projection import ExpertSummary
from shared_contracts.standing import BOTTOM_RANK, TOP_RANK

GRID = month_ends(date(2020, 1, 1), date(2025, 9, 30))
EVERY_EXPERT = {
    e.value: ExpertSummary(signal="NEUTRAL", confidence=0.5, reasoning="-", risk_warning="-") for e in ExpertType
}


async def _check_grid() -> tuple[int, list[str]]:
    standing = UniverseStanding(PointInTimeData(OfflineSnapshotProvider()), None, "snapshot")
    checked, wrong = 0, []
    for on in GRID:
        section = await standing.cross_section(on)
        for name, factors in section.factors.items():
            percentiles = {
                s: None if (v := factors[s]) is None or not section.values[s] else percentile_in(v, section.values[s])
                for s in SPECS
            }
            frozen = composite(percentiles)
            placed = await standing.standing(Symbol.parse(name), on, "technical")
            if frozen is None:
                if placed is not None and placed.composite is not None:
                    wrong.append(f"{name} {on}: a composite where the frozen one has none")
                continue
            frozen_rank = percentile_in(frozen.score, section.scores)
            assert placed is not None
            assert placed.composite is not None
            weighing = weigh_standing(EVERY_EXPERT, placed.composite)
            assert weighing is not None, f"{name} {on}"
            checked += 1
            if (weighing.score, weighing.universe_rank) != (frozen.score, frozen_rank):
                wrong.append(f"{name} {on}: {weighing.score}/{weighing.universe_rank} vs {frozen.score}/{frozen_rank}")
            if abs(sum(c.contribution for c in weighing.contributions) - frozen.score) > 0.005:
                wrong.append(f"{name} {on}: contributions do not sum to {frozen.score}")
            side = "BULLISH" if frozen_rank >= TOP_RANK else "BEARISH" if frozen_rank <= BOTTOM_RANK else None
            if side is not None and not any(c.signal == side for c in weighing.voters()):
                wrong.append(f"{name} {on}: rank {frozen_rank} without a {side} family")
    return checked, wrong


def test_the_weighed_score_and_rank_are_the_registered_composite_on_the_whole_grid() -> None:
    checked, wrong = asyncio.run(_check_grid())
    print(f"\nregistered composite grid: {checked} (symbol, month end) cells checked, {len(wrong)} differ")
    assert checked > 7000
    assert wrong[:20] == []
