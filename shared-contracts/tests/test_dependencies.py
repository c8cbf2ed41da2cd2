"""The published language installs with pydantic alone (a client that only wants the models gets no framework)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_contracts_package_depends_on_pydantic_only() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    assert [d.split(">")[0].split("=")[0].split("[")[0] for d in dependencies] == ["pydantic"]
