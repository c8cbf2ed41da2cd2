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
import json
import os
import re
import shlex
import subprocess
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import httpx
import pytest
from deploy_manifests import ROOT
from e2e_support import load_script

from service_kit.stack.launcher import Stack, running_stack

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


# ------------------------------------------------------------------ the README's commands, run as written (issue 51)
#
# Every command of the README's ```bash blocks is in exactly one of these classes (a new one fails the test until it
# is classified): run against a stack started for the test (the four services as processes, service_kit.stack), the
# README's 127.0.0.1:8000 being that stack's coordinator and its placeholders (<id>, <channel id>) what the block's
# earlier commands created; run directly; proven by `make -n` on a fresh clone; or skipped, with the reason.

DRY_RUN = {
    "make test": "the whole suite takes about 20 minutes on 2 cores",
    "make run": "it serves on the fixed ports 8000-8003 until Ctrl-C; the stack of this test runs the same services "
    "(service_kit.stack) and the banner's curl is run against it",
}
"""Commands proven by `make -n` on a fresh clone (the recipe exists and expands), not run: why."""
DIRECT = ('make keys ARGS="create alice"', "export STOCK_RESEARCH_API_KEY=sr_…")
SKIPPED: dict[str, str] = {}
"""Commands that cannot run here (none in the README today: docker compose and a live key are in docs/running.md)."""
STACK_URL = "http://127.0.0.1:8000"
ANSWERS = {"/cancel": {202, 409}}
"""HTTP statuses a command may answer besides 2xx, by a path it names: cancelling an ended session or batch is 409."""


def readme_commands() -> list[tuple[int, str]]:
    """The commands of the README's ```bash blocks, each with its block's number: a command continued with ``\\`` or
    inside an open quote is one command; comment lines (answers shown) are dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands: list[tuple[int, str]] = []
    for number, block in enumerate(re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S)):
        pending = ""
        for line in block.splitlines():
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            pending += line + "\n"
            if pending.rstrip().endswith("\\") or not _closed(pending):
                continue
            commands.append((number, pending.strip()))
            pending = ""
        assert not pending, f"README block {number}: an unfinished command: {pending}"
    return commands


def _closed(command: str) -> bool:
    try:
        shlex.split(command, comments=True)
    except ValueError:
        return False
    return True


def _head(command: str) -> str:
    """The command without its trailing comment, on one line: ``make research SYMBOL=600519.SH DATE=2025-09-30``."""
    return " ".join(shlex.join(shlex.split(command, comments=True)).split()) if _closed(command) else command


def _class(command: str) -> str:
    head = _head(command)
    if head in DRY_RUN:
        return "dry run"
    if any(head == _head(d) for d in DIRECT):
        return "direct"
    if head in SKIPPED:
        return "skipped"
    if STACK_URL in command or head.startswith(("make research", "make cli", "make openapi-client")):
        return "stack"
    return "unclassified"


def test_every_readme_command_is_run_proven_or_skipped_with_a_reason() -> None:
    commands = readme_commands()
    assert len(commands) > 20
    assert [c for _, c in commands if _class(c) == "unclassified"] == []
    heads = {_head(c) for _, c in commands}
    assert set(DRY_RUN) | {_head(d) for d in DIRECT} | set(SKIPPED) <= heads  # no class names a command gone


def test_the_commands_not_run_here_expand_on_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=60)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not (Path(p) / "uv").exists())
    for command in DRY_RUN:
        shown = subprocess.run(
            [*shlex.split(command)[:1], "-n", *shlex.split(command)[1:]],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert shown.returncode == 0, shown.stderr
        assert f"{clone}/.tools/bin/pip install --quiet uv" in shown.stdout  # a bare machine gets uv first
        assert f"{clone}/.tools/bin/uv sync --all-packages --locked" in shown.stdout
    assert (
        "python scripts/run_local.py"
        in subprocess.run(["make", "-n", "run"], cwd=clone, env=env, capture_output=True, text=True, check=True).stdout
    )


def test_the_commands_that_run_directly_run() -> None:
    said = {}
    for command in DIRECT:
        done = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False, env=_env()
        )
        assert done.returncode == 0, f"{command}: {done.stderr}"
        said[command] = done.stdout + done.stderr
    assert "the key, shown only now:" in said[DIRECT[0]]
    assert re.search(r"^sr_\S+$", said[DIRECT[0]], re.M)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "STRICT")}
    return env | extra


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("readme-stack")) as running:
        yield running


def _curl_home(tmp_path: Path) -> Path:
    """A curl configuration that appends the status to every answer and bounds each command's time."""
    home = tmp_path / "curl-home"
    home.mkdir(exist_ok=True)
    (home / ".curlrc").write_text('write-out = "\\n__STATUS__ %{http_code}\\n"\nmax-time = 90\n', encoding="utf-8")
    return home


def test_the_readme_commands_that_need_the_stack_run_against_it(stack: Stack, tmp_path: Path) -> None:
    url = stack["coordinator"].url
    env = _env(COORDINATOR_URL=url, RESEARCH_URL=stack.research_url, OPENAPI_URL=f"{url}/openapi.json",
               CLIENT_DIR=str(tmp_path / "coordinator_client"), CURL_HOME=str(_curl_home(tmp_path)))  # fmt: skip
    bound: dict[int, dict[str, str]] = {}
    outputs: dict[str, str] = {}
    for block, command in readme_commands():
        if _class(command) != "stack":
            continue
        names = bound.setdefault(block, {})
        runnable = command.replace(STACK_URL, url)
        for placeholder, value in names.items():
            runnable = runnable.replace(placeholder, value)
        assert "<" not in runnable.split("#")[0], f"an unbound placeholder: {runnable}"
        done = subprocess.run(
            ["bash", "-c", runnable], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        outputs[_head(command)] = done.stdout + done.stderr
        status = re.findall(r"__STATUS__ (\d{3})", done.stdout)
        if command.startswith("curl"):
            assert status, command
            allowed = set().union(*(codes for path, codes in ANSWERS.items() if path in command.split("#")[0]))
            assert 200 <= int(status[-1]) < 300 or int(status[-1]) in allowed, f"{command}: {done.stdout[-1500:]}"
        _bind(names, done.stdout)

    research = outputs["make research SYMBOL=600519.SH"]
    assert "No --analysis-date: the research is made as of 2025-09-30, the last trading day the data has" in research
    assert "Analysis date 2025-09-30 (the last trading day the data has for 600519.SH" in research
    for command, text in outputs.items():
        if command.startswith(("make research", "make cli")):  # make exits 0 on a refusal; the CLI's last line says it
            assert "exit status" not in text, text[-2000:]
        for line in text.splitlines() if command.startswith("make") else ():
            assert "{'" not in line, line  # the CLI prints words, never a Python literal ...
            assert "None" not in line, line  # ... nor None
    first = next(c for _, c in readme_commands() if c.startswith("curl") and '"analysis_date": "2025-09-30"' in c)
    dated = json.loads(outputs[_head(first)].split("__STATUS__")[0])
    assert dated["analysis_date"] == "2025-09-30"
    assert dated["expert_results"]["technical_analyst"]["data"]["as_of"] == "2025-09-30"  # a day with data
    assert (tmp_path / "coordinator_client").is_dir()  # make openapi-client wrote the client ...
    ignored = subprocess.run(["git", "check-ignore", "-q", "coordinator_client/client.py"], cwd=ROOT, check=False)
    assert ignored.returncode == 0  # ... to a folder git ignores where the README's command writes it


def _bind(names: dict[str, str], output: str) -> None:
    """The placeholders a command's answer fills: ``<id>`` from the first ``location`` header of the block (the
    session, batch or watchlist it created), ``<channel id>`` from a created channel."""
    location = re.search(r"^location: \S*/([^/\s]+)\s*$", output, re.I | re.M)
    if location and "<id>" not in names:
        names["<id>"] = location.group(1)
    channel = re.search(r'"channel_id"\s*:\s*"([^"]+)"', output)
    if channel and "<channel id>" not in names:
        names["<channel id>"] = channel.group(1)


def test_the_api_refuses_a_research_without_experts_as_the_readme_says(stack: Stack) -> None:
    answer = httpx.post(f"{stack['coordinator'].url}/api/v1/coordinator/research", json={"symbol": "600519.SH"})
    assert answer.status_code == 400
    assert answer.json()["code"] == "experts_empty"


def test_the_make_run_banners_curl_researches_the_last_trading_day(stack: Stack, tmp_path: Path) -> None:
    run_local = load_script(ROOT / "scripts" / "run_local.py", "readme_run_local")
    coordinator = run_local.Service("coordinator", "127.0.0.1", stack["coordinator"].port)
    day = run_local.example_day([coordinator])
    assert day == ("2025-09-30", "the last trading day the data has for 600519.SH")
    text = run_local.banner([coordinator], {}, analysis=day)
    curl = text[text.index("  curl ") : text.index("  make research")]
    env = _env(CURL_HOME=str(_curl_home(tmp_path)))
    done = subprocess.run(["bash", "-c", curl], env=env, capture_output=True, text=True, timeout=120, check=True)
    body, _, status = done.stdout.rpartition("__STATUS__")
    assert status.strip() == "200", done.stdout[-1500:]
    assert json.loads(body)["analysis_date"] == "2025-09-30"
