"""Checkov (offline) over what is deployed: the rendered Kubernetes overlay, both Dockerfiles and the compose
file (Checkov has no Compose policies: its secrets scan runs over the file; the compose hardening is asserted by
test_deploy_compose.py). Every check that still fails is listed in docs/security.md ("Checkov: what still
fails") with the reason it stays; a new failure, or a listed one that now passes, fails this test.

Checkov runs in a tool environment of its own (``uv tool run --from checkov==<version>``), not in the workspace:
its dependencies would pin half of the lock. ``make test`` passes the uv it uses (``CHECKOV_UV``)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from deploy_manifests import K8S_OVERLAY, ROOT, kubectl, uv_binary

CHECKOV_REQUIREMENT = "checkov==3.3.30"
SECURITY_DOC = ROOT / "docs" / "security.md"
SCANNED = ("deploy/Dockerfile", "deploy/nginx/Dockerfile", "docker-compose.yml")
"""Relative to the repository's root (Checkov names a Dockerfile's resources by the path it was given)."""
_ROW = re.compile(r"^\| `(?P<check>CKV\w+)`[^|]* \| (?P<resources>[^|]+) \|", re.M)


def documented_failures() -> set[tuple[str, str]]:
    """(check, resource) pairs of the table in docs/security.md."""
    text = SECURITY_DOC.read_text(encoding="utf-8")
    section = text[text.index("### Checkov: what still fails") :]
    return {
        (row["check"], resource.strip().strip("`"))
        for row in _ROW.finditer(section)
        for resource in row["resources"].split(",")
    }


@pytest.fixture(scope="module")
def failures(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str]]:
    uv = uv_binary()
    if uv is None:
        pytest.skip("no uv to run Checkov with (make test provides it: CHECKOV_UV)")
    rendered = tmp_path_factory.mktemp("checkov") / "k8s-overlay.yaml"
    out = subprocess.run([str(kubectl()), "kustomize", str(K8S_OVERLAY)], capture_output=True, text=True, check=True)
    rendered.write_text(out.stdout, encoding="utf-8")
    files = [arg for path in (rendered, *SCANNED) for arg in ("-f", str(path))]
    command = [uv, "tool", "run", "--from", CHECKOV_REQUIREMENT, "checkov", *files]
    command += ["--framework", "kubernetes", "dockerfile", "secrets", "--skip-download", "--quiet", "-o", "json"]
    env = {**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    if not result.stdout.strip():
        pytest.fail(f"Checkov gave no report (exit {result.returncode}):\n{result.stderr[-2000:]}")
    reports = json.loads(result.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    return {(c["check_id"], c["resource"]) for r in reports for c in r["results"]["failed_checks"]}


def test_every_check_that_still_fails_is_documented_with_its_reason(failures: set[tuple[str, str]]) -> None:
    documented = documented_failures()
    assert failures - documented == set(), "failing and not in docs/security.md"
    assert documented - failures == set(), "listed in docs/security.md but passing now: remove it"


def test_the_documented_table_is_read() -> None:
    assert ("CKV_K8S_43", "Deployment.stock-research.coordinator") in documented_failures()
