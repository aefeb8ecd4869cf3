"""Files of any number of shoes (what `simulate` writes), read a batch at a time.

A file of many shoes is never held whole: it is read in batches of about `BATCH_ROWS`
rows (Parquet a record batch at a time, CSV a block of lines, JSON one round object
at a time), each batch regrouped so that it holds whole shoes, and each shoe checked
before the batch is handed on. Memory is that of a batch, whatever the file's size.

What is refused is what `importing` refuses for a file of one shoe, with the same
one-line `StorageError`: every shoe is checked by the one check of a hand's cards
(`game.rounds.rounds_from_cards`, all of a batch's hands at once) and the shoe rule
(`check_shoe`). A shoe the fast check cannot vouch for (no cards, a value written
another way than `simulate` writes it, a fault) goes through `importing`'s row-by-row
check, which says what is wrong and where, or accepts it as a one-shoe import would.

The bounds of a hostile file stay: a line (CSV) or round object (JSON) of at most
`safe_io.MAX_LINE_BYTES`, JSON nesting, a Parquet row group's declared size, the
columns; only the number of shoes is unbounded.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import polars as pl

from roads_app import safe_io
from roads_app.errors import StorageError, quote, shown_path
from roads_app.game.hand import WINNER_DTYPE
from roads_app.game.rounds import (
    FLAGS,
    MOST_ROUNDS,
    ROUNDS_SCHEMA,
    FrameCards,
    ShoeMeta,
    rounds_from_cards,
    shoes_within,
)
from roads_app.messages import Message
from roads_app.shoefiles import importing, schemas
from roads_app.shoefiles.importing import SHOE_COLUMN

BATCH_ROWS = int(os.environ.get("ROADS_APP_IMPORT_BATCH", "") or 50_000)
"""Rows read and checked at a time (about 600 full shoes): what memory holds, and what
an import commits at once. ``ROADS_APP_IMPORT_BATCH`` sets fewer (the tests' killed
import: a transaction a shoe)."""
MAX_GROUP_UNPACKED = 256 * 1024 * 1024
"""Largest uncompressed size a Parquet row group may declare (it is decoded whole)."""
MAX_ROUND_BYTES = safe_io.MAX_LINE_BYTES
"""Longest round object of a JSON file (as a CSV line)."""
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Checked:
    """A batch of checked shoes as one frame: the ``shoe`` column (the shoe's number in
    the file, Int64) and the rounds frame's columns, the shoes whole and in file order.

    Kept as one frame, never a frame a shoe: a shoe costs its rows, not a frame's own
    few kilobytes and milliseconds (a file of 200,000 one-round shoes). Iterating it
    gives (shoe number, rounds frame) pairs, for a caller that wants shoes one by one."""

    frame: pl.DataFrame
    reach: tuple[float, float] = (0.0, 1.0)
    """Where in the file the batch lies, as shares of it (from, to): the share of the id
    space its new shoes' ids are drawn from (`game.rounds.new_ids_within`)."""

    @property
    def numbers(self) -> pl.Series:
        """The batch's shoe numbers, in file order."""
        return self.frame[SHOE_COLUMN].unique(maintain_order=True)

    def __len__(self) -> int:
        return self.frame[SHOE_COLUMN].n_unique()

    def __iter__(self) -> Iterator[tuple[int, pl.DataFrame]]:
        parts = self.frame.partition_by(
            SHOE_COLUMN, maintain_order=True, as_dict=True, include_key=False
        )
        for (k,), part in parts.items():
            yield int(k), part  # type: ignore[call-overload]


Item = TypeVar("Item")

Progress = Callable[[int, int], object]
"""Told, as a file is read, how much more of it (`ShoeFile.total`'s unit) and how many
more shoes."""

BYTE_UNIT = "B"
"""A progress bar's unit for a file read by its bytes (tqdm scales it to kB, MB)."""
PROGRESS_FROM = {"round": 200_000, BYTE_UNIT: 10_000_000}
"""From how big a file `import` draws a progress bar (a few seconds' work)."""


@dataclass
class _Raw:
    """A batch as read: a frame with the file's columns (``shoe`` first), the rows as a
    one-shoe reader would see them (for the row-by-row check), the file row of its first."""

    frame: pl.DataFrame
    first_row: int
    rows: list[dict[str, Any]] | None = None  # JSON: the decoded objects, types intact
    until: int = 0  # how far into the file (progress units, `ShoeFile.total`) it reaches


@dataclass
class ShoeFile:
    """A file of many shoes opened for streaming: its format, metadata, and readers."""

    path: Path
    fmt: str
    label: str
    meta: ShoeMeta | None
    columns: list[str]
    total: int
    """The progress bar's end: rounds (Parquet) or bytes (CSV, JSON)."""
    unit: str = "row"
    batch_rows: int | None = None
    """Rows a batch is read in (None: `BATCH_ROWS`; a reader that keeps more of each
    round than an import does asks for fewer)."""

    @property
    def rows_a_batch(self) -> int:
        return self.batch_rows or BATCH_ROWS

    @property
    def lax(self) -> bool:
        return self.fmt == "csv"

    @property
    def progress_unit(self) -> str:
        return "round" if self.fmt == "parquet" else BYTE_UNIT

    def batches(
        self, progress: Progress | None = None, *, ahead: bool = False
    ) -> Iterator[Checked]:
        """Every shoe of the file, checked, a batch of whole shoes at a time (`made`,
        each batch as it is)."""
        return self.made(lambda batch: batch, progress, ahead=ahead)

    def made(
        self,
        into: Callable[[Checked], Item],
        progress: Progress | None = None,
        *,
        ahead: bool = False,
    ) -> Iterator[Item]:
        """Every shoe of the file, checked, a batch of whole shoes at a time, each batch
        made ``into`` what the caller takes.

        ``progress`` is told, once each batch is done with, how much more of the file
        (`total`'s unit) it read and how many shoes it held. ``ahead``: while the caller is
        busy with a batch (an import's write), the next is made on a thread of its own and
        the one after it read and checked on another (three cores' work on two: each of
        the three steps takes about a third of an import), still handed on in order, a
        refusal where it was; memory is three batches'. ``progress`` is told on the
        caller's thread."""
        whole = max(self.total, 1)

        def checked() -> Iterator[tuple[int, Checked]]:
            done = 0
            for raw in _whole_shoes(self._raw(), self.label):
                reach = (min(done / whole, 1.0), min(raw.until / whole, 1.0))
                yield raw.until - done, replace(_check_batch(self, raw), reach=reach)
                done = raw.until

        def made(batches: Iterator[tuple[int, Checked]]) -> Iterator[tuple[int, int, Item]]:
            return ((more, len(batch), into(batch)) for more, batch in batches)

        # ahead: two threads, one reads and checks a batch while the other makes the one
        # before it (an import's staging), while the caller writes the one before that
        reading = _read_ahead(checked(), "read-ahead") if ahead else checked()
        items = _read_ahead(made(reading), "make-ahead") if ahead else made(reading)
        # closed in turn, explicitly, when the caller stops early: the making thread may
        # be waiting inside ``reading`` for a batch, so it finishes before ``reading``
        # closes (not left to the interpreter dropping the loop's iterator first)
        with contextlib.closing(reading), contextlib.closing(items):
            for more, shoes, item in items:
                yield item
                if progress is not None:
                    progress(more, shoes)

    def shoe(self, k: int) -> pl.DataFrame | None:
        """Shoe ``k`` checked (only it), or None when the file has no such shoe."""
        for raw in _whole_shoes(self._raw(), self.label):
            keep = raw.frame[SHOE_COLUMN] == k
            if keep.any():
                first = raw.first_row + int(keep.arg_true()[0])
                rows = (
                    None
                    if raw.rows is None
                    else [r for r, kept in zip(raw.rows, keep, strict=True) if kept]
                )
                part = _Raw(raw.frame.filter(keep), first, rows)
                return _check_batch(self, part).frame.drop(SHOE_COLUMN)
        return None

    def numbers(self) -> list[int]:
        """The file's shoe numbers in order (the shoe column read alone, and checked)."""
        out: list[int] = []
        for raw in _whole_shoes(self._raw(columns=[SHOE_COLUMN]), self.label):
            out.extend(raw.frame[SHOE_COLUMN].unique(maintain_order=True).to_list())
        return out

    def _raw(self, columns: list[str] | None = None) -> Iterator[_Raw]:
        if self.fmt == "parquet":
            return _parquet_raw(self, columns)
        if self.fmt == "csv":
            return _csv_raw(self)
        return _json_raw(self)


_END = object()


def _read_ahead(items: Iterator[Item], name: str) -> Iterator[Item]:
    """``items`` with the next one made on a worker thread (named ``name``) while the
    caller holds this one: one item ahead, so memory is two items'. An error making an
    item is raised where that item would have come."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1, thread_name_prefix=name)
    try:
        coming = pool.submit(next, items, _END)
        while (item := coming.result()) is not _END:
            coming = pool.submit(next, items, _END)
            yield item  # type: ignore[misc]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def open_shoe_file(path: Path) -> ShoeFile | None:
    """A file of many shoes (it has a ``shoe`` column) ready to stream, or None for a
    file of one shoe (read whole by `importing`, 2 MB at most). Its columns and the type
    of its shoe column are checked here, before any shoe is read."""
    path = Path(path)
    label = shown_path(path.name)
    safe_io.check_regular_file(path, shown_path(path))
    fmt = path.suffix.lower().lstrip(".")
    meta: ShoeMeta | None = None
    if fmt == "parquet":
        md = _parquet_footer(path, label)
        schema = md.schema.to_arrow_schema()
        columns = list(schema.names)
        if SHOE_COLUMN not in columns:
            return None
        kv = {
            k.decode(errors="replace"): v.decode(errors="replace")
            for k, v in (md.metadata or {}).items()
        }
        if importing.META_KEY in kv:
            meta = importing.meta_from_text(kv[importing.META_KEY], label)
        # (Polars reads the type itself: Arrow's empty table would import pandas, ~40 MB)
        _check_shoe_type(pl.read_parquet_schema(path)[SHOE_COLUMN], label)
        total = md.num_rows
    elif fmt == "csv":
        columns = _csv_header(path, label)
        if columns is None or SHOE_COLUMN not in columns:
            return None
    elif fmt == "json":
        first = _json_first(path, label)
        if not isinstance(first, dict) or SHOE_COLUMN not in first:
            return None
        columns = [*schemas.FIELDS, SHOE_COLUMN]
    else:
        return None
    if fmt != "json":
        importing.check_columns(columns, label, shoes=True)
    if fmt != "parquet":
        total = path.stat().st_size
    return ShoeFile(path, fmt, label, meta, columns, total, "round" if fmt == "json" else "row")


# --- the shoe column -------------------------------------------------------------------


def _check_shoe_type(dtype: pl.DataType, label: str) -> None:
    """A shoe column holds whole numbers: a Boolean, float, text or nested column is
    refused by its type before any value is read."""
    if not dtype.is_integer():
        raise StorageError(
            Message("msg_shoe_column_type", label=label, column="'shoe'", type=str(dtype))
        )


def _shoe_numbers(frame: pl.DataFrame, label: str, first_row: int, unit: str) -> pl.DataFrame:
    """The frame with its shoe column as Int64, or the first row without a shoe number."""
    column = frame[SHOE_COLUMN]
    if column.dtype == pl.String:
        text = column.str.strip_chars()
        numbers = pl.when(text.str.contains(r"^[0-9]{1,18}$")).then(text).otherwise(None)
        numbers = pl.select(numbers.cast(pl.Int64)).to_series()
    elif column.dtype.is_integer():
        numbers = column.cast(pl.Int64, strict=False)
    else:  # JSON values of mixed types land here as objects Polars could not type
        numbers = pl.Series([None] * len(column), dtype=pl.Int64)
    bad = (numbers.is_null() | (numbers < 1)).arg_true()
    if bad.len():
        i = int(bad[0])
        where = importing._place(label, unit, first_row + i)
        raise StorageError(Message("msg_not_shoe_number", where=where, value=quote(column[i])))
    return frame.with_columns(numbers.alias(SHOE_COLUMN))


def _whole_shoes(raws: Iterator[_Raw], label: str) -> Iterator[_Raw]:
    """Batches regrouped to hold whole shoes (the last shoe of a batch waits for the next),
    refusing a shoe whose rows come in two separate runs (its rounds would be out of order)."""
    seen = _Seen()
    held: _Raw | None = None
    ahead = _last_flagged(raws)
    for raw, is_last in ahead:
        if held is not None:
            raw = _Raw(
                pl.concat([held.frame, raw.frame], how="vertical_relaxed"),
                held.first_row,
                None if raw.rows is None else [*(held.rows or []), *raw.rows],
                raw.until,
            )
        shoes = raw.frame[SHOE_COLUMN]
        if not len(shoes):
            continue
        starts = np.flatnonzero(np.r_[True, shoes.to_numpy()[1:] != shoes.to_numpy()[:-1]])
        runs = shoes.gather(starts).to_list()
        if len(set(runs)) != len(runs) or seen.any_of(runs):
            here: set[int] = set()
            for j, k in enumerate(runs):
                if k in seen or k in here:
                    row = raw.first_row + int(starts[j])
                    raise StorageError(
                        Message("msg_shoe_runs_twice", label=label, shoe=k, row=f"{row:,}")
                    )
                here.add(k)
        last = len(shoes) if is_last else int(starts[-1])  # the file's end: all are whole
        if len(shoes) - last > MOST_ROUNDS:  # a shoe that never ends is not held on to
            where = Message("msg_file_shoe", label=label, shoe=runs[-1])
            raise StorageError(
                Message(
                    "msg_rounds_one_shoe",
                    label=where,
                    count=f"{len(shoes) - last:,}",
                    most=MOST_ROUNDS,
                )
            )
        seen.add(runs if is_last else runs[:-1])
        done = _Raw(
            raw.frame.slice(0, last),
            raw.first_row,
            None if raw.rows is None else raw.rows[:last],
            raw.until,
        )
        held = _Raw(
            raw.frame.slice(last),
            raw.first_row + last,
            None if raw.rows is None else raw.rows[last:],
            raw.until,
        )
        if done.frame.height:
            yield done
    if held is not None and held.frame.height:
        yield held


class _Seen:
    """The shoe numbers a file has had, as runs of consecutive numbers (``lo`` to
    ``hi``): one run for a file numbered 1, 2, 3... whatever its length, so memory is
    not a number a shoe."""

    def __init__(self) -> None:
        self.lo = np.empty(0, dtype=np.int64)
        self.hi = np.empty(0, dtype=np.int64)

    def __contains__(self, k: int) -> bool:
        return bool(self.any_of([k]))

    def any_of(self, numbers: list[int]) -> bool:
        """Whether any of ``numbers`` was seen."""
        if not self.lo.size:
            return False
        x = np.asarray(numbers, dtype=np.int64)
        at = np.searchsorted(self.lo, x, side="right") - 1
        return bool(((at >= 0) & (x <= self.hi[np.maximum(at, 0)])).any())

    def add(self, numbers: list[int]) -> None:
        x = np.unique(np.asarray(numbers, dtype=np.int64))
        if not x.size:
            return
        cut = np.flatnonzero(np.diff(x) != 1) + 1
        lo = np.concatenate([self.lo, x[np.r_[0, cut]]])
        hi = np.concatenate([self.hi, x[np.r_[cut - 1, x.size - 1]]])
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
        reach = np.maximum.accumulate(hi)
        starts = np.flatnonzero(np.r_[True, lo[1:] > reach[:-1] + 1])
        self.lo, self.hi = lo[starts], np.maximum.reduceat(hi, starts)


def _last_flagged(raws: Iterator[_Raw]) -> Iterator[tuple[_Raw, bool]]:
    """Each batch and whether it is the file's last (read one batch ahead)."""
    prev: _Raw | None = None
    for raw in raws:
        if prev is not None:
            yield prev, False
        prev = raw
    if prev is not None:
        yield prev, True


# --- checking a batch -----------------------------------------------------------------

_INT_COLUMNS = ("round", "player_points", "banker_points")
_CARDS = ("player_cards", "banker_cards")


def _typed(frame: pl.DataFrame, fmt: str) -> tuple[pl.DataFrame, np.ndarray]:
    """The batch in the rounds frame's types, and which rows are written exactly as
    `simulate` writes them (the rest go through the row-by-row check)."""
    ok = np.ones(frame.height, dtype=np.bool_)
    cols: dict[str, pl.Series] = {SHOE_COLUMN: frame[SHOE_COLUMN]}
    for name in ("round", *ROUNDS_SCHEMA.names()[1:]):
        dtype = ROUNDS_SCHEMA[name]
        if name not in frame.columns:
            cols[name] = pl.Series(name, [None] * frame.height, dtype=dtype)
            continue
        given = frame[name]
        if fmt == "csv":  # text exactly as written out: digits, true/false, codes
            given = given.str.strip_chars()
            given = pl.select(pl.when(given != "").then(given)).to_series().alias(name)
            if name in _INT_COLUMNS:
                value = given.cast(pl.Int64, strict=False)
                ok &= (value.cast(pl.String) == given).fill_null(True).to_numpy()
            elif name in FLAGS:
                value = given.replace_strict(
                    {"true": True, "false": False}, default=None, return_dtype=pl.Boolean
                )
            elif name in _CARDS:
                value = given.str.split(" ")
            else:
                value = given
            ok &= ~(value.is_null() & given.is_not_null()).to_numpy()
        elif name in _INT_COLUMNS:
            if not given.dtype.is_integer():
                ok[:] = False
                value = pl.Series(name, [None] * frame.height, dtype=pl.Int64)
            else:
                value = given.cast(pl.Int64)
        elif name in FLAGS:
            if given.dtype != pl.Boolean:
                ok[:] = False
                value = pl.Series(name, [None] * frame.height, dtype=pl.Boolean)
            else:
                value = given
        elif name in _CARDS:
            if given.dtype != pl.List(pl.String):
                ok[:] = False
                value = pl.Series(name, [None] * frame.height, dtype=pl.List(pl.String))
            else:
                value = given
        else:  # winner
            if given.dtype not in (pl.String, pl.Categorical) and not isinstance(
                given.dtype, pl.Enum
            ):
                ok[:] = False
                value = pl.Series(name, [None] * frame.height, dtype=pl.String)
            else:
                value = given.cast(pl.String)
        if name in ("player_points", "banker_points"):
            ok &= value.is_between(0, 9).fill_null(True).to_numpy()
        cols[name] = value.alias(name)
    out = pl.DataFrame(cols)
    # both hands' cards or neither (one hand alone: the row-by-row check names it)
    ok &= (out["player_cards"].is_null() == out["banker_cards"].is_null()).to_numpy()
    return out, ok


_PLAIN = ("winner", "player_points", "banker_points", *FLAGS)
"""What a round without cards is: each distinct combination is checked once."""


def _without_cards(typed: pl.DataFrame, plain: pl.Series) -> tuple[pl.Series, np.ndarray]:
    """The winner of each round without cards and whether the row-by-row check of a
    one-shoe file takes it (`importing.plain_round`, the entry form's own
    `round_by_points` / `round_by_winner`): a round without cards is a handful of values,
    so each distinct combination of the batch is checked once and the answer joined
    back to its rows (a file of 200,000 one-round shoes has a few). Rows with cards
    are left (null, True)."""
    combos = typed.filter(plain).select(_PLAIN).unique()
    winners: list[str | None] = []
    good: list[bool] = []
    for row in combos.iter_rows(named=True):
        w = importing.plain_round(row)
        winners.append(w)
        good.append(w is not None)
    answers = combos.with_columns(
        _w=pl.Series(winners, dtype=WINNER_DTYPE), _ok=pl.Series(good, dtype=pl.Boolean)
    )
    joined = typed.select(_PLAIN).join(
        answers, on=list(_PLAIN), how="left", nulls_equal=True, maintain_order="left"
    )
    ok = (joined["_ok"].fill_null(False) | ~plain).to_numpy()
    return joined["_w"], ok


def _check_batch(f: ShoeFile, raw: _Raw) -> Checked:
    """Every shoe of a batch of whole shoes, checked at once; refused at the first bad one.

    Rounds with cards by the one check of a hand's cards (`rounds_from_cards`), rounds
    without by `_without_cards`, every shoe by the shoe rule (`shoes_within`); a shoe
    those cannot vouch for goes through the row-by-row check of a one-shoe file, which
    names what is wrong and where (or takes it, written another way)."""
    typed, ok = _typed(raw.frame, f.fmt)
    if raw.rows is not None:  # JSON: only values of exactly the schema's types are fast
        ok &= np.fromiter((_plain_json(r) for r in raw.rows), np.bool_, len(raw.rows))
    plain = typed["player_cards"].is_null() & typed["banker_cards"].is_null()
    cards = FrameCards.of(typed)  # (the rebuilt frame keeps these cards, row for row)
    rebuilt, faulty = rounds_from_cards(typed, cards)
    ok &= ~faulty
    winner, plain_ok = _without_cards(typed, plain)
    ok &= plain_ok
    shoe = typed[SHOE_COLUMN]
    position = typed.select(pl.int_range(1, pl.len() + 1).over(SHOE_COLUMN)).to_series()
    ok &= (typed["round"].is_null() | (typed["round"] == position)).to_numpy()
    decks = f.meta.decks if f.meta else 8
    burn = f.meta.burn_card if f.meta else None
    frame = (
        pl.DataFrame({"_plain": plain})
        .hstack(rebuilt)
        .with_columns(
            *(
                pl.when(pl.col("_plain"))
                .then(pl.lit(typed[c]).cast(ROUNDS_SCHEMA[c]))
                .otherwise(pl.col(c))
                .alias(c)
                for c in _PLAIN[1:]
            ),
            pl.when(pl.col("_plain"))
            .then(pl.lit(winner))
            .otherwise(pl.col("winner"))
            .alias("winner"),
        )
        .select(shoe, position.cast(pl.Int32).alias("round"), *ROUNDS_SCHEMA.names()[1:])
    )
    good = shoes_within(frame, decks, [burn] if burn else [], cards)
    by_shoe = (
        pl.DataFrame({SHOE_COLUMN: shoe, "ok": ok}).group_by(SHOE_COLUMN).agg(pl.col("ok").all())
    )
    slow = by_shoe.filter(~pl.col("ok") | ~pl.col(SHOE_COLUMN).is_in(good.implode()))
    if not slow.height:
        return Checked(frame)
    # the few shoes the fast check cannot vouch for, in file order, one by one
    rows = pl.int_range(pl.len(), dtype=pl.Int64)
    frame = frame.with_columns(_at=rows)
    parts = [frame.filter(~pl.col(SHOE_COLUMN).is_in(slow[SHOE_COLUMN].implode()))]
    for k in shoe.filter(shoe.is_in(slow[SHOE_COLUMN].implode())).unique(maintain_order=True):
        at = frame.filter(pl.col(SHOE_COLUMN) == k)["_at"]
        checked = _row_by_row(f, raw, int(k))
        parts.append(checked.select(pl.lit(k, dtype=pl.Int64).alias(SHOE_COLUMN), pl.all(), _at=at))
    return Checked(pl.concat(parts, how="vertical").sort("_at").drop("_at"))


def _plain_json(row: dict[str, Any]) -> bool:
    """A round object whose values have exactly the types `simulate` writes."""
    for key, v in row.items():
        if v is None:
            continue
        t = type(v)
        if key in _INT_COLUMNS or key == SHOE_COLUMN:
            if t is not int:
                return False
        elif key in FLAGS:
            if t is not bool:
                return False
        elif key in _CARDS:
            if not _json_typed(key, v):
                return False
        elif key != "winner" or t is not str:
            return False
    return True


def _row_by_row(f: ShoeFile, raw: _Raw, k: int) -> pl.DataFrame:
    """Shoe ``k`` through `importing`'s check of a one-shoe file, named as shoe ``k``."""
    keep = (raw.frame[SHOE_COLUMN] == k).to_list()
    if raw.rows is not None:
        rows = [
            {c: v for c, v in r.items() if c != SHOE_COLUMN}
            for r, kept in zip(raw.rows, keep, strict=True)
            if kept
        ]
    else:
        part = raw.frame.filter(pl.Series(keep)).drop(SHOE_COLUMN)
        if f.fmt == "csv":
            rows = []
            for row in part.iter_rows(named=True):
                cells = {c: v.strip() for c, v in row.items() if v is not None and v.strip()}
                for side in _CARDS:
                    if side in cells:
                        cells[side] = cells[side].split(" ")
                rows.append(cells)
        else:
            rows = importing._frame_rows(part, Message("msg_file_shoe", label=f.label, shoe=k))
    parts = importing.ShoeParts(f.path.name, {k: rows}, f.meta, f.lax, f.unit)
    return parts.shoe(k)[0]


# --- Parquet ----------------------------------------------------------------------------


def _parquet_footer(path: Path, label: str) -> Any:
    """The footer, refused for too many columns or a row group too big to decode at once."""
    md = importing.parquet_footer(path, label, 2**62, 2**62)
    for g in range(md.num_row_groups):
        group = md.row_group(g)
        size = max(
            group.total_byte_size,
            sum(group.column(c).total_uncompressed_size for c in range(group.num_columns)),
        )
        if size > MAX_GROUP_UNPACKED:
            raise StorageError(
                Message(
                    "msg_parquet_unpacks",
                    label=label,
                    size=f"{size / 2**20:.0f}",
                    most=f"{MAX_GROUP_UNPACKED / 2**20:.0f}",
                )
            )
    return md


def _parquet_raw(f: ShoeFile, columns: list[str] | None) -> Iterator[_Raw]:
    import pyarrow.parquet as pq

    first = 1
    try:
        pf = pq.ParquetFile(f.path)
        for batch in pf.iter_batches(batch_size=f.rows_a_batch, columns=columns):
            frame = pl.from_arrow(batch)
            assert isinstance(frame, pl.DataFrame)
            frame = _shoe_numbers(frame, f.label, first, "row")
            first += frame.height
            yield _Raw(frame, first - frame.height, until=first - 1)
    except StorageError:
        raise
    except Exception as e:  # pyarrow raises several types for damaged pages
        said = Message("msg_parquet_unreadable", label=f.label, error=importing._first_line(e))
        raise StorageError(said) from None


# --- CSV --------------------------------------------------------------------------------


def _long_line(label: str, n: int) -> StorageError:
    return StorageError(
        Message("msg_line_long", label=label, line=f"{n:,}", most=f"{safe_io.MAX_LINE_BYTES:,}")
    )


def _csv_header(path: Path, label: str) -> list[str] | None:
    for piece, _ends, _before in _pieces(path, label):
        for line in piece.split(b"\n")[:-1]:  # blank lines before the header skipped
            text = line.decode("utf-8-sig", errors="replace").strip()
            if not text:
                continue
            if "," not in text:
                return None
            header = [h.strip() for h in text.split(",")]
            if "result" in header and "winner" not in header:
                header[header.index("result")] = "winner"
            twice = sorted({h for h in header if header.count(h) > 1})
            if twice:
                raise StorageError(
                    Message("msg_column_twice", label=label, column=quote(twice[0], 30))
                )
            return header
    return None


def _pieces(path: Path, label: str) -> Iterator[tuple[bytes, np.ndarray, int]]:
    """A text file as pieces of whole lines, about a megabyte each: (the piece, where each
    of its lines ends (its "\\n"), the bytes before it). The lines are found by NumPy
    over the piece, not a Python step a line (a file of 30,000 shoes has 2.4 million);
    never more than a megabyte and a line is held. A line longer than
    `safe_io.MAX_LINE_BYTES` is refused by its number, after the lines before it are
    handed on; a last line without a line end gets one."""
    fd = os.open(path, os.O_RDONLY)
    try:
        rest = b""
        n = 0
        before = 0
        while True:
            chunk = os.read(fd, _CHUNK)
            data = rest + chunk
            if not chunk:
                if not data:
                    break
                data += b"\n"
            cut = data.rfind(b"\n") + 1
            piece, rest = data[:cut], data[cut:]
            ends = np.flatnonzero(np.frombuffer(piece, np.uint8) == _NL)
            long = np.flatnonzero(np.diff(ends, prepend=-1) - 1 > safe_io.MAX_LINE_BYTES)
            if long.size:
                j = int(long[0])
                if j:
                    yield piece[: ends[j - 1] + 1], ends[:j], before
                raise _long_line(label, n + j + 1)
            if piece:
                yield piece, ends, before
            n += ends.size
            before += len(piece)
            if len(rest) > safe_io.MAX_LINE_BYTES:
                raise _long_line(label, n + 1)
            if not chunk:
                break
    finally:
        os.close(fd)


_NL, _COMMA, _QUOTE = b"\n"[0], b","[0], b'"'[0]
_BLANK = np.zeros(256, dtype=np.bool_)
_BLANK[list(b" \t\n\r\x0b\x0c")] = True
"""The bytes `bytes.strip` takes away: a line of only these is a blank line."""


@dataclass
class _Block:
    """A CSV block being gathered: its rows as runs of whole lines (each ending in
    "\\n"), how many, and the rows to look at cell by cell (a comma too many or too few,
    or a quote) as (index in the block, line)."""

    runs: list[bytes] = field(default_factory=list)
    rows: int = 0
    odd: list[tuple[int, bytes]] = field(default_factory=list)


def _csv_raw(f: ShoeFile) -> Iterator[_Raw]:
    """The file's rows a block of `ShoeFile.rows_a_batch` at a time. A line's ``\\r``
    ends and blank lines are dropped, the first other line is the header."""
    header: bytes | None = None
    block = _Block()
    first_row = 1
    width = len(f.columns)
    for raw, raw_ends, before in _pieces(f.path, f.label):
        piece, ends = raw, raw_ends
        if b"\r" in piece:  # each line's "\r"s at its end dropped (a line count kept)
            piece = re.sub(rb"\r+\n", b"\n", piece)
            ends = np.flatnonzero(np.frombuffer(piece, np.uint8) == _NL)
        arr = np.frombuffer(piece, np.uint8)
        starts = np.r_[0, ends[:-1] + 1]
        rows = np.add.reduceat(~_BLANK[arr], starts) > 0
        if header is None:
            if not rows.any():
                continue
            h = int(rows.argmax())
            header = piece[starts[h] : ends[h]]
            rows[h] = False
        at = np.flatnonzero(rows)
        commas = np.add.reduceat(arr == _COMMA, starts)[at]
        quoted = np.add.reduceat(arr == _QUOTE, starts)[at] > 0
        odd = np.flatnonzero((commas != width - 1) | quoted)
        taken = 0
        while taken < at.size:
            take = min(f.rows_a_batch - block.rows, at.size - taken)
            lines = at[taken : taken + take]
            # runs of consecutive lines, each one slice of the piece
            cuts = np.flatnonzero(np.diff(lines) != 1) + 1
            for a, b in zip(np.r_[0, cuts], np.r_[cuts, lines.size], strict=True):
                block.runs.append(piece[starts[lines[a]] : ends[lines[b - 1]] + 1])
            mine = odd[(odd >= taken) & (odd < taken + take)]
            block.odd.extend(
                (block.rows + int(i) - taken, piece[starts[at[i]] : ends[at[i]]]) for i in mine
            )
            block.rows += take
            taken += take
            if block.rows == f.rows_a_batch:
                until = min(before + int(raw_ends[lines[-1]]) + 1, f.total)
                yield _csv_block(f, header, block, first_row, until)
                first_row += block.rows
                block = _Block()
    if header is not None and block.rows:
        yield _csv_block(f, header, block, first_row, f.total)


def _csv_block(f: ShoeFile, header: bytes, block: _Block, first_row: int, until: int) -> _Raw:
    """A block of CSV lines as a frame of text; a row of another width is refused."""
    data = b"".join([header, b"\n", *block.runs])
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise StorageError(Message("msg_csv_not_utf8", label=f.label, byte=e.start)) from None
    width = len(f.columns)
    for i, line in block.odd:  # a row of another width than the header's is refused
        import csv

        cells = next(csv.reader([line.decode("utf-8", errors="replace")]), [])
        if len(cells) != width:
            raise StorageError(
                Message(
                    "msg_row_cells",
                    label=f.label,
                    row=first_row + i,
                    cells=len(cells),
                    header=width,
                )
            )
    try:
        frame = pl.read_csv(
            io.BytesIO(data),
            has_header=True,
            new_columns=f.columns,
            schema={c: pl.String for c in f.columns},
        )
    except Exception as e:  # quoting that runs across lines
        raise StorageError(
            Message("msg_csv_unreadable", label=f.label, error=importing._first_line(e))
        ) from None
    if frame.height != block.rows:
        raise StorageError(
            Message("msg_csv_unreadable", label=f.label, error="a quoted cell runs across lines")
        )
    return _Raw(_shoe_numbers(frame, f.label, first_row, "row"), first_row, until=until)


# --- JSON -------------------------------------------------------------------------------


def _json_objects(path: Path, label: str) -> Iterator[tuple[object, int]]:
    """The items of a JSON file's top-level array, decoded one at a time (each at most
    `MAX_ROUND_BYTES`); a file that is not an array yields nothing after its start."""
    decoder = json.JSONDecoder(parse_constant=importing._no_constant)
    fd = os.open(path, os.O_RDONLY)
    try:
        buf = ""
        pending = b""
        started = ended = False
        item = 0

        def more() -> bool:
            nonlocal buf, pending
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                return False
            data = pending + chunk
            try:
                text = data.decode("utf-8")
                pending = b""
            except UnicodeDecodeError as e:
                if e.start < len(data) - 3:
                    raise StorageError(
                        Message("msg_json_not_utf8", label=label, byte=e.start)
                    ) from None
                text, pending = data[: e.start].decode("utf-8"), data[e.start :]
            buf += text
            return True

        pos = 0
        consumed = 0
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n,\ufeff":
                if buf[pos] == "," and not started:
                    break
                pos += 1
            if pos >= len(buf):
                consumed += len(buf)
                buf, pos = "", 0
                if not more():
                    break
                continue
            if not started:
                if buf[pos] != "[":
                    return
                started, pos = True, pos + 1
                continue
            if buf[pos] == "]":
                ended = True
                pos += 1
                break
            try:
                value, end = decoder.raw_decode(buf, pos)
            except RecursionError:
                raise StorageError(
                    Message("msg_json_deep", label=label, item=item + 1, most=safe_io.MAX_DEPTH)
                ) from None
            except ValueError as e:
                if len(buf) - pos <= MAX_ROUND_BYTES and more():
                    continue
                if len(buf) - pos > MAX_ROUND_BYTES:
                    raise StorageError(
                        Message(
                            "msg_json_round_long",
                            label=label,
                            round=f"{item + 1:,}",
                            most=f"{MAX_ROUND_BYTES:,}",
                        )
                    ) from None
                raise StorageError(
                    Message("msg_json_invalid", label=label, error=importing._first_line(e))
                ) from None
            if end - pos > MAX_ROUND_BYTES:
                raise StorageError(
                    Message(
                        "msg_json_round_long",
                        label=label,
                        round=f"{item + 1:,}",
                        most=f"{MAX_ROUND_BYTES:,}",
                    )
                )
            item += 1
            yield value, consumed + end
            pos = end
            if pos > _CHUNK:  # drop what was read, now and then (not per item: a copy)
                consumed += pos
                buf, pos = buf[pos:], 0
        rest = buf[pos:].strip() if ended else "x"
        while ended and not rest and more():
            rest = buf.strip()
        if rest:
            raise StorageError(
                Message(
                    "msg_json_invalid", label=label, error="the array of rounds does not end with ]"
                )
            )
    finally:
        os.close(fd)


def _json_first(path: Path, label: str) -> object:
    for value, _at in _json_objects(path, label):
        return value
    return None


def _json_raw(f: ShoeFile) -> Iterator[_Raw]:
    rows: list[dict[str, Any]] = []
    first = 1
    at = 0
    for n, (value, at) in enumerate(_json_objects(f.path, f.label), 1):
        if not isinstance(value, dict):
            raise StorageError(
                Message(
                    "msg_json_round_type",
                    label=f.label,
                    round=n,
                    type=type(value).__name__,
                    example='{"winner": "B"}',
                )
            )
        if SHOE_COLUMN not in value:
            where = importing._place(f.label, "round", n)
            raise StorageError(Message("msg_not_shoe_number", where=where, value="(none)"))
        rows.append(value)
        if len(rows) >= f.rows_a_batch:
            yield _json_batch(f, rows, first, at)
            first, rows = n + 1, []
    if rows:
        yield _json_batch(f, rows, first, at)


def _json_batch(f: ShoeFile, rows: list[dict[str, Any]], first: int, until: int) -> _Raw:
    """Round objects as a frame of the schema's types; values of other types become null
    (and their rows are checked one by one, which names them)."""
    for i, r in enumerate(rows):
        unknown = [c for c in r if c not in schemas.FIELDS and c != SHOE_COLUMN]
        if unknown:
            importing.check_columns(["winner", *unknown], f.label, shoes=True)
        k = r[SHOE_COLUMN]
        if type(k) is not int or k < 1:
            where = importing._place(f.label, "round", first + i)
            raise StorageError(Message("msg_not_shoe_number", where=where, value=quote(k)))
    columns: dict[str, list[Any]] = {c: [] for c in (SHOE_COLUMN, *schemas.FIELDS)}
    for r in rows:
        for c, values in columns.items():
            v = r.get(c)
            values.append(v if _json_typed(c, v) else None)
    for c in _CARDS:  # lists of text are slow to build in Polars: joined, then split there
        columns[c] = [None if v is None else " ".join(v) for v in columns[c]]
    schema = {
        SHOE_COLUMN: pl.Int64,
        **{c: _JSON_TYPES[c] for c in schemas.FIELDS},
        **dict.fromkeys(_CARDS, pl.String),
    }
    frame = pl.DataFrame(columns, schema=schema).with_columns(
        pl.col(c).str.split(" ") for c in _CARDS
    )
    return _Raw(frame, first, rows, until)


_JSON_TYPES: dict[str, pl.DataType] = {
    "round": pl.Int64(),
    "winner": pl.String(),
    "player_points": pl.Int64(),
    "banker_points": pl.Int64(),
    **{c: pl.Boolean() for c in FLAGS},
    **{c: pl.List(pl.String) for c in _CARDS},
    schemas.ROUND_CODE: pl.String(),
}


def _json_typed(column: str, v: object) -> bool:
    if v is None:
        return True
    if column in _INT_COLUMNS or column == SHOE_COLUMN:
        return type(v) is int and -(2**62) < v < 2**62
    if column in FLAGS:
        return type(v) is bool
    if column in _CARDS:  # (a code with a space in it is for the row-by-row check to name)
        return type(v) is list and all(type(c) is str and " " not in c for c in v)
    return type(v) is str
