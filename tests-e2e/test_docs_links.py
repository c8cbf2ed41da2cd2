"""The Markdown files of the repository point only at what is in it, and the README's data ranges are the
shipped snapshot's.

What counts as a reference (the rule, so that a new document is held to it):
- a Markdown link or image ``[text](target)`` that is not a URL (``http(s)://``, ``mailto:``): its path, relative
  to the file (or to the repository root when it starts with ``/``), exists; its ``#anchor``, when it points into a
  Markdown file, is one of that file's headings (GitHub's slugs);
- a backticked path that starts with one of the repository's top-level directories (``services/…``,
  ``docs/…``, ``tests-e2e/…``; a pytest node id's ``::test`` and a ``:line`` suffix are dropped; placeholders such as
  ``<svc>``, ``*`` or ``…`` make it a pattern, not a path) exists from the root or from the file's folder;
- a Markdown file named anywhere in the text (``running.md``, ``docs/decisions.md``, a path inside a package such as
  ``infrastructure/agents/judge/prompts/system.md``) is one the repository has; outputs of runs (``eval-results/…``, a
  directory .gitignore names) are not checked.
"""

from __future__ import annotations

import csv
import re
import subprocess
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from deploy_manifests import ROOT

SNAPSHOT = ROOT / "services" / "research" / "src" / "research" / "infrastructure" / "data" / "snapshot"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
BACKTICKED = re.compile(r"`([^`\s]+)`")
MARKDOWN_NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.md)\b")
PATTERN_CHARS = set("<>*{}[]$…|")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


@cache
def tracked() -> frozenset[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return frozenset(listed.splitlines())


def markdown_files() -> list[str]:
    return sorted(path for path in tracked() if path.endswith(".md") and "/vendor/" not in path)


def _exists(path: Path) -> bool:
    try:
        relative = path.resolve().relative_to(ROOT)
    except ValueError:
        return False  # outside the repository
    name = relative.as_posix()
    return name in tracked() or any(t.startswith(f"{name}/") for t in tracked()) or path.exists()


def _slug(heading: str) -> str:
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: Counter[str] = Counter()
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        slug = _slug(heading)
        found.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return found


@cache
def ignored_dirs() -> frozenset[str]:
    """The directories .gitignore names (``eval-results/``): where runs write their outputs."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip("/") for line in lines if line.endswith("/") and "*" not in line)


def _top_dirs() -> set[str]:
    return {path.split("/", 1)[0] for path in tracked() if "/" in path}


def broken_references(name: str, text: str | None = None) -> list[str]:
    """Every reference of the Markdown file ``name`` (repository-relative; ``text``: its content, else read) to
    something the repository lacks."""
    source = ROOT / name
    text = source.read_text(encoding="utf-8") if text is None else text
    problems = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # a URL
        path, _, anchor = target.partition("#")
        resolved = source if not path else (ROOT / path.lstrip("/") if path.startswith("/") else source.parent / path)
        if not _exists(resolved):
            problems.append(f"link {target}: no {path}")
        elif anchor and resolved.suffix == ".md" and anchor.lower() not in anchors(resolved):
            problems.append(f"link {target}: {resolved.resolve().relative_to(ROOT)} has no heading #{anchor}")
    tops = _top_dirs()
    for token in BACKTICKED.findall(text):
        # a pytest node id (``::test``), a line (``:12-14``), a Checkov resource (``deploy/Dockerfile.FROM``)
        path = re.sub(r"(::\S*|:\d+(-\d+)?|\.[A-Z]{2,})$", "", token).rstrip(".,;:")
        if path.split("/", 1)[0] not in tops or "/" not in path or PATTERN_CHARS & set(path) or "..." in path:
            continue
        if not (_exists(ROOT / path) or _exists(source.parent / path)):
            problems.append(f"`{token}`: no {path}")
    names = {Path(t).name for t in tracked() if t.endswith(".md")}
    for mention in MARKDOWN_NAME.findall(FENCE.sub("", text)):
        if "/" not in mention:
            if mention not in names:
                problems.append(f"{mention}: no Markdown file of that name in the repository")
        elif mention.split("/", 1)[0] in tops:
            if not (_exists(ROOT / mention) or _exists(source.parent / mention)):
                problems.append(f"{mention}: not in the repository")
        elif mention.split("/", 1)[0] in ignored_dirs():
            continue  # a run's output (eval-results/, bench-results/): git-ignored, never committed
        elif not any(t.endswith(f"/{mention}") for t in tracked()) and not _exists(source.parent / mention):
            problems.append(f"{mention}: not in the repository")  # a path inside a package, or outside it
    return problems


@pytest.mark.parametrize("name", markdown_files())
def test_every_repository_path_a_markdown_file_names_exists(name: str) -> None:
    assert broken_references(name) == []


def test_the_rule_finds_what_is_missing() -> None:
    """The checker itself: a document with one broken reference of each kind, and some that are fine."""
    doc = ROOT / "docs" / "running.md"
    text = doc.read_text(encoding="utf-8")
    assert "[Configuration](../README.md#configuration)" in text  # a link with an anchor that is there
    assert "configuration" in anchors(ROOT / "README.md")
    probe = (
        "See [the design](ARCHITECTURE.md), [data](../README.md#no-such-heading), [ok](../README.md#data),\n"
        "`services/coordinator/src/coordinator/nowhere.py`, `services/<svc>/src`, `Makefile`,\n"
        "`tests-e2e/test_docs_links.py::test_the_rule_finds_what_is_missing`, and STYLE.md.\n"
    )
    found = broken_references("docs/probe.md", probe)
    assert found == [
        "link ARCHITECTURE.md: no ARCHITECTURE.md",
        "link ../README.md#no-such-heading: README.md has no heading #no-such-heading",
        "`services/coordinator/src/coordinator/nowhere.py`: no services/coordinator/src/coordinator/nowhere.py",
        "ARCHITECTURE.md: no Markdown file of that name in the repository",
        "STYLE.md: no Markdown file of that name in the repository",
    ]


def test_the_readme_states_the_snapshots_ranges_and_markets() -> None:
    """The figures of the README's Data section, computed from the shipped snapshot's universe.csv."""
    rows = list(csv.DictReader((SNAPSHOT / "universe.csv").open(encoding="utf-8")))
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    shares = [r for r in rows if r["market"] == "CN"]
    us = sorted(r["symbol"] for r in rows if r["market"] == "US")
    common = Counter((r["first_bar"], r["last_bar"]) for r in shares).most_common(1)[0]
    (first, last), count = common
    assert f"| A-shares (`.SH`, `.SZ`) | {len(shares)} | {first} → {last} for {count} of them;" in readme
    for row in shares:
        if (row["first_bar"], row["last_bar"]) == common[0]:
            continue
        if row["last_bar"] != last:
            assert f"{row['symbol']} {row['first_bar']} → {row['last_bar']}" in readme
        else:
            listed = rf"{re.escape(row['symbol'])}(?:, [\w.]+| and [\w.]+)* from (\d{{4}}-\d{{2}}-\d{{2}})"
            stated = re.search(listed, readme)
            assert stated is not None, row["symbol"]
            assert stated.group(1) == row["first_bar"], row["symbol"]
    us_spans = {(r["first_bar"], r["last_bar"]) for r in rows if r["market"] == "US"}
    assert len(us_spans) == 1
    us_first, us_last = us_spans.pop()
    assert f"| US | {len(us)}: {', '.join(us)} | {us_first} → {us_last} |" in readme
    assert not any(r["symbol"].endswith((".HK", ".BJ")) for r in rows)
    assert "| Hong Kong (`.HK`), Beijing (`.BJ`), any other | none |" in readme
    assert f"The newest bar is {max(r['last_bar'] for r in rows)}" in readme
