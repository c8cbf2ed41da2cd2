"""The import-linter contracts the services' structure tests run (contract_testkit.assert_import_contract_kept)."""

from __future__ import annotations

import tomllib

import pytest
from contract_testkit import PYPROJECT, assert_import_contract_kept, import_contract_ids


def test_every_import_linter_contract_has_an_id_a_test_can_run_it_by() -> None:
    contracts = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    assert contracts
    assert len(import_contract_ids()) == len(contracts)  # every contract has an id, no two the same


def test_an_unknown_contract_id_fails() -> None:
    with pytest.raises(AssertionError, match="no-such-contract"):
        assert_import_contract_kept("no-such-contract")
