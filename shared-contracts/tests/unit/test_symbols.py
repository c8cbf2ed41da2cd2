from __future__ import annotations

import pytest

from shared_contracts.experts import is_iso_date
from shared_contracts.symbols import SymbolSyntaxError, canonical_symbol, normalize_symbol, parse_symbol


@pytest.mark.parametrize(
    ("raw", "parsed", "canonical"),
    [
        ("600519.SH", ("600519", "SH"), "600519.SH"),
        (" 000001.sz ", ("000001", "SZ"), "000001.SZ"),
        ("430047.BJ", ("430047", "BJ"), "430047.BJ"),
        ("700.HK", ("0700", "HK"), "0700.HK"),
        ("09988.hk", ("09988", "HK"), "09988.HK"),
        ("aapl", ("AAPL", "US"), "AAPL"),
        ("BRK.B", ("BRK.B", "US"), "BRK.B"),
    ],
)
def test_accepted_spellings(raw: str, parsed: tuple[str, str], canonical: str) -> None:
    assert parse_symbol(raw) == parsed
    assert normalize_symbol(raw) == canonical


@pytest.mark.parametrize(
    "raw",
    ["", None, "600519", "600519.SS", "1234567.SH", "$$$", "TOOLONGTICKER", "0700.HKG", "６００５１９.SH", "٠٧٠٠.HK"],
)
def test_rejected(raw: str | None) -> None:
    with pytest.raises(SymbolSyntaxError, match=r"600519\.SH"):
        parse_symbol(raw)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        (" 600519.sh ", "600519.SH"),
        ("aapl", "AAPL"),
        ("700.hk", "0700.HK"),
        (" ^GSPC ", "^GSPC"),
        ("sh600519", "sh600519"),
    ],
)
def test_canonical_symbol_spells_the_grammar_canonically_and_keeps_the_rest(raw: str, canonical: str) -> None:
    assert canonical_symbol(raw) == canonical


def test_an_iso_date_is_written_in_ascii_digits() -> None:
    assert is_iso_date("2025-09-30")
    assert not is_iso_date("２０２５-０９-３０")


def test_an_invalid_symbol_is_echoed_at_most_200_characters() -> None:
    for raw in ("A" * 900_000, "A " * 450_000, "é" * 5_000):
        with pytest.raises(SymbolSyntaxError) as refused:
            parse_symbol(raw)
        assert len(str(refused.value)) < 400
        assert f"({len(raw):,} characters)" in str(refused.value)
