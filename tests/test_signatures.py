"""No function of the package takes more than 8 positional parameters (the brief's rule):
a longer list is a record waiting to be named (the kernels take their plan, deal and
outputs as named tuples, `roads_app.sim.session.Plan`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "roads_app"
MOST = 8


def positional(fn: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> int:
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
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                n = positional(child, in_class)
                if n > MOST:
                    found.append(f"{name}:{child.lineno} {child.name}({n})")
                walk(child, False)
            else:
                walk(child, isinstance(child, ast.ClassDef))

    walk(ast.parse(source, name), False)
    return found


def test_the_finder_counts_positional_parameters_only() -> None:
    code = (
        "def a(p1, p2, p3, p4, p5, p6, p7, p8, p9): ...\n"
        "def b(p1, p2, p3, p4, p5, p6, p7, p8, *, k1, k2): ...\n"
        "class C:\n"
        "    def m(self, p1, p2, p3, p4, p5, p6, p7, p8): ...\n"
        "    def n(self, p1, p2, p3, p4, p5, p6, p7, p8, p9): ...\n"
        "def c(p1, p2, p3, p4, p5, p6, p7, p8, /, p9): ...\n"
    )
    assert too_long(code, "x.py") == ["x.py:1 a(9)", "x.py:5 n(9)", "x.py:6 c(9)"]


def test_no_function_of_the_package_takes_more_than_eight_positional_parameters() -> None:
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 50
    found = [hit for f in files for hit in too_long(f.read_text("utf-8"), str(f.relative_to(ROOT)))]
    assert not found, found
