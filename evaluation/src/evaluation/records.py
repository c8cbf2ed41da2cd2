"""What the runner collects and the report reads: one record per research on the date grid, per configuration.

``configuration`` is ``policy`` (the experts asked for, the product's verdict) or ``technical_only`` (the
technical analyst alone through the same debate and judge: a baseline). A research the stack refused as a
client mistake (404 ``symbol_not_found``, 422 ``insufficient_history``) is ``refused``; one that ended
without a verdict (500, a failed debate or judge, a timeout) is ``failed``; ``ok`` has a verdict.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from verdict_statistics.scorecard import signed_score

Configuration = Literal["policy", "technical_only"]
RecordStatus = Literal["ok", "refused", "failed"]


@dataclass(frozen=True)
class ResearchRecord:
    configuration: Configuration
    symbol: str
    analysis_date: date
    """The grid date sent as the research's ``analysis_date``; the entry is the last close on or before it."""
    status: RecordStatus
    reason: str = ""
    """Why a research was refused or failed (the problem's code and detail)."""
    as_of: date | None = None
    """The technical analyst's ``as_of`` when it succeeded: the day of the verdict's reference close."""
    action: str | None = None
    confidence: float | None = None
    position_percent: float | None = None
    stop_percent: float | None = None
    """The verdict's ``stop_loss.percent_from_entry`` (signed)."""
    take_profit_percent: float | None = None
    time_horizon: str | None = None
    direction: str | None = None
    """The debate's direction."""
    debate_confidence: float | None = None
    """The debate's confidence (what the judge's action threshold applies to)."""
    overall_status: str | None = None
    failed_experts: tuple[str, ...] = field(default=())
    engine: str | None = None
    """``rules`` or the LLM model of the verdict."""
    atr: float | None = None
    """The technical analyst's ATR(14) on ``as_of``, for stop distances in ATR multiples."""
    session_id: str | None = None
    score: float | None = None
    """The verdict's ``score`` in [-1, 1] (higher = more bullish), when the policy gives one."""
    universe_rank: float | None = None
    """The verdict's ``universe_rank``: its percentile among the universe on that date, when computed."""
    market_exposure: float | None = None
    """The verdict's ``market_exposure``: the share of the position the market view keeps, when it was heard."""

    @property
    def entry_day(self) -> date:
        """The signal day: the trade enters at the next open after the last close on or before it."""
        return self.as_of or self.analysis_date

    @property
    def signed_score(self) -> float | None:
        """What the verdict is ranked by: its ``score``, else the debate's signed confidence (``signed_score``)."""
        if self.status != "ok":
            return None
        return signed_score(self.score, self.direction, self.debate_confidence)


def read_records(path: Path) -> list[ResearchRecord]:
    """The records of a run's records.jsonl (one JSON object a line, as the runner writes them; gzip-compressed
    when the name ends in ``.gz``); fields a record does not have (an older run's, a trimmed copy's) are left at
    their defaults."""
    names = {f.name for f in dataclasses.fields(ResearchRecord)}
    records = []
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
    for line in text.splitlines():
        if not line.strip():
            continue
        row: dict[str, Any] = {k: v for k, v in json.loads(line).items() if k in names}
        row["analysis_date"] = date.fromisoformat(row["analysis_date"])
        row["as_of"] = date.fromisoformat(row["as_of"]) if row.get("as_of") else None
        row["failed_experts"] = tuple(row.get("failed_experts") or ())
        records.append(ResearchRecord(**row))
    return records
