"""The traceability table names every spec scenario once or more, and only tests that exist."""

from __future__ import annotations

from contract_testkit import REPO_ROOT, assert_node_ids_exist, spec_scenarios, traceability_rows

TABLE = REPO_ROOT / "docs/traceability/debate-bull-bear-engine.md"
SPEC_SCENARIOS = 29  # "#### Scenario:" headings in the spec (its preamble mentions the word once more)


def test_every_scenario_is_listed() -> None:
    assert len(spec_scenarios(traceability_rows(TABLE))) == SPEC_SCENARIOS


def test_every_node_id_names_an_existing_test() -> None:
    assert_node_ids_exist(traceability_rows(TABLE))
