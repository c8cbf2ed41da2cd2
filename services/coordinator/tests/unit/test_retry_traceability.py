"""The coordinator-retry traceability table lists every delta-spec scenario, and names only tests that exist."""

from __future__ import annotations

import re

from contract_testkit import REPO_ROOT, assert_node_ids_exist, spec_scenarios, traceability_rows

TABLE = REPO_ROOT / "docs/traceability/coordinator-retry.md"
DELTA_SCENARIOS = {
    "首次请求响应包含 retry_count 为 0",
    "重试请求响应包含递增的 retry_count",
    "请求含完整字段时正确解析",
    "options 缺失时使用默认值",
    "响应体包含 debate_outcome",
    "响应体包含 verdict",
    "skip_debate 为 true 时跳过辩论和裁决",
    "辩论失败时 debate_outcome 和 verdict 均为 null",
    "辩论成功但裁决失败时 verdict 为 null",
    "全部成功时 overall_status 为 completed",
    "部分成功时 overall_status 为 partial",
}


def test_every_delta_scenario_is_listed() -> None:
    assert spec_scenarios(traceability_rows(TABLE)) >= DELTA_SCENARIOS
    assert len(DELTA_SCENARIOS) == 11


def test_the_list_matches_the_spec_when_it_is_checked_out_beside_the_repository() -> None:
    spec = REPO_ROOT.parent / "shared/specs/coordinator-retry.delta-spec.md"
    if not spec.is_file():
        return  # the specs live outside this repository; the list above is their copy
    headings = re.findall(r"^#### Scenario: (.+)$", spec.read_text(encoding="utf-8"), re.MULTILINE)
    assert {h.strip() for h in headings} == DELTA_SCENARIOS


def test_every_node_id_names_an_existing_test() -> None:
    assert_node_ids_exist(traceability_rows(TABLE))
