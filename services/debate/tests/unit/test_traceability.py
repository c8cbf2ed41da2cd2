"""The traceability table names every spec scenario once or more, and only tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
TABLE = REPO / "docs/traceability/debate-bull-bear-engine.md"
SPEC_SCENARIOS = 29  # "#### Scenario:" headings in the spec (its preamble mentions the word once more)


def _rows() -> list[tuple[str, str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and "::" in cells[1]:
            rows.append((cells[0], cells[1]))
    return rows


def test_every_scenario_is_listed() -> None:
    assert len({scenario for scenario, _ in _rows()}) == SPEC_SCENARIOS


def test_every_node_id_names_an_existing_test() -> None:
    for scenario, node_id in _rows():
        path, _, name = node_id.partition("::")
        source = (REPO / path).read_text(encoding="utf-8")
        assert re.search(rf"^(async )?def {re.escape(name)}\(", source, re.MULTILINE), (scenario, node_id)
