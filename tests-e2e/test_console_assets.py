"""The console's files: nothing in a page or asset points at another origin (no CDN, no external URL), the
vendored files are the ones their manifests pin (sha256), every vendored file is in a manifest, and no page has
an inline script or style (the Content-Security-Policy has no ``unsafe-inline``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from e2e_support import load_script

REPO_ROOT = Path(__file__).resolve().parent.parent
vendor_frontend = load_script(REPO_ROOT / "scripts" / "vendor_frontend.py")
VENDOR_MANIFESTS, load, mismatches = vendor_frontend.VENDOR_MANIFESTS, vendor_frontend.load, vendor_frontend.mismatches

STATIC = REPO_ROOT / "services/coordinator/src/coordinator/presentation/console/static"
OWN_FILES = sorted(p for p in STATIC.rglob("*") if p.suffix in {".html", ".js", ".css"} and "vendor" not in p.parts)
VENDORED = sorted(p for p in (STATIC / "vendor").rglob("*") if p.is_file() and p.name != "manifest.json")

ANY_URL = re.compile(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", re.IGNORECASE)
# What would make a browser load something: an import, a script/link/img source, a CSS url(), a fetch.
LOADS_EXTERNAL = re.compile(
    r"""(?:\bimport\s*\(?\s*|\bfrom\s+|\bsrc\s*=\s*|\bhref\s*=\s*|url\(\s*|fetch\(\s*|importScripts\(\s*)["']?(?:https?:)?//""",
    re.IGNORECASE,
)
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


def test_the_console_has_files_to_check() -> None:
    assert {p.name for p in OWN_FILES} >= {"index.html", "console.css", "app.js", "chart.js", "live.js"}
    assert VENDORED


@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: str(p.relative_to(STATIC)))
def test_no_page_or_script_of_the_console_names_an_external_url(path: Path) -> None:
    text = path.read_text(encoding="utf-8").replace(SVG_NAMESPACE, "")
    assert ANY_URL.findall(text) == []


@pytest.mark.parametrize("path", VENDORED, ids=lambda p: str(p.relative_to(STATIC)))
def test_no_vendored_file_loads_anything_from_another_origin(path: Path) -> None:
    assert LOADS_EXTERNAL.findall(path.read_text(encoding="utf-8", errors="replace")) == []


def test_the_vendored_files_match_their_manifests_sha256() -> None:
    assert [problem for manifest in VENDOR_MANIFESTS for problem in mismatches(manifest)] == []


def test_every_vendored_file_is_pinned_with_its_version_licence_and_integrity() -> None:
    for manifest in VENDOR_MANIFESTS:
        listed = set()
        for package in load(manifest)["packages"]:
            assert re.fullmatch(r"\d+\.\d+\.\d+", package["version"])
            assert package["license"]
            assert package["integrity"].startswith("sha512-")
            assert any(Path(f["to"]).name.startswith("LICENSE") for f in package["files"])
            listed |= {(manifest.parent / f["to"]).resolve() for f in package["files"]}
        on_disk = {p.resolve() for p in manifest.parent.rglob("*") if p.is_file() and p != manifest}
        assert on_disk == listed


def test_a_tampered_vendored_file_is_caught(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    (tmp_path / "lib.js").write_text("export const a = 1;\n", encoding="utf-8")
    entry = {"from": "a", "to": "lib.js", "sha256": "0" * 64}
    manifest.write_text(json.dumps({"packages": [{"name": "x", "version": "1.0.0", "files": [entry]}]}), "utf-8")
    assert len(mismatches(manifest)) == 1


def test_no_page_has_an_inline_script_style_or_handler() -> None:
    for page in STATIC.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
        assert "<style" not in html
        assert re.findall(r"\sstyle\s*=|\son[a-z]+\s*=", html) == []


def test_the_console_never_writes_markup_from_strings() -> None:
    """Every text reaches the page as a text node (dom.js): no innerHTML, outerHTML, insertAdjacentHTML,
    document.write or DOMParser in the console's own scripts."""
    sinks = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment")
    for path in OWN_FILES:
        if path.suffix == ".js":
            assert sinks.findall(path.read_text(encoding="utf-8")) == [], path.name
