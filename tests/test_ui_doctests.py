"""The UI modules' doctests, which the suite's ``--doctest-modules`` leaves out (it skips
``roads_app/ui``: the app script runs the dashboard on import). Every other UI module
imports without side effects, so its examples are run here, each module once."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import roads_app.ui

UI = Path(roads_app.ui.__file__).parent
SCRIPTS = {"app"}  # run the dashboard on import
WITH_EXAMPLES = sorted(
    p.stem
    for p in UI.glob("*.py")
    if p.stem not in SCRIPTS and ">>>" in p.read_text(encoding="utf-8")
)


def test_the_ui_modules_with_examples_are_found() -> None:
    assert {"lobby_page", "plot_host", "wall_tile", "words"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_examples_hold(name: str) -> None:
    module = importlib.import_module(f"roads_app.ui.{name}")
    got = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert got.attempted and not got.failed, got
