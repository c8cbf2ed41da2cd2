"""Issue 52: the verdict's confidence is a probability, mapped from the standing's strength by the fitted,
shipped per-action curves (``judge.infrastructure.calibration``)."""

from __future__ import annotations

import itertools
import json
from importlib import resources
from typing import Any

import pytest

from judge.infrastructure.calibration import calibrated_confidence, confidence_maps, standing_strength
from judge.infrastructure.calibration.verdict_confidence import (
    ACTIONS,
    DATA_FILE,
    DATA_PACKAGE,
    ConfidenceMap,
    parse_maps,
)

RANKS = [i / 100 for i in range(101)]


def shipped() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text("utf-8"))
    return document


def test_the_shipped_file_loads_from_the_installed_package_with_its_provenance() -> None:
    document = shipped()
    assert set(document["actions"]) == set(ACTIONS)
    for key in ("split", "command", "records", "bins", "prior", "cost", "outcomes", "strength"):
        assert key in document, key
    assert len(document["records"]["commit"]) == 40
    for action in ACTIONS:
        entry = document["actions"][action]
        assert entry["n"] > 0
        assert entry["fit_window"]["first"] <= entry["fit_window"]["last"] < document["split"]
        assert 0.0 < entry["base_rate"] < 1.0
    maps = confidence_maps()
    assert maps is confidence_maps()  # read once
    assert {a: m.n for a, m in maps.items()} == {a: document["actions"][a]["n"] for a in ACTIONS}


@pytest.mark.parametrize("action", ACTIONS)
def test_every_confidence_is_a_probability_and_monotone_in_the_strength(action: str) -> None:
    strengths = [i / 200 for i in range(201)]
    values = [calibrated_confidence(action, None, s) for s in strengths]
    assert all(0.0 <= v <= 1.0 for v in values)
    steps = [b - a for a, b in itertools.pairwise(values)]
    assert all(s >= -1e-9 for s in steps) or all(s <= 1e-9 for s in steps)
    # the rank's two sides with the same distance from the middle are the same strength
    for rank in RANKS:
        assert calibrated_confidence(action, rank, None) == calibrated_confidence(action, 1.0 - rank, None)


def test_the_rank_decides_the_strength_before_the_score() -> None:
    assert standing_strength(0.9, -0.1) == 0.8
    assert standing_strength(None, -0.37) == 0.37
    assert standing_strength(None, None) is None
    assert calibrated_confidence("BUY", 0.9, -0.1) == calibrated_confidence("BUY", None, 0.8)
    base = confidence_maps()["SELL"].base_rate
    assert calibrated_confidence("SELL", None, None) == round(base, 4)


def test_an_unknown_action_is_refused() -> None:
    with pytest.raises(ValueError, match="no confidence map"):
        calibrated_confidence("SHORT", 0.9, None)


def test_linear_between_knots_and_flat_beyond_the_ends() -> None:
    curve = ConfidenceMap("BUY", (0.6, 0.8, 0.9), (0.40, 0.44, 0.50), 0.42, 100)
    assert curve(0.0) == 0.40
    assert curve(0.6) == 0.40
    assert curve(0.7) == pytest.approx(0.42)
    assert curve(0.85) == pytest.approx(0.47)
    assert curve(0.9) == 0.50
    assert curve(1.0) == 0.50


def test_a_malformed_map_is_refused() -> None:
    with pytest.raises(ValueError, match="ascending"):
        ConfidenceMap("BUY", (0.6, 0.6), (0.4, 0.5), 0.4, 10)
    with pytest.raises(ValueError, match="monotone"):
        ConfidenceMap("BUY", (0.1, 0.2, 0.3), (0.4, 0.5, 0.45), 0.4, 10)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ConfidenceMap("BUY", (0.1, 0.2), (0.4, 1.2), 0.4, 10)
    document = shipped()
    del document["actions"]["HOLD"]
    with pytest.raises(KeyError):
        parse_maps(document)
