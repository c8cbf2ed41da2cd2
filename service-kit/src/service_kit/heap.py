"""The garbage collector in a long-running service.

Two things made collections cost about a fifth of the services' CPU in a burst of 100 researches and stall
every request in flight while they ran (benchmarks/README.md):

- what exists once start-up is done (imported modules, pydantic validators, the container and its clients,
  prompts) lives until shutdown, yet every full collection walked it again: 130 000-230 000 objects per
  service, up to 180 ms a time in the coordinator. ``gc.freeze()`` moves it into the collector's permanent
  generation, which the collector no longer walks (reference counting still frees those objects);
- with CPython's default first threshold (700 container allocations), a research (tens of thousands of
  short-lived dicts, lists and models) triggered collections in the middle of its work, which promoted its
  live objects to the older generations, which then had to be collected in turn. At 10 000, most of them
  are freed by reference counting before a collection comes; a young collection then takes a few ms.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_GENERATION_THRESHOLD = 10_000


@contextmanager
def startup_heap_frozen() -> Iterator[None]:
    """From the end of start-up (entry) to shutdown (exit): the start-up heap frozen, the young generation's
    threshold raised. Both are given back on exit, so a process that runs several apps in turn (tests)
    ends as it began."""
    previous = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()
