"""The code's layout is ruff's, and ruff's lint rules hold: a hand-aligned line or a
finding fails here, not in a reviewer's eye."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("args", [["format", "--check"], ["check"]], ids=["format", "lint"])
def test_ruff_is_content(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *args, "."], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]


def test_no_line_keeps_its_own_layout() -> None:
    """Formatter-skip markers stood on 564 lines, hand alignment fighting the formatter."""
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for folder in ("roads_app", "tests", "bench", "tools")
        for p in sorted((ROOT / folder).rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "fmt: " + "skip" in line or "fmt: " + "off" in line
    ]
    assert not found, found[:20]
