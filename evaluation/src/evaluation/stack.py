"""The evaluation's stack: the services of ``service_kit.stack.launcher`` on free loopback ports, configured from
the user's environment.

The services' configuration is this process's environment, filtered: ``SNAPSHOT_DIR`` (made absolute),
``ANALYSIS_ENGINE``, ``REPORT_LANGUAGE`` and ``LLM_*`` pass through (also from a ``.env`` in the current
folder, which the services themselves do not read: they run in the log folder); the market data is the
offline snapshot; ``DATABASE_URL`` (a SQLite file per coordinator in a temporary folder), the peers' URLs and the
log settings are the launcher's; every process logs to ``<log_dir>/<service>.log`` at ``LOG_LEVEL=WARNING``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from dotenv import dotenv_values

from service_kit.stack.launcher import ISOLATING, Stack
from service_kit.stack.launcher import running_stack as launch

PASS_THROUGH = ("SNAPSHOT_DIR", "ANALYSIS_ENGINE", "REPORT_LANGUAGE")
PASS_THROUGH_PREFIX = "LLM_"
_OWN = ("DATABASE_URL", "RESEARCH_SERVICE_URL", "DEBATE_SERVICE_URL", "JUDGE_SERVICE_URL", "LOG_LEVEL", "LOG_JSON")
DROPPED = (*ISOLATING, *PASS_THROUGH, *_OWN)
"""What of this process's environment would configure the services another way than the launcher's."""


def dotenv(path: Path) -> dict[str, str]:
    """The ``KEY=VALUE`` pairs of a ``.env`` file (python-dotenv's parser); empty when there is no file."""
    if not path.is_file():
        return {}
    return {key: value for key, value in dotenv_values(path).items() if value is not None}


def service_config(environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")) -> dict[str, str]:
    """The variables passed through to the services: from ``environ`` (default ``os.environ``), over ``.env``."""
    source = {**(dotenv(env_file) if env_file is not None else {}), **(os.environ if environ is None else environ)}
    config = {k: v for k, v in source.items() if k in PASS_THROUGH or k.startswith(PASS_THROUGH_PREFIX)}
    if config.get("SNAPSHOT_DIR"):
        config["SNAPSHOT_DIR"] = str(Path(config["SNAPSHOT_DIR"]).expanduser().resolve())
    return config


def service_env(config: Mapping[str, str]) -> dict[str, str]:
    """What the services start with on top of this process's environment minus ``DROPPED``."""
    return {"LOG_LEVEL": "WARNING", **config}


@contextlib.contextmanager
def running_stack(log_dir: Path, config: Mapping[str, str], coordinators: int = 1) -> Iterator[Stack]:
    """Start the services with ``config`` (``service_config``, possibly with ``LLM_BASE_URL`` replaced by the
    evaluator's proxy) and stop them on the way out, whatever it is. ``coordinators`` > 1 starts that many
    coordinators on the same peers (the coordinator is the stack's busiest process: one is bound to one core)."""
    with (
        tempfile.TemporaryDirectory(prefix="research-eval-db-") as db_dir,
        launch(
            log_dir, common_env=service_env(config), coordinators=coordinators, data_dir=Path(db_dir), drop=DROPPED
        ) as stack,
    ):
        yield stack
