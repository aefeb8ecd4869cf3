"""Good roads (好路): the big-road patterns players hunt for, as data, and the one rule.

The patterns are a catalogue (TOML, package data beside the tables: ``rules/good_roads/
default.toml``; a player's own ``<tables folder>/good_roads/catalogue.toml`` replaces
it), checked by the schema library on load. Each pattern is a list of column
constraints, oldest to newest, and the bet it invites.

**The rule, stated once** (`holds`): take the big road's logical columns, oldest to
newest (ties neither start nor break a column; a dragon tail's turn does not split
one). A pattern of n constraints holds after a round when the shoe has at least n
columns and its last n columns match the n constraints in order, the last one against
the current column as it stands. A constraint is a side (B, P or any) and a length
(exactly k, or at least k).

`holds` is written once, for one pattern and one state, and Numba compiles the very
function (``register_jitable``, as `roads_app.roads.derived` does for the derived
roads): `good_road_masks` runs it after every round of every shoe in one compiled pass,
the backtest engine (`roads_app.sim.kernel`) inlines it before each hand, and the plain
engine calls it as Python. The state it reads is what `add_result` keeps: the columns'
heights as they stand and the current column's side (columns alternate sides, so the
side of every column follows from it).

>>> from roads_app.game.rounds import rounds_from_winners
>>> good_roads_after(rounds_from_winners("BPPBPP"))
[[], [], [], [], [], ['banker_one_player_two']]
>>> good_roads_after(rounds_from_winners("BBPPBBPP"))[-1]
['double_jump', 'paired_columns']
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import polars as pl
from numba import njit
from numba.extending import register_jitable
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roads_app import safe_io
from roads_app.errors import RoadsAppError, RulesError, quote, validation_message
from roads_app.game.hand import W_BANKER, W_PLAYER, W_TIE, Side, Winner
from roads_app.jit_cache import depends_on, for_size
from roads_app.messages import Message
from roads_app.places import RULES_DIR, user_tables_dir

if TYPE_CHECKING:
    import pyarrow as pa

SIDE_B, SIDE_P, SIDE_ANY = W_BANKER, W_PLAYER, 2
"""Constraint sides: B and P are the winner codes of the rounds frame; any is either."""

_TIE = W_TIE

MAX_PATTERNS = 64
"""Patterns a catalogue may hold: one bit each in the per-round mask."""

MAX_COLUMNS = 12
MAX_LENGTH = 99
MAX_CATALOGUE_BYTES = 128 * 1024

CATALOGUE_DIR = "good_roads"
"""Sub-folder of the tables folders that holds catalogues (so none is mistaken for a table)."""
USER_FILE = "catalogue.toml"


class Invite(StrEnum):
    """The bet a pattern invites after it holds."""

    CONTINUE = "continue"  # the current column's side again
    SWITCH = "switch"  # the other side

    @property
    def code(self) -> int:
        return 0 if self is Invite.CONTINUE else 1


class ColumnSide(StrEnum):
    """The side a pattern's column must be: Banker, Player (the hand's `Side` letters),
    or either."""

    BANKER = Side.BANKER.value
    PLAYER = Side.PLAYER.value
    ANY = "any"

    @property
    def code(self) -> int:
        return SIDE_ANY if self is ColumnSide.ANY else Side(self.value).code


depends_on(__file__)  # cached where the app's kernels are (a read-only install included)

# --- the rule -----------------------------------------------------------------------------


@register_jitable(inline="always")
def add_result(lengths: Any, n_cols: int, side: int, winner: int) -> tuple[int, int]:
    """The logical big road after one more result: ``lengths[:n_cols]`` the columns'
    heights, ``side`` the current column's side (-1 before any). A tie adds nothing.

    Whether a streak goes on is a coin toss the processor guesses wrong half the time, so
    it is not a branch here: the engines deal a tenth faster."""
    if winner != _TIE:
        new = int(winner != side)  # 1: a new column (the other side, or the first result)
        col = n_cols - 1 + new
        lengths[col] = (lengths[col] & (new - 1)) + 1  # a new column's height is 1
        n_cols += new
        side = winner
    return n_cols, side


@register_jitable(inline="always")
def holds(
    lengths: Any,
    n_cols: int,
    side: int,
    c_side: Any,
    c_len: Any,
    c_min: Any,
    first: int,
    count: int,
) -> bool:
    """Whether the pattern of constraints ``first .. first+count-1`` holds on the columns
    ``lengths[:n_cols]`` (the last one, of side ``side``, as it stands).

    Constraint j: side ``c_side[j]`` (B, P or any), height ``c_len[j]``, exactly or, where
    ``c_min[j]``, at least.
    """
    if n_cols < count:
        return False
    for j in range(count - 1, -1, -1):  # the current column first: most often the one off
        col = n_cols - count + j
        s = side if (n_cols - 1 - col) % 2 == 0 else 1 - side  # sides alternate
        want = c_side[first + j]
        if want != SIDE_ANY and want != s:
            return False
        h = lengths[col]
        if c_min[first + j]:
            if h < c_len[first + j]:
                return False
        elif h != c_len[first + j]:
            return False
    return True


@register_jitable(inline="always")
def invited_side(
    lengths: Any,
    n_cols: int,
    side: int,
    arrays: tuple,
    pattern: int,
) -> int:
    """The side (winner code) that pattern ``pattern`` invites now, or -1 where it does not
    hold; ``pattern`` -1 means the first pattern that holds (the headline)."""
    c_side, c_len, c_min, p_first, p_count, p_invite = arrays
    lo = 0 if pattern < 0 else pattern
    hi = p_first.shape[0] if pattern < 0 else pattern + 1
    for p in range(lo, hi):
        if holds(lengths, n_cols, side, c_side, c_len, c_min, p_first[p], p_count[p]):
            return side if p_invite[p] == 0 else 1 - side
    return -1


# --- the catalogue ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Constraint:
    """One column of a pattern: its side and its height (exactly, or at least)."""

    side: ColumnSide
    length: int
    at_least: bool

    @property
    def text(self) -> str:
        return f"{self.side.value}{'>=' if self.at_least else '='}{self.length}"


@dataclass(frozen=True, slots=True)
class Pattern:
    """A good road: its key, names, rule in words, columns (oldest first), what it invites."""

    key: str
    en: str
    zh: str
    description: str
    columns: tuple[Constraint, ...]
    invites: Annotated[Invite, Field(strict=False)]  # the words, not an enum object
    enabled: bool = True
    short_en: str = ""
    short_zh: str = ""

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def short(self, lang: str) -> str:
        """The name on a small badge (a floor screen's tile): the short name where the
        catalogue gives one, else the name."""
        return (self.short_zh if lang == "zh" else self.short_en) or self.name(lang)


@dataclass(frozen=True, slots=True)
class CatalogueArrays:
    """The enabled patterns as arrays, in priority order, for compiled readers of `holds`."""

    c_side: np.ndarray  # int64 [constraints]
    c_len: np.ndarray  # int64 [constraints]
    c_min: np.ndarray  # bool [constraints]
    p_first: np.ndarray  # int64 [patterns]: first constraint of each pattern
    p_count: np.ndarray  # int64 [patterns]
    p_invite: np.ndarray  # int64 [patterns]: 0 continue, 1 switch

    def as_tuple(self) -> tuple:
        return (self.c_side, self.c_len, self.c_min, self.p_first, self.p_count, self.p_invite)


@dataclass(frozen=True, slots=True)
class Catalogue:
    """A checked catalogue; ``where`` says which file it came from (for every page)."""

    name: str
    title: str
    source: str
    patterns: tuple[Pattern, ...]
    where: str

    @property
    def active(self) -> tuple[Pattern, ...]:
        """The enabled patterns, in priority order (what is matched and tagged)."""
        return tuple(p for p in self.patterns if p.enabled)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(p.key for p in self.active)

    def pattern(self, key: str) -> Pattern:
        for p in self.active:
            if p.key == key:
                return p
        raise RulesError(
            Message(
                "msg_no_good_road", name=quote(key), where=self.where, known=", ".join(self.keys)
            )
        )

    def arrays(self) -> CatalogueArrays:
        return _arrays(self)


@functools.cache
def _arrays(cat: Catalogue) -> CatalogueArrays:
    cols = [c for p in cat.active for c in p.columns]
    counts = np.array([len(p.columns) for p in cat.active], dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return CatalogueArrays(
        c_side=np.array([c.side.code for c in cols], dtype=np.int64),
        c_len=np.array([c.length for c in cols], dtype=np.int64),
        c_min=np.array([c.at_least for c in cols], dtype=np.bool_),
        p_first=first if counts.size else np.zeros(0, dtype=np.int64),
        p_count=counts,
        p_invite=np.array([p.invites.code for p in cat.active], dtype=np.int64),
    )


_CONSTRAINT = re.compile(r"^(B|P|any)(=|>=)([0-9]{1,2})$")
_STRICT = ConfigDict(extra="forbid", strict=True)
Text = Annotated[str, Field(min_length=1, max_length=200)]


class _PatternFile(BaseModel):
    model_config = _STRICT
    key: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    en: str = Field(min_length=1, max_length=40)
    zh: str = Field(min_length=1, max_length=20)
    description: Text
    columns: list[Annotated[str, Field(pattern=_CONSTRAINT.pattern)]] = Field(
        min_length=1, max_length=MAX_COLUMNS
    )
    invites: Annotated[Invite, Field(strict=False)]  # the words, not an enum object
    enabled: bool = True
    short_en: str = Field(default="", max_length=12)
    short_zh: str = Field(default="", max_length=6)


class _CatalogueFile(BaseModel):
    model_config = _STRICT
    name: str = Field(min_length=1, max_length=40)
    title: Text
    source: str = Field(min_length=1, max_length=1000)
    patterns: list[_PatternFile] = Field(min_length=1, max_length=MAX_PATTERNS)


def _constraint(text: str, where: str) -> Constraint:
    m = _CONSTRAINT.match(text)
    assert m is not None  # the schema checked it
    side, op, k = m.groups()
    length = int(k)
    if not 1 <= length <= MAX_LENGTH:
        raise RulesError(
            Message("msg_gr_column_length", where=where, text=quote(text), most=MAX_LENGTH)
        )
    return Constraint(ColumnSide(side), length, op == ">=")


def parse_catalogue(text: str, where: str) -> Catalogue:
    """A catalogue from its TOML text; `RulesError` naming ``where`` and the field."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise RulesError(Message("msg_not_toml", where=where, error=str(e))) from None
    try:
        model = _CatalogueFile.model_validate(data)
    except ValidationError as e:
        raise RulesError(validation_message(e.errors(), where)) from None
    seen: set[str] = set()
    patterns = []
    for i, p in enumerate(model.patterns):
        if p.key in seen:
            raise RulesError(
                Message(
                    "msg_gr_listed_twice", where=where, field=f"patterns.{i}.key", name=quote(p.key)
                )
            )
        seen.add(p.key)
        cols = tuple(_constraint(c, f"{where}: patterns.{i}.columns") for c in p.columns)
        patterns.append(
            Pattern(
                p.key,
                p.en,
                p.zh,
                p.description,
                cols,
                Invite(p.invites),
                p.enabled,
                p.short_en,
                p.short_zh,
            )
        )
    return Catalogue(model.name, model.title, model.source, tuple(patterns), where)


def default_path() -> Path:
    return RULES_DIR / CATALOGUE_DIR / "default.toml"


def user_path() -> Path:
    """Where a player's own catalogue lives: ``<tables folder>/good_roads/catalogue.toml``."""
    return user_tables_dir() / CATALOGUE_DIR / USER_FILE


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """The catalogue in force: ``path`` if given, else the player's own file if there is
    one (`user_path`), else the default (package data). `RulesError` in one line."""
    if path is None:
        user = user_path()
        path = user if user.is_file() else default_path()
        where = f"rules/{CATALOGUE_DIR}/default.toml" if path == default_path() else str(path)
    else:
        path = Path(path)
        where = str(path)
        if not path.exists() and not path.is_symlink():
            raise RulesError(Message("msg_no_catalogue", where=where))
    try:
        text = safe_io.read_text_bounded(path, MAX_CATALOGUE_BYTES, where)
        safe_io.check_depth(text, where, quotes="\"'")
    except RulesError:
        raise
    except RoadsAppError as e:
        raise RulesError(e.message) from None
    return parse_catalogue(text, where)


def catalogue_toml(cat: Catalogue) -> str:
    """The catalogue as a TOML file `load_catalogue` reads back (the dashboard saves it)."""

    def s(x: str) -> str:
        return '"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = [f"name = {s(cat.name)}", f"title = {s(cat.title)}", f"source = {s(cat.source)}"]
    for p in cat.patterns:
        cols = ", ".join(s(c.text) for c in p.columns)
        lines += [
            "",
            "[[patterns]]",
            f"key = {s(p.key)}",
            f"en = {s(p.en)}",
            f"zh = {s(p.zh)}",
            f"description = {s(p.description)}",
            f"columns = [{cols}]",
            f"invites = {s(p.invites.value)}",
            f"enabled = {'true' if p.enabled else 'false'}",
        ]
        lines += [
            f"{k} = {s(v)}" for k, v in (("short_en", p.short_en), ("short_zh", p.short_zh)) if v
        ]
    return "\n".join(lines) + "\n"


def save_user_catalogue(cat: Catalogue) -> Path:
    """Write ``cat`` as the player's own catalogue (checked by reading it back first)."""
    text = catalogue_toml(cat)
    parse_catalogue(text, "the catalogue to save")
    path = user_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


# --- every round of every shoe ------------------------------------------------------------


@njit(cache=True)
def _masks(
    code: np.ndarray,  # int8 winner per round, shoe after shoe
    shoe_first: np.ndarray,  # bool per round: first round of its shoe
    arrays: tuple,
    out: np.ndarray,  # uint64 per round, filled in: bit p = pattern p holds after it
) -> None:
    c_side, c_len, c_min, p_first, p_count, _ = arrays
    n = code.shape[0]
    lengths = np.zeros(n + 1, dtype=np.int64)
    n_cols = 0
    side = -1
    prev = np.uint64(0)
    for i in range(n):
        if shoe_first[i]:
            n_cols = 0
            side = -1
            prev = np.uint64(0)
        if code[i] == _TIE:
            out[i] = prev  # a tie changes no column
            continue
        n_cols, side = add_result(lengths, n_cols, side, code[i])
        m = np.uint64(0)
        for p in range(p_first.shape[0]):
            if holds(lengths, n_cols, side, c_side, c_len, c_min, p_first[p], p_count[p]):
                m |= np.uint64(1) << np.uint64(p)
        out[i] = m
        prev = m


def _mask_of(s: Any, cat: Catalogue) -> np.ndarray:
    from roads_app.roads.grids import PLAIN_UP_TO

    mask = np.empty(s.code.size, dtype=np.uint64)
    if s.code.size:
        first = np.zeros(s.code.size, dtype=np.bool_)
        first[s.start] = True
        masks = for_size(_masks, s.code.size <= PLAIN_UP_TO)  # interpreted: as the roads
        masks(s.code, first, cat.arrays().as_tuple(), mask)
    return mask


def good_road_masks(rounds: pl.DataFrame, catalogue: Catalogue | None = None) -> np.ndarray:
    """Per round (rows in `grids.check_rounds` order), a uint64 whose bit p says that
    enabled pattern p of the catalogue holds after that round: all shoes, one pass."""
    from roads_app.roads.grids import _shoes

    return _mask_of(_shoes(rounds), catalogue or load_catalogue())


def keys_of(mask: int, catalogue: Catalogue) -> list[str]:
    """The keys of the patterns set in ``mask``, in priority order."""
    return [k for p, k in enumerate(catalogue.keys) if (int(mask) >> p) & 1]


def good_roads(rounds: pl.DataFrame, catalogue: Catalogue | None = None) -> pl.DataFrame:
    """What holds after every round of every shoe: [shoe], round, ``good_roads`` (the
    keys in priority order, a list) and ``mask`` (bit p: enabled pattern p)."""
    from roads_app.roads.grids import _shoes

    cat = catalogue or load_catalogue()
    s = _shoes(rounds)
    mask = _mask_of(s, cat)
    keys = s.frame.select(["shoe", "round"] if s.multi else ["round"])
    listed = pl.Series("good_roads", _key_lists(mask, cat.keys))
    return keys.with_columns(listed, pl.Series("mask", mask, dtype=pl.UInt64))


@njit(cache=True)
def _unpack(mask: np.ndarray, n_pat: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, pattern numbers) of the bits set in each mask, lowest bit first."""
    offsets = np.zeros(mask.shape[0] + 1, dtype=np.int32)
    total = 0
    for i in range(mask.shape[0]):
        m = mask[i]
        while m:
            m &= m - np.uint64(1)
            total += 1
        offsets[i + 1] = total
    cols = np.empty(total, dtype=np.int32)
    k = 0
    for i in range(mask.shape[0]):
        for p in range(n_pat):
            if (mask[i] >> np.uint64(p)) & np.uint64(1):
                cols[k] = p
                k += 1
    return offsets, cols


def _key_lists(mask: np.ndarray, keys: tuple[str, ...]) -> pa.Array:
    """Per round, the keys of the bits set in ``mask`` (lowest bit first: priority
    order), as one Arrow list array of dictionary-coded keys built from offsets."""
    import pyarrow as pa

    offsets, cols = _unpack(mask, len(keys))
    values = pa.DictionaryArray.from_arrays(
        pa.array(cols, pa.int32()), pa.array(list(keys), pa.string())
    )
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), values)


def good_roads_after(rounds: pl.DataFrame, catalogue: Catalogue | None = None) -> list[list[str]]:
    """One shoe: the keys that hold after each round, in priority order."""
    cat = catalogue or load_catalogue()
    return [keys_of(m, cat) for m in good_road_masks(rounds, cat).tolist()]


def current(rounds: pl.DataFrame, catalogue: Catalogue | None = None) -> list[str]:
    """One shoe: what holds after its last round (the tags a table shows now)."""
    after = good_roads_after(rounds, catalogue)
    return after[-1] if after else []


def tags_of_winners(winners: Sequence[str], catalogue: Catalogue | None = None) -> list[str]:
    """One shoe given by its results as letters: what holds after the last one, in
    priority order. Plain Python over one shoe (a key press, an API event): `holds`
    itself, no frame, no compiled call.

    >>> tags_of_winners("BTPBP")
    ['single_jump']
    """
    cat = catalogue or in_force()
    lengths, side = columns_of(winners)
    a = cat.arrays()
    n = len(lengths)
    cols = (a.c_side, a.c_len, a.c_min)
    return [
        key
        for p, key in enumerate(cat.keys)
        if holds(lengths, n, side, *cols, int(a.p_first[p]), int(a.p_count[p]))
    ]


def tags_now(
    rounds: pl.DataFrame, upto: int | None = None, catalogue: Catalogue | None = None
) -> list[str]:
    """One shoe's frame: what holds after round ``upto`` (all rounds: None), by the
    catalogue in force unless one is given (the tags a page shows)."""
    winners = rounds["winner"].cast(pl.String).to_list()
    return tags_of_winners(winners if upto is None else winners[:upto], catalogue)


def entered(winners: Sequence[str], catalogue: Catalogue | None = None) -> list[str]:
    """The patterns a shoe given by its results holds after its last one that it did
    not hold after the one before: the good roads it just entered (what the lobby and a
    wall tile alert on), in priority order.

    >>> entered("BPBP"), entered("BPBPT")
    (['single_jump'], [])
    """
    if not winners:
        return []
    before = set(tags_of_winners(winners[:-1], catalogue))
    return [k for k in tags_of_winners(winners, catalogue) if k not in before]


_IN_FORCE: dict[tuple[str, int, int], Catalogue] = {}


def in_force() -> Catalogue:
    """`load_catalogue()` (the player's file, else the default), read again only when
    that file changes: what every page and the API tag with."""
    user = user_path()
    path = user if user.is_file() else default_path()
    try:
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        return load_catalogue()
    cat = _IN_FORCE.get(key)
    if cat is None:
        cat = load_catalogue()
        _IN_FORCE.clear()
        _IN_FORCE[key] = cat
    return cat


def columns_of(winners: Sequence[str]) -> tuple[list[int], int]:
    """The logical columns' heights and the current side code (-1: none) of a shoe's
    results as letters: the state `holds` reads, for plain readers."""
    lengths = [0] * (len(winners) + 1)
    n, side = 0, -1
    for w in winners:
        n, side = add_result(lengths, n, side, _CODES[w])
    return lengths[:n], side


_CODES = {w.value: w.code for w in Winner}
