"""Fixtures shared by the coordinator's integration tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from coordinator_persistence_fakes import local_postgres_database, sqlite_url


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgres", id="postgres-local", marks=pytest.mark.postgres),
    ]
)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, then the local PostgreSQL (skipped clearly when it does not answer)."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
    else:
        with local_postgres_database() as url:
            yield url


@pytest.fixture
def sqlite_only_url(tmp_path: Path) -> str:
    """An empty SQLite database, for behaviour that does not depend on the backend."""
    return sqlite_url(tmp_path)
