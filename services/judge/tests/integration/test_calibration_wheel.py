"""Issue 52: the confidence map ships inside the judge's wheel and loads from the installed package (not from the
source tree): the wheel is built, unpacked alone on ``PYTHONPATH``, and asked for a confidence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from deploy_manifests import uv_binary

ROOT = Path(__file__).resolve().parents[4]
DATA = "judge/infrastructure/calibration/verdict_confidence.json"


def test_the_wheel_carries_the_map_and_the_installed_package_reads_it(tmp_path: Path) -> None:
    uv = uv_binary()
    if uv is None:
        pytest.skip("no uv to build the wheel with (make test provides it: CHECKOV_UV)")
    dist = tmp_path / "dist"
    build = [uv, "build", "--package", "judge", "--wheel", "--out-dir", str(dist)]
    subprocess.run(build, cwd=ROOT, check=True, capture_output=True, timeout=300)
    (wheel,) = dist.glob("judge-*.whl")
    installed = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert DATA in archive.namelist()
        archive.extractall(installed)
    script = (
        "import judge, json\n"
        "from judge.infrastructure.calibration import calibrated_confidence, confidence_maps\n"
        "print(json.dumps([judge.__file__, calibrated_confidence('BUY', 0.95, None), sorted(confidence_maps())]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True, text=True)
    source, confidence, actions = json.loads(out.stdout)
    assert Path(source).is_relative_to(installed)
    assert 0.0 < confidence < 1.0
    assert actions == ["BUY", "HOLD", "SELL"]
