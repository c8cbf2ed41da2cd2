"""Facts → JSON-ready dicts (dates as ISO strings, tuples as lists, non-finite floats as None)."""

from __future__ import annotations

import dataclasses
import math
from datetime import date
from typing import Any


def to_jsonable(value: Any, *, exclude: frozenset[str] = frozenset()) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in exclude}
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
