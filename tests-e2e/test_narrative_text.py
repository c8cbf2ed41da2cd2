"""What an investor reads holds up (issue 38), for every symbol of the offline snapshot, in both languages, on dates
from 2020 to 2025 — including dates before a symbol's first bar or its first public report, where experts fail and
the rest of the pipeline goes on without them.

In-process and with the rules engines only: each research service expert through its use cases, the coordinator's
projections into the debate and the judge inputs, the debate's and the judge's use cases. For each research:

- no narrative text shows a hole (``n/a``, ``(-)``, ``nan``, ``None``, ``null``), is cut (an ellipsis anywhere) or
  ends in a dangling separator (``;`` ``，`` ``、`` ``:`` ...);
- each research is written in the one language it asked for, per call of services set to the other one: no CJK
  character in English, no English word in Chinese (outside symbols, tickers and indicator abbreviations, which are
  upper case) and no enum value inside a Chinese text (it writes 持有, 看多, 短期);
- no risk field is empty (an expert's ``risk_warning``, a risk-list item, the verdict's ``risk_warnings``);
- a BUY or SELL always has a reference price and a volatility measure, and absolute stop and target prices;
- the sizing sentence's figures are the verdict's position (and a "rounded down" never goes up);
- the debate's per-expert "data completeness" is the one its data-quality counts give (and "data coverage", the
  expert's own name for the share of its rules that had data, never appears in the debate)."""

from __future__ import annotations

import re

import pytest
from in_process_grid import Research, every, texts_of

from debate.domain.dtos.evidence import coverage_of
from shared_contracts.enum_words import ZH_WORDS
from shared_contracts.experts import ExpertType
from shared_contracts.projection import ExpertDataQuality

PLACEHOLDER = re.compile(r"n/a|\(-\)|（-）|\bnan\b|\bNaN\b|\bNone\b|\bnull\b")
CUT = re.compile(r"…|\.\.\.")
"""An ellipsis: a text cut (narrative is kept in whole sentences)."""
DANGLING = (";", "；", ",", "，", "、", ":", "：", "-", "—")
"""What a narrative text never ends with: a separator with nothing after it."""
CJK = re.compile(r"[\u3400-\u9fff]")
ENGLISH_WORD = re.compile(r"(?<![A-Za-z0-9_.-])[a-z]{3,}(?![A-Za-z0-9_])")
"""A lower-case English word: symbols, tickers, enum names and indicator names are upper case."""
ENUM_VALUE = re.compile(rf"(?<![A-Za-z_])({'|'.join(sorted(ZH_WORDS, key=len, reverse=True))})(?![A-Za-z_])")
"""A contract's enum value (HOLD, SHORT_TERM) inside a text: a Chinese narrative writes its word instead
(shared_contracts.enum_words); a field that is only the value is data, not narrative."""
IDENTIFIER = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
"""A snake_case key (``financial_auditor``): the reader is told the expert's name in the research's language."""
NOT_PROSE = ("information_sources", "data_source", ".engine.", "relative_standing", "_indicators", ".figures")
NOT_PROSE += ("catalyst_context", "key_technical_levels", "contributions", ".dimension", ".date", "coverage")
NOT_PROSE += ("source_experts", "intrinsic_value_range.method")
"""Fields that hold data (source names, units, factor descriptions, keys), not prose in the research's language."""
DATA_SOURCES = {"offline", "snapshot"}
"""The offline snapshot's name (``offline-snapshot``), which a data note may name."""
STRING_RISK_FIELDS = {ExpertType.TECHNICAL_ANALYST: "risk_warning", ExpertType.FINANCIAL_AUDITOR: "risk_warning"}
LIST_RISK_FIELDS = {ExpertType.VALUATION_MODELER: "risk_factors", ExpertType.MACRO_INTELLIGENCE: "key_risks"}
SIZED = re.compile(r"→ (\d+(?:\.\d+)?)%")
FIGURE = r"(\d+(?:\.\d+)?)"
ROUNDED_DOWN = re.compile(rf"= {FIGURE}%(?:, limited to {FIGURE}%[^;]*)?; rounded down to a [\d.]+% step → {FIGURE}%")
COMPLETENESS = re.compile(r"data completeness (\d\.\d\d)|数据完整度 (\d\.\d\d)")


@pytest.fixture(scope="module")
def runs(rules_grid: dict[str, list[Research]]) -> dict[str, list[Research]]:
    return rules_grid


def test_the_grid_covers_every_symbol_missing_data_and_every_action(runs: dict[str, list[Research]]) -> None:
    made = every(runs)
    assert len({r.symbol for r in made}) >= 120
    assert any(None in r.experts.values() for r in made)  # dates with missing data are in the grid
    assert any(r.experts["technical_analyst"] is None and any(r.experts.values()) for r in made)
    assert {r.verdict["action"] for r in made} == {"BUY", "SELL", "HOLD"}


def test_no_narrative_shows_a_placeholder_or_a_cut_word(runs: dict[str, list[Research]]) -> None:
    holes, cuts, checked = [], [], 0
    for r in every(runs):
        texts = [t for name, result in r.experts.items() if result for t in texts_of(result, name)]
        texts += texts_of(r.debate, "debate") + texts_of(r.verdict, "verdict")
        checked += len(texts)
        holes += [r.where(f"{path}: {text[:160]!r}") for path, text in texts if PLACEHOLDER.search(text)]
        cuts += [r.where(f"{path}: {text[-160:]!r}") for path, text in texts if CUT.search(text)]
    assert checked > 100_000
    assert holes[:20] == []
    assert cuts[:20] == []


def _prose(r: Research) -> list[tuple[str, str]]:
    """The research's narrative texts (``texts_of``) but its data fields (``NOT_PROSE``)."""
    texts = [t for name, result in r.experts.items() if result for t in texts_of(result, name)]
    texts += texts_of(r.debate, "debate") + texts_of(r.verdict, "verdict")
    return [(path, text) for path, text in texts if not any(part in path for part in NOT_PROSE)]


def test_no_narrative_ends_in_a_dangling_separator(runs: dict[str, list[Research]]) -> None:
    dangling = [
        r.where(f"{path}: {text[-80:]!r}") for r in every(runs) for path, text in _prose(r) if text.endswith(DANGLING)
    ]
    assert dangling[:20] == []


def test_no_narrative_leaves_a_quotation_open(runs: dict[str, list[Research]]) -> None:
    """A text shortened inside a quotation would leave its 「 (or “) open: texts are cut only between sentences."""
    opened = [
        r.where(f"{path}: {text[-80:]!r}")
        for r in every(runs)
        for path, text in _prose(r)
        if text.count("「") != text.count("」") or text.count("“") != text.count("”")
    ]
    assert opened[:20] == []


def enum_values_in(text: str) -> list[str]:
    return [] if text.strip() in ZH_WORDS else ENUM_VALUE.findall(text)


def test_each_research_is_written_in_its_one_language(runs: dict[str, list[Research]]) -> None:
    mixed, checked = [], {"zh": 0, "en": 0}
    for r in every(runs):
        for path, text in _prose(r):
            checked[r.language] += 1
            if r.language == "en" and CJK.search(text):
                mixed.append(r.where(f"{path}: {text[:120]!r}"))
            if r.language == "zh" and (words := ENGLISH_WORD.findall(text) + enum_values_in(text)):
                mixed.append(r.where(f"{path}: {words[:3]} in {text[:120]!r}"))
            if keys := IDENTIFIER.findall(text):
                mixed.append(r.where(f"{path}: {keys[:3]} in {text[:120]!r}"))
    assert min(checked.values()) > 10_000
    assert mixed[:20] == []


def test_data_notes_are_written_in_the_researchs_language(runs: dict[str, list[Research]]) -> None:
    mixed, checked = [], 0
    for r in every(runs):
        for name, result in r.experts.items():
            for field in ("data_gaps", "staleness"):
                for note in (result or {}).get(field, []):
                    checked += 1
                    words = [*ENGLISH_WORD.findall(note), *IDENTIFIER.findall(note)] if r.language == "zh" else []
                    if (r.language == "en" and CJK.search(note)) or [w for w in words if w not in DATA_SOURCES]:
                        mixed.append(r.where(f"{name}.{field}: {note[:120]!r}"))
    assert checked > 1_000
    assert mixed[:20] == []


def test_no_risk_field_is_empty(runs: dict[str, list[Research]]) -> None:
    empty = []
    for r in every(runs):
        for expert, field in STRING_RISK_FIELDS.items():
            result = r.experts[expert.value]
            if result is not None and not result[field].strip():
                empty.append(r.where(f"{expert.value}.{field}"))
        for expert, field in LIST_RISK_FIELDS.items():
            result = r.experts[expert.value]
            if result is not None and (not result[field] or any(not item.strip() for item in result[field])):
                empty.append(r.where(f"{expert.value}.{field}"))
        if not r.verdict["risk_warnings"] or any(not w.strip() for w in r.verdict["risk_warnings"]):
            empty.append(r.where("verdict.risk_warnings"))
        if any(not item["risk"].strip() for item in r.debate["risk_matrix"]):
            empty.append(r.where("debate.risk_matrix"))
    assert empty[:20] == []


def test_a_buy_or_sell_always_has_a_price_to_act_on(runs: dict[str, list[Research]]) -> None:
    trades = [r for r in every(runs) if r.verdict["action"] != "HOLD"]
    unpriced = [r for r in every(runs) if r.judge_input.reference_price is None]
    assert trades
    assert unpriced  # the grid has researches without a close of the day (no technical analyst yet)
    for r in trades:
        assert r.judge_input.reference_price is not None, r.where("no reference price")
        assert r.judge_input.reference_date is not None, r.where("no reference date")
        assert r.judge_input.atr is not None or r.judge_input.realised_volatility_pct is not None, r.where("no vol")
        assert r.verdict["stop_loss"]["price"] is not None, r.where("no stop price")
        assert r.verdict["take_profit"]["price"] is not None, r.where("no target price")
    for r in unpriced:
        assert r.verdict["action"] == "HOLD", r.where(r.verdict["reasoning"])


def test_the_sizing_sentence_states_the_position(runs: dict[str, list[Research]]) -> None:
    rounded = 0
    for r in every(runs):
        position, reasoning = r.verdict["position_percent"], r.verdict["reasoning"]
        stated = [float(figure) for figure in SIZED.findall(reasoning)]
        if r.verdict["action"] == "HOLD":
            assert position == 0, r.where(reasoning)
            assert not stated, r.where(reasoning)
            assert ("仓位 0%" if r.language == "zh" else "no position: 0%") in reasoning, r.where(reasoning)
            continue
        assert stated, r.where(reasoning)
        assert all(figure == position for figure in stated), r.where(reasoning)
        for raw, limit, result in ROUNDED_DOWN.findall(reasoning):
            rounded += 1
            assert float(result) <= min(float(raw), float(limit or raw)), r.where(reasoning)
        if r.verdict["action"] == "BUY" and r.language == "en":
            assert f"Build the {position:g}% position" in r.verdict["entry_strategy"], r.where("entry")
    assert rounded > 0


def test_the_debates_data_completeness_is_the_experts_data_quality(runs: dict[str, list[Research]]) -> None:
    compared = 0
    for r in every(runs):
        for side in ("bull_case", "bear_case"):
            for argument in r.debate[side]["supporting_arguments"]:
                (expert,) = argument["source_experts"]
                result = r.experts[expert]
                assert result is not None
                quality = ExpertDataQuality(data_gaps=len(result["data_gaps"]), staleness=len(result["staleness"]))
                found = COMPLETENESS.search(argument["argument"])
                expected = coverage_of(quality)
                if expected < 1.0:
                    assert found is not None, r.where(argument["argument"])
                    assert float(found.group(1) or found.group(2)) == round(expected, 2), r.where(argument["argument"])
                    compared += 1
                else:
                    assert found is None, r.where(argument["argument"])
        debate_text = " ".join(text for _path, text in texts_of(r.debate, "debate"))
        assert "data coverage" not in debate_text, r.where("coverage named")
        assert "数据覆盖" not in debate_text, r.where("coverage named")
    assert compared > 0
