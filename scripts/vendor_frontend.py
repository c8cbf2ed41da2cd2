"""Vendored front-end files: refresh them from the npm registry, or check them against their manifests.

Each manifest (``VENDOR_MANIFESTS``) pins packages by name and version and lists, per package, the files taken
from its npm tarball, where they go (relative to the manifest's folder) and their sha256. ``make vendor`` runs
``npm pack name@version`` for each package (the registry's tarball, checked against the ``integrity`` the
registry states), copies the listed files and rewrites their sha256; ``--check`` (no network) only verifies that
every listed file exists and matches its sha256. To move to another version, edit ``version`` and run
``make vendor``.

    python scripts/vendor_frontend.py            # refresh from npm (needs npm on PATH)
    python scripts/vendor_frontend.py --check    # verify the files on disk
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
VENDOR_MANIFESTS = (
    REPO_ROOT / "services/coordinator/src/coordinator/presentation/console/static/vendor/manifest.json",
    REPO_ROOT / "tests-e2e/vendor/manifest.json",
)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load(manifest: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(manifest.read_text(encoding="utf-8"))
    return data


def mismatches(manifest: Path) -> list[str]:
    """What on disk differs from ``manifest``: missing files and sha256 mismatches (empty: all match)."""
    problems = []
    for package in load(manifest)["packages"]:
        for entry in package["files"]:
            path = manifest.parent / entry["to"]
            if not path.is_file():
                problems.append(f"{path}: missing")
            elif sha256_of(path) != entry["sha256"]:
                problems.append(f"{path}: sha256 {sha256_of(path)} is not the manifest's {entry['sha256']}")
    return problems


def _pack(name: str, version: str, into: Path) -> tuple[Path, str]:
    """``npm pack`` of ``name@version`` into ``into``: the tarball and the integrity the registry states."""
    out = subprocess.run(
        ["npm", "pack", f"{name}@{version}", "--json", "--pack-destination", str(into)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    info = json.loads(out)[0]
    return into / info["filename"], info["integrity"]


def refresh(manifest: Path) -> None:
    data = load(manifest)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for package in data["packages"]:
            tarball, integrity = _pack(package["name"], package["version"], work)
            digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
            if digest != integrity:
                raise SystemExit(f"{tarball.name}: sha512 {digest} is not the registry's {integrity}")
            package["integrity"] = integrity
            unpacked = work / package["name"]
            with tarfile.open(tarball) as archive:
                archive.extractall(unpacked, filter="data")
            for entry in package["files"]:
                target = manifest.parent / entry["to"]
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(unpacked / entry["from"], target)
                entry["sha256"] = sha256_of(target)
            print(f"vendored {package['name']}@{package['version']} ({len(package['files'])} files)")
    manifest.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify the files against the manifests only")
    args = parser.parse_args(argv)
    if args.check:
        problems = [p for manifest in VENDOR_MANIFESTS for p in mismatches(manifest)]
        for problem in problems:
            print(problem, file=sys.stderr)
        print("vendored files match their manifests" if not problems else f"{len(problems)} mismatches")
        return 1 if problems else 0
    for manifest in VENDOR_MANIFESTS:
        refresh(manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
