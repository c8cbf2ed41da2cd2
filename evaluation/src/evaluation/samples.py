"""The three samples every figure is computed on: the whole period, in-sample (analysis date before the
split date) and out-of-sample (on or after it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date
from typing import Literal, TypeVar

Sample = Literal["whole", "in_sample", "out_of_sample"]
SAMPLES: tuple[Sample, ...] = ("whole", "in_sample", "out_of_sample")
SAMPLE_LABELS: dict[str, str] = {"whole": "whole", "in_sample": "in-sample", "out_of_sample": "out-of-sample"}

T = TypeVar("T")


def sample_of(day: date, split_date: date) -> Sample:
    """``in_sample`` before ``split_date``, ``out_of_sample`` from it on."""
    return "in_sample" if day < split_date else "out_of_sample"


def by_sample(items: Iterable[T], day: Callable[[T], date], split_date: date) -> dict[Sample, list[T]]:
    """``items`` (order kept) for each sample, split on ``day(item)``."""
    listed = list(items)
    return {
        "whole": listed,
        "in_sample": [item for item in listed if sample_of(day(item), split_date) == "in_sample"],
        "out_of_sample": [item for item in listed if sample_of(day(item), split_date) == "out_of_sample"],
    }
