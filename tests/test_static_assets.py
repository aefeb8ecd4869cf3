"""The package's own scripts parse: each one through ``node --check``, as the page gets it.

Why: the JavaScript lives in ``roads_app/ui/static`` (no longer Python strings), and a
syntax error there would only show in a browser, as a board that never draws. A
component's script is an ES module; the page head's is a classic inline script.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from roads_app.places import STATIC_DIR
from roads_app.ui import board_host, follow, page_head, plot_host, theme, wall_tile

NODE = shutil.which("node")
MODULES = {
    "board_host": board_host._JS,
    "show_held": board_host._SHOW_HELD_JS,
    "plot_host": plot_host._JS,
    "plot_next": plot_host._NEXT_JS,
    "follow": follow._JS,
    "wall_tile": wall_tile._JS,
    "theme": theme._JS,
}


def _check(source: str, module: bool) -> subprocess.CompletedProcess[str]:
    if NODE is None:
        pytest.fail("node is missing: install it (apt-get install nodejs)")
    kind = "module" if module else "commonjs"
    return subprocess.run(
        [NODE, "--check", f"--input-type={kind}"],
        input=source,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_component_script_parses(name: str):
    done = _check(MODULES[name], module=True)
    assert done.returncode == 0, done.stderr


def test_the_page_heads_script_parses():
    done = _check(page_head.head_script(), module=False)
    assert done.returncode == 0, done.stderr


def test_a_syntax_error_is_caught():
    """The check can fail: a broken script is refused."""
    assert _check("export default function () { let x = ; }", module=True).returncode != 0


def test_every_static_script_is_used():
    """No script in the folder is left out of what the page gets (and so unchecked)."""
    used = "".join(MODULES.values()) + page_head.head_script()
    for path in STATIC_DIR.glob("*.js"):
        if path.name != page_head.PLOTLY_BUNDLE.name:
            assert page_head.static_text(path.name) in used, path.name


def test_follow_asks_once_per_news_and_again_only_when_lost(tmp_path):
    """`follow.js`'s rerun requests, step by step (``tests/js/follow_asks.mjs``): a news is
    asked for once even when the component is drawn twice (a second rerun at once
    superseded the first and lost its good-road toast), an answered request is not asked
    again when the shoe moved on meanwhile (it was, every 3 s, for ever), and a request
    the app never got is asked again."""
    if NODE is None:
        pytest.fail("node is missing: install it (apt-get install nodejs)")
    script = tmp_path / "follow.js"
    script.write_text(follow._JS, encoding="utf-8")
    harness = Path(__file__).with_name("js") / "follow_asks.mjs"
    done = subprocess.run(
        [NODE, str(harness), str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


CSS_RULE = re.compile(r"[\w\]\)*-]\s*\{\s*(?!--)[a-z-]+\s*:")
"""A selector then a declaration of a style property (``.x {display: none``): a custom
property (``{--rd-cols: 4``) is a number the page sets, not style."""


def inline_css(source: str) -> list[int]:
    """The lines of ``source`` (Python) whose string constants hold a style rule.

    >>> inline_css('A = "<style>.a{display:none}</style>"\\nB = f"{{--rd-cols: {n}}}"')
    [1]
    """
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CSS_RULE.search(node.value)
    ]


def test_style_lives_in_static_files_not_in_python_strings():
    """CSS is in ``roads_app/ui/static`` (one file per sheet, read by the pages), never in
    the package's Python: a page's own numbers reach a sheet as custom properties."""
    package = STATIC_DIR.parents[1]
    found = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if (lines := inline_css(path.read_text(encoding="utf-8")))
    }
    assert found == {}
