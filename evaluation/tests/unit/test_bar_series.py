"""The snapshot's bars as the report reads them: every column the scoring and the liquidity benchmark use."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from evaluation.bar_series import read_bars_csv
from shared_contracts.scoring import DailyBar


def test_a_snapshot_csv_gives_its_bars_with_their_volume(tmp_path: Path) -> None:
    (tmp_path / "600000.SH.csv").write_text(
        "date,open,high,low,close,volume,amount\n2024-01-02,10,11,9,10.5,1200,\n2024-01-03,10.5,11,10,10.8,,\n",
        encoding="utf-8",
    )
    assert read_bars_csv(tmp_path, "600000.SH") == [
        DailyBar(date(2024, 1, 2), 10.0, 11.0, 9.0, 10.5, 1200.0),
        DailyBar(date(2024, 1, 3), 10.5, 11.0, 10.0, 10.8, None),  # a blank volume is unknown, not 0
    ]
