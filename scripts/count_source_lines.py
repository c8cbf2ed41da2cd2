"""Source lines of the workspace, tests left out: raw, non-blank, and code lines (no blank, comment or
docstring line), per part and in total. Parts: the four services' ``src/`` (migrations left out), every
shared package's ``src/`` (the ones that exist in the tree counted), the evaluation, the benchmarks and the
scripts.

Usage: ``python scripts/count_source_lines.py [REPO_ROOT]`` (default: the current folder).
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

PARTS = {
    "coordinator": ("services/coordinator/src",),
    "research": ("services/research/src",),
    "debate": ("services/debate/src",),
    "judge": ("services/judge/src",),
    "shared": ("shared-contracts/src", "service-kit/src", "verdict-statistics/src"),
    "evaluation": ("evaluation/src",),
    "benchmarks": ("benchmarks", "services/coordinator/benchmarks", "services/research/benchmarks"),
    "scripts": ("scripts",),
}
NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
Docstring = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef


def docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, Docstring) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def code_lines(text: str) -> int:
    docstrings = docstring_lines(ast.parse(text))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in NOT_CODE:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in docstrings)
    return len(lines)


def count(root: Path) -> dict[str, tuple[int, int, int, int]]:
    """{part: (raw, non-blank, code, files)}."""
    totals: dict[str, tuple[int, int, int, int]] = {}
    for part, folders in PARTS.items():
        files = [
            p
            for folder in folders
            if (root / folder).is_dir()
            for p in sorted((root / folder).rglob("*.py"))
            if "migrations" not in p.parts
        ]
        texts = [p.read_text(encoding="utf-8") for p in files]
        totals[part] = (
            sum(t.count("\n") for t in texts),
            sum(1 for t in texts for line in t.splitlines() if line.strip()),
            sum(code_lines(t) for t in texts),
            len(files),
        )
    return totals


def main() -> None:
    totals = count(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
    rows = [*totals.items(), ("WORKSPACE", tuple(sum(column) for column in zip(*totals.values(), strict=True)))]
    for name, (raw, non_blank, code, files) in rows:
        print(f"{name:12} raw={raw:6} nonblank={non_blank:6} code={code:6} files={files}")


if __name__ == "__main__":
    main()
