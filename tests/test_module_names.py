"""Modules are called by their names: no one-letter import aliases (``as B``, ``as S``).

A reader meeting ``S.resolve`` has to scroll up to learn that ``S`` is
`roads_app.sim.strategies` (and ``S`` meant `study` in another file). This reads the
syntax tree of every Python file of the project, so an alias inside a function counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("roads_app", "tests", "bench")


def one_letter_aliases(source: str, name: str) -> list[str]:
    """``name:line import ... as X`` for each one-letter alias in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.asname is not None and len(alias.asname) == 1:
                    found.append(f"{name}:{node.lineno} import {alias.name} as {alias.asname}")
    return found


def test_the_finder_finds_one_letter_aliases() -> None:
    code = (
        "import numpy as np\n"
        "from roads_app.sim import kernel as E\n"
        "def f():\n"
        "    import polars as p\n"
        "from hypothesis import strategies as st\n"
    )
    assert one_letter_aliases(code, "x.py") == [
        "x.py:2 import kernel as E",
        "x.py:4 import polars as p",
    ]


def test_no_module_is_imported_under_a_one_letter_name() -> None:
    files = [ROOT / "dev.py", *(p for d in SOURCES for p in sorted((ROOT / d).rglob("*.py")))]
    assert len(files) > 50  # the walk really found the project
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        found += one_letter_aliases(path.read_text(encoding="utf-8"), rel)
    assert found == []
