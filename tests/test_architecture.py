"""The layers hold: every import in `roads_app` (lazy ones too) points down the table of
docs/architecture.md, and no modules import each other round in a cycle.

The allowed arrows are read from that document's tables, the one place they are written;
the brief's own rule for the core (never the pages, the web framework or Plotly) is
checked against the document too, so the table cannot be loosened to let it through.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "roads_app"
DOC = ROOT / "docs" / "architecture.md"

CORE = ("game", "bets", "roads", "sim", "shoefiles", "store", "library")
"""The domain core: plain Python + Polars, below every page, server and drawing."""
ABOVE_CORE = frozenset({"render", "serve", "api", "ui", "cli"})
NEVER_IN_CORE = ("streamlit", "fastapi", "starlette", "plotly")


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is written."""

    source: str  # the importing module
    target: str  # a module of roads_app, or a top-level library name
    line: int
    lazy: bool  # inside a function


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _own(name: str) -> str:
    """The module of roads_app that ``name`` (a module, or a name in one) lives in."""
    while name not in modules():
        name = name.rpartition(".")[0]
    return name


def imports_of(name: str, path: Path) -> list[Import]:
    """Every import in the module, at any depth (functions, ``if TYPE_CHECKING``, try)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                found.extend(Import(name, a.name, child.lineno, lazy) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    where = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    where = child.module or ""
                for a in child.names:  # `from roads_app import i18n` imports a module
                    sub = f"{where}.{a.name}"
                    found.append(
                        Import(name, sub if sub in modules() else where, child.lineno, lazy)
                    )
            visit(child, inner)

    visit(tree, False)
    return [
        Import(i.source, _own(i.target), i.line, i.lazy)
        if is_ours(i.target)
        else Import(i.source, i.target.partition(".")[0], i.line, i.lazy)
        for i in found
    ]


def is_ours(target: str) -> bool:
    return target == "roads_app" or target.startswith("roads_app.")


@cache
def all_imports() -> tuple[Import, ...]:
    return tuple(i for name, path in modules().items() for i in imports_of(name, path))


# --- the document's tables -------------------------------------------------------------------


def _table(heading: str) -> list[list[str]]:
    """The body rows of the first table under ``## heading``, as cells."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


def _names(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


@dataclass(frozen=True)
class Layers:
    prefixes: dict[str, str]  # module prefix -> layer
    allowed: dict[str, frozenset[str]]  # layer -> layers it may import
    libraries: dict[str, frozenset[str]]  # library -> the only layers that may import it

    def layer_of(self, module: str) -> str | None:
        best = max(
            (p for p in self.prefixes if module == p or module.startswith(p + ".")),
            key=len,
            default=None,
        )
        return None if best is None else self.prefixes[best]


@cache
def layers() -> Layers:
    prefixes: dict[str, str] = {}
    allowed: dict[str, frozenset[str]] = {}
    for cells in _table("The layers"):
        (layer,) = _names(cells[0])
        for prefix in _names(cells[1]):
            prefixes[prefix] = layer
        allowed[layer] = frozenset(_names(cells[2]))
    libraries = {
        lib: frozenset(_names(cells[1]))
        for cells in _table("Libraries kept in their layer")
        for lib in _names(cells[0])
    }
    return Layers(prefixes, allowed, libraries)


def _where(i: Import) -> str:
    lazy = " (inside a function)" if i.lazy else ""
    return f"{modules()[i.source].relative_to(ROOT)}:{i.line}{lazy}"


# --- the checks ----------------------------------------------------------------------------------


def test_the_document_names_every_layer_it_allows_and_keeps_the_core_below_the_pages() -> None:
    t = layers()
    assert set(CORE) <= set(t.allowed), "the table must have a row for each core layer"
    for layer, may in t.allowed.items():
        assert may <= set(t.allowed), f"{layer} may import an unknown layer: {may - set(t.allowed)}"
    for layer in CORE:
        assert not t.allowed[layer] & ABOVE_CORE, f"the table lets {layer} import pages/servers"
    for lib in NEVER_IN_CORE:
        assert lib in t.libraries, f"the library table must keep {lib} in its layers"
        assert not t.libraries[lib] & set(CORE), f"the table lets the core import {lib}"


def test_every_module_has_a_layer() -> None:
    t = layers()
    lost = [m for m in modules() if t.layer_of(m) is None]
    assert not lost, f"modules no row of docs/architecture.md names: {lost}"


def test_every_import_points_down_the_table() -> None:
    t = layers()
    wrong = []
    for i in all_imports():
        if not is_ours(i.target) or i.target == i.source:
            continue
        src, dst = t.layer_of(i.source), t.layer_of(i.target)
        if src is not None and dst is not None and src != dst and dst not in t.allowed[src]:
            wrong.append(f"{_where(i)}: {i.source} ({src}) imports {i.target} ({dst})")
    assert not wrong, "arrows docs/architecture.md does not allow:\n" + "\n".join(
        dict.fromkeys(wrong)
    )


def test_libraries_stay_in_their_layers() -> None:
    t = layers()
    wrong = [
        f"{_where(i)}: {i.source} imports {i.target}"
        for i in all_imports()
        if i.target in t.libraries and t.layer_of(i.source) not in t.libraries[i.target]
    ]
    assert not wrong, "libraries outside their layers:\n" + "\n".join(dict.fromkeys(wrong))


def test_every_place_the_document_names_exists() -> None:
    """A newcomer following "Where a rule lives" finds each file it names."""
    named = [n for cells in _table("Where a rule lives") for n in _names(cells[1]) if "/" in n]
    assert named
    missing = [n for n in named if not list(ROOT.glob(n))]
    assert not missing, f"docs/architecture.md names files that are not there: {missing}"


def test_the_database_and_the_files_meet_only_where_the_document_says() -> None:
    """`store` (the database) and `shoefiles` (the files) are two rooms: the files never
    import the database, and the database imports files only in the modules the table
    "The database and the files" names, each module it names; `library` sits above both."""
    t = layers()
    assert not t.allowed["shoefiles"] & {"store", "library"}, "the table lets files use the db"
    assert "library" not in t.allowed["store"], "the table lets the database use the library"
    allowed = {
        (cells[0].strip("`"), target)
        for cells in _table("The database and the files")
        for target in _names(cells[1])
    }
    assert allowed, "the table of where the database reads files is empty or gone"
    found = {
        (i.source, i.target)
        for i in all_imports()
        if t.layer_of(i.source) == "store" and is_ours(i.target)
        if t.layer_of(i.target) == "shoefiles"
    }
    assert found == allowed, (
        f"the database imports files where the table does not say: {sorted(found - allowed)}; "
        f"the table names imports that are gone: {sorted(allowed - found)}"
    )


def page_modules() -> frozenset[str]:
    """The modules whose function draws a page of `roads_app/ui/pages.py`'s registry."""
    path = modules()["roads_app.ui.pages"]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = {
        alias.asname or alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    (registry,) = (
        node
        for node in tree.body
        if isinstance(node, ast.AnnAssign | ast.Assign)
        and "PAGES" in {t.id for t in ast.walk(node) if isinstance(t, ast.Name)}
        and isinstance(node.value, ast.Tuple)
    )
    drawn = {n.id for n in ast.walk(registry.value) if isinstance(n, ast.Name) and n.id in where}
    return frozenset(where[name] for name in drawn)


def test_no_page_imports_another_page() -> None:
    """A page lays out what the core and the widgets give it; what two pages share is a
    widget module or the core, never one page reaching into another (lazily included)."""
    pages = page_modules()
    assert len(pages) >= 8, f"the page registry was not read: {sorted(pages)}"
    wrong = [
        f"{_where(i)}: {i.source} imports {i.target}"
        for i in all_imports()
        if i.source in pages and i.target in pages and i.target != i.source
    ]
    assert not wrong, "pages importing pages:\n" + "\n".join(dict.fromkeys(wrong))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_import_cycles_lazy_ones_included() -> None:
    edges: dict[str, set[str]] = {m: set() for m in modules()}
    for i in all_imports():
        if is_ours(i.target) and i.target != i.source:
            edges[i.source].add(i.target)
    cycles = _cycles(edges)
    assert not cycles, "groups of modules importing each other round:\n" + "\n".join(
        ", ".join(c) for c in cycles
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from . import x\n", "roads_app.ui.x"),
        ("from .x import y\n", "roads_app.ui.x"),
        ("from .. import errors\n", "roads_app.errors"),
        ("def f():\n    from roads_app.render import board\n", "roads_app.render.board"),
        ("from roads_app import safe_io\n", "roads_app.safe_io"),
        ("import plotly.graph_objects as go\n", "plotly"),
    ],
)
def test_the_reader_sees_relative_lazy_and_package_imports(
    tmp_path: Path, source: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader itself: a check that sees no imports would pass everything."""
    fake = {**modules(), "roads_app.ui.x": tmp_path / "x.py"}
    monkeypatch.setattr(sys.modules[__name__], "modules", lambda: fake)
    path = tmp_path / "page.py"
    path.write_text(source, encoding="utf-8")
    (found,) = imports_of("roads_app.ui.page", path)
    assert found.target == expected
    assert found.lazy == source.startswith("def")


# --- the vocabulary: results and road keys written once ------------------------------------

RESULT_LETTERS = frozenset({"B", "P", "T"})
ROAD_KEYS = frozenset({"bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"})
DEFINED_IN = {
    "roads_app/game/hand.py": RESULT_LETTERS | {"banker", "player", "tie"},
    "roads_app/roads/names.py": ROAD_KEYS,
}


WINNER_WORDS = frozenset({"banker", "player", "tie"})
"""`Winner.word`: a winner's key, or (the same words) a bet's id, which the table names."""


def _loose(node: ast.AST, words: frozenset[str], letters: bool) -> bool:
    """A result letter, road key or winner word; a string of result letters only (``"BPT"``,
    ``"BP"``); a keyword argument named by a letter (``B=``)."""
    if isinstance(node, ast.keyword):
        return letters and node.arg in RESULT_LETTERS
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    text = node.value
    return text in words or (letters and len(text) > 1 and set(text) <= RESULT_LETTERS)


def loose_words(source: str, where: str) -> int:
    """Result letters, road keys and winner words outside their definitions."""
    defined = DEFINED_IN.get(where, frozenset())
    words = (RESULT_LETTERS | ROAD_KEYS | WINNER_WORDS) - defined
    letters = RESULT_LETTERS.isdisjoint(defined)
    return sum(_loose(n, words, letters) for n in ast.walk(ast.parse(source)))


def test_results_and_road_keys_are_written_once() -> None:
    """Zero loose letters and road keys but where docs/architecture.md says why, exactly."""
    allowed = {
        cells[0].strip("`"): int(cells[1]) for cells in _table("Letters and road keys written once")
    }
    found = {}
    for path in modules().values():
        where = path.relative_to(ROOT).as_posix()
        n = loose_words(path.read_text(encoding="utf-8"), where)
        if n or where in allowed:
            found[where] = n
    assert found == allowed, "result letters or road keys outside game/hand.py and roads/names.py"


def test_the_counter_sees_letters_and_keys() -> None:
    """The counter itself: one that saw nothing would pass everything."""
    assert loose_words('w == "T" or name == "big_road"\nf(x="P")', "x.py") == 3
    assert loose_words('R = "big_road"', "roads_app/roads/names.py") == 0
    assert loose_words('"Tie", "Bet", f"{w}_letter", "banker_pct"', "x.py") == 0
    assert loose_words('"BPT"\nf(B=1, P=2)\nc["tie"]', "x.py") == 4
    assert loose_words('"BPT"\nf(B=1)\nc["tie"]', "roads_app/game/hand.py") == 0


DEFAULT_TABLE_WRITTEN = {
    "roads_app/places.py": 1,  # DEFAULT_TABLE, the one place
    "roads_app/shoefiles/samples.py": 1,  # a sample's recipe names its table, not the default
}


def test_the_default_table_is_named_once() -> None:
    """``"classic"`` as the default or fallback table is `roads_app.places.DEFAULT_TABLE`;
    a string constant ``"classic"`` anywhere else is the rule written again."""
    found = {}
    for path in modules().values():
        where = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        n = sum(isinstance(c, ast.Constant) and c.value == "classic" for c in ast.walk(tree))
        if n:
            found[where] = n
    assert found == DEFAULT_TABLE_WRITTEN


FLAG_NAMES = frozenset({"player_pair", "banker_pair", "player_natural", "banker_natural"})


def flag_lists(source: str) -> int:
    """Tuples, lists and sets that spell out two or more of the four flags as strings
    (what `roads_app.game.rounds.Flag` and `FLAGS` say once)."""
    return sum(
        isinstance(n, ast.Tuple | ast.List | ast.Set)
        and sum(isinstance(e, ast.Constant) and e.value in FLAG_NAMES for e in n.elts) >= 2
        for n in ast.walk(ast.parse(source))
    )


FLAG_LISTS_ALLOWED = {
    "roads_app/bets/tables.py": 2,  # the pair *bets* (bet ids) of the two-way shortcut
}


def test_the_four_flags_are_listed_once() -> None:
    """Seven tuples once spelled the flags out across game, api, ui, roads and store."""
    assert flag_lists('F = ("player_pair", "banker_pair")\nG = ["banker_pair", 1]') == 1
    found = {
        path.relative_to(ROOT).as_posix(): n
        for path in modules().values()
        if (n := flag_lists(path.read_text(encoding="utf-8")))
    }
    assert found == FLAG_LISTS_ALLOWED, "flags spelled out again: use game.rounds.Flag / FLAGS"


def cache_data_uses(source: str) -> int:
    """``st.cache_data`` (or ``streamlit.cache_data``) written in ``source``."""
    return sum(
        isinstance(node, ast.Attribute)
        and node.attr == "cache_data"
        and isinstance(node.value, ast.Name)
        and node.value.id in {"st", "streamlit"}
        for node in ast.walk(ast.parse(source))
    )


def test_no_cache_keeps_a_key_for_every_input_it_saw() -> None:
    """Screens run for days: Streamlit's ``st.cache_data`` keeps a lock and a key for every
    argument tuple it ever saw, whatever its ``max_entries`` (about 200 bytes a hand on a
    display, for good). A cache with arguments is a ``functools.lru_cache``."""
    found = {
        path.relative_to(ROOT).as_posix(): n
        for path in modules().values()
        if (n := cache_data_uses(path.read_text(encoding="utf-8")))
    }
    assert not found, f"st.cache_data in {found}"


def test_the_cache_finder_sees_decorators_and_calls() -> None:
    src = "@st.cache_data(max_entries=3)\ndef f(x): ...\n@streamlit.cache_data\ndef g(): ...\n"
    assert cache_data_uses(src + "h = st.cache_data(f)\n") == 3
    assert cache_data_uses("@lru_cache(maxsize=3)\ndef f(x): ...\n# st.cache_data\n") == 0
