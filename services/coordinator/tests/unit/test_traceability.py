"""The traceability table names every spec scenario, and only tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
TABLE = REPO / "docs/traceability/coordinator-research-orchestration.md"
SPEC_SCENARIOS = 71  # "#### Scenario:" headings (the preamble quotes the marker once more)


def _rows() -> list[tuple[str, str]]:
    rows = []
    scenarios_section = TABLE.read_text(encoding="utf-8").split("## Beyond the scenarios")
    for part, text in enumerate(scenarios_section):
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 2 and "::" in cells[1]:
                rows.append((cells[0] if part == 0 else f"extra: {cells[0]}", cells[1]))
    return rows


def test_every_scenario_is_listed() -> None:
    scenarios = {scenario for scenario, _ in _rows() if not scenario.startswith("extra: ")}
    assert len(scenarios) == SPEC_SCENARIOS


def test_every_node_id_names_an_existing_test() -> None:
    rows = _rows()
    assert rows
    for scenario, node_id in rows:
        path, _, name = node_id.partition("::")
        source = (REPO / path).read_text(encoding="utf-8")
        assert re.search(rf"^(async )?def {re.escape(name)}\(", source, re.MULTILINE), (scenario, node_id)
