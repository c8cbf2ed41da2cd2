"""The one percentile of the workspace (benchmarks' latencies, the services' micro-benchmarks)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile (``q`` in [0, 1]) by linear interpolation between closest ranks (numpy's default,
    ``statistics.quantiles(method="inclusive")``); NaN for no samples."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    pos = q * (len(ordered) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
