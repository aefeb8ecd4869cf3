"""No function of the project takes more than 8 positional parameters (the brief's rule):
a longer list is a record waiting to be named (the kernels take their plan, deal and
outputs as named tuples, `roads_app.sim.session.Plan`; a board's look is
`roads_app.render.board.BoardLook`, a backtest's shoes and options are records too).

Every Python file of the project counts, the package's and its tests', benchmarks' and
tools' alike, and a lambda is a function too. A ``*args`` is not counted: it is a list
the caller hands on (a command's words), not parameters each with its own meaning.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("roads_app", "tests", "bench", "tools")
MOST = 8

Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def positional(fn: Function, in_class: bool) -> int:
    """Parameters a caller may pass by position (a method's self or cls not counted)."""
    names = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if in_class and names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names)


def too_long(source: str, name: str) -> list[str]:
    """``name:line function(n)`` for each function with more than `MOST`."""
    found = []

    def walk(node: ast.AST, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, Function):
                n = positional(child, in_class and not isinstance(child, ast.Lambda))
                if n > MOST:
                    found.append(f"{name}:{child.lineno} {getattr(child, 'name', 'lambda')}({n})")
                walk(child, False)
            else:  # a class's body, an `if` or `try` in it included, holds its methods
                walk(child, in_class or isinstance(child, ast.ClassDef))

    walk(ast.parse(source, name), False)
    return found


def test_the_finder_counts_positional_parameters_only() -> None:
    code = (
        "def a(p1, p2, p3, p4, p5, p6, p7, p8, p9): ...\n"
        "def b(p1, p2, p3, p4, p5, p6, p7, p8, *, k1, k2): ...\n"
        "class C:\n"
        "    def m(self, p1, p2, p3, p4, p5, p6, p7, p8): ...\n"
        "    def n(self, p1, p2, p3, p4, p5, p6, p7, p8, p9): ...\n"
        "    if True:\n"
        "        def o(self, p1, p2, p3, p4, p5, p6, p7, p8): ...\n"
        "def c(p1, p2, p3, p4, p5, p6, p7, p8, /, p9): ...\n"
        "f = lambda p1, p2, p3, p4, p5, p6, p7, p8, p9: 0\n"
        "g = lambda self, p1, p2, p3, p4, p5, p6, p7, p8: 0\n"
        "def d(p1, *args, k1): ...\n"
    )
    assert too_long(code, "x.py") == [
        "x.py:1 a(9)",
        "x.py:5 n(9)",
        "x.py:8 c(9)",
        "x.py:9 lambda(9)",
        "x.py:10 lambda(9)",
    ]


def test_no_function_of_the_project_takes_more_than_eight_positional_parameters() -> None:
    files = [ROOT / "dev.py", *(p for d in SOURCES for p in sorted((ROOT / d).rglob("*.py")))]
    assert len(files) > 200  # the package, its tests, benchmarks and tools
    found = [hit for f in files for hit in too_long(f.read_text("utf-8"), str(f.relative_to(ROOT)))]
    assert not found, found
