"""The traceability table names every spec scenario, and only tests that exist."""

from __future__ import annotations

from contract_testkit import REPO_ROOT, assert_node_ids_exist, spec_scenarios, traceability_rows

TABLE = REPO_ROOT / "docs/traceability/coordinator-research-orchestration.md"
SPEC_SCENARIOS = 71  # "#### Scenario:" headings (the preamble quotes the marker once more)
EXTRAS_HEADING = "## Beyond the scenarios"


def test_every_scenario_is_listed() -> None:
    assert len(spec_scenarios(traceability_rows(TABLE, extras_after=EXTRAS_HEADING))) == SPEC_SCENARIOS


def test_every_node_id_names_an_existing_test() -> None:
    assert_node_ids_exist(traceability_rows(TABLE, extras_after=EXTRAS_HEADING))
