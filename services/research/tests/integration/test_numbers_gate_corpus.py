"""The numbers gate on a labelled corpus of model answers (``numbers_corpus.py``): planted wrong figures are
flagged (recall ≥ 99 %), true figures in their usual spellings are not (≤ 1 % flagged). The figures are
reported in docs/decisions.md ("Numbers gate")."""

from __future__ import annotations

from numbers_corpus import WRONG, build_corpus, score

from research.container import build_container
from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider
from research.settings import Settings


async def test_the_gate_flags_planted_figures_and_passes_true_ones(snapshot: OfflineSnapshotProvider) -> None:
    container = build_container(Settings(_env_file=None, analysis_engine="rules"), provider=snapshot)  # type: ignore[call-arg]
    answers = await build_corpus(container)
    result = score(answers)
    wrong_flagged, wrong = result.rate(True)
    true_flagged, true = result.rate(False)
    assert {a.language for a in answers} == {"zh", "en"}
    assert wrong + true >= 400
    assert set(WRONG) <= set(result.figures), "every kind of planted figure is in the corpus"
    assert wrong_flagged / wrong >= 0.99, result.misses
    assert true_flagged / true <= 0.01, result.misses
    assert not result.unlabelled_flags
