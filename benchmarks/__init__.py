"""Benchmarks of the four services run as real processes on loopback (issue 8). See README.md.

The end-to-end harness (``tests-e2e/e2e_processes.py``, ``fake_llm_server.py``, ``llm_replies.py``) is
reused, not copied: its folder is put on ``sys.path`` here, before any submodule imports it.
"""

import sys
from pathlib import Path

_E2E_DIR = str(Path(__file__).resolve().parent.parent / "tests-e2e")
if _E2E_DIR not in sys.path:
    sys.path.insert(0, _E2E_DIR)
