"""Shared fixtures: the offline snapshot is read once per test session (it is immutable)."""

from __future__ import annotations

import pytest

from research.infrastructure.data.snapshot_provider import OfflineSnapshotProvider


@pytest.fixture(scope="session")
def snapshot() -> OfflineSnapshotProvider:
    return OfflineSnapshotProvider()
