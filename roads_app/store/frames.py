"""Rows of the database and the frames and metadata they hold, both ways.

The one place that knows how a rounds frame and a `ShoeMeta` are laid out in SQL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

import polars as pl

from roads_app.game.rounds import FLAGS, ROUNDS_SCHEMA, WINNER, ShoeMeta, empty_rounds

ROUND_COLS = ROUNDS_SCHEMA.names()
FLAG_COLS = FLAGS
SQL_ROUNDS = f"SELECT {', '.join(ROUND_COLS)} FROM rounds WHERE shoe = ? ORDER BY round"
_RAW_SCHEMA = {
    "round": pl.Int32,
    "winner": pl.String,
    "player_points": pl.Int8,
    "banker_points": pl.Int8,
    **{c: pl.Int8 for c in FLAG_COLS},
    "player_cards": pl.String,
    "banker_cards": pl.String,
}
META_COLS = (
    "id",
    "name",
    "created",
    "source",
    "decks",
    "seed",
    "rules",
    "notes",
    "burn_card",
    "cut",
)


def _same(v: Any) -> Any:
    return v


def _joined(cards: list[str]) -> str:
    return " ".join(cards)


_SQL_FORM: dict[str, tuple[Callable[[Any], Any], Callable[[pl.Expr], pl.Expr]]] = {
    "round": (_same, _same),
    "winner": (str, lambda e: e.cast(pl.String)),
    "player_points": (_same, _same),
    "banker_points": (_same, _same),
    **{c: (int, lambda e: e.cast(pl.Int8)) for c in FLAG_COLS},
    "player_cards": (_joined, lambda e: e.list.join(" ")),
    "banker_cards": (_joined, lambda e: e.list.join(" ")),
}
"""How each rounds column is kept in SQL (a value's form, and the same as a Polars
expression): the one statement of the layout, which both ways of making rows read."""
assert tuple(_SQL_FORM) == tuple(ROUND_COLS)

_BULK = 64
"""From this many rounds the columns are converted by Polars (an import's thousands of
rounds: ~6x faster); below it a Python loop (a key press's one round: ~30 us, where a
Polars query costs ~350 us)."""


def rows_of(frame: pl.DataFrame, shoe: pl.Series | None = None) -> list[tuple[Any, ...]]:
    """Rounds as SQL rows in `ROUND_COLS` order: cards joined by spaces, flags as 0/1;
    with ``shoe`` (one id a round) each row starts with its shoe's id, as ``rounds`` holds
    it."""
    if frame.height >= _BULK:
        exprs = [to_sql(pl.col(c)) for c, (_, to_sql) in _SQL_FORM.items()]
        if shoe is not None:
            exprs.insert(0, pl.lit(shoe).alias("shoe"))
        return frame.select(exprs).rows()
    forms = [form for form, _ in _SQL_FORM.values()]
    rows = [
        tuple(None if v is None else f(v) for f, v in zip(forms, r, strict=True))
        for r in (frame if frame.columns == ROUND_COLS else frame.select(ROUND_COLS)).iter_rows()
    ]  # (a select costs a Polars query, ~1 ms a shoe under load: skipped when in order)
    return rows if shoe is None else [(s, *r) for s, r in zip(shoe, rows, strict=True)]


def sql_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """A rounds frame's columns (`ROUND_COLS`, any others kept in front) as ``rounds``
    holds them: cards joined by spaces, flags as 0/1, the winner as its letter."""
    rest = [c for c in frame.columns if c not in _SQL_FORM]
    return frame.select(*rest, *(to_sql(pl.col(c)) for c, (_, to_sql) in _SQL_FORM.items()))


def frame_of(rows: list[tuple[Any, ...]]) -> pl.DataFrame:
    """SQL rows back into the rounds frame (`ROUNDS_SCHEMA`), column-wise."""
    if not rows:
        return empty_rounds()
    raw = pl.DataFrame(rows, schema=_RAW_SCHEMA, orient="row")
    return raw.with_columns(
        pl.col("winner").cast(WINNER),
        *(pl.col(c).cast(pl.Boolean) for c in FLAG_COLS),
        pl.col("player_cards").str.split(" "),
        pl.col("banker_cards").str.split(" "),
    )


def row_json(frame: pl.DataFrame, i: int) -> str:
    return json.dumps(dict(zip(ROUND_COLS, frame.row(i), strict=True)))


def frame_from_json(texts: list[str]) -> pl.DataFrame:
    return pl.DataFrame([json.loads(t) for t in texts], schema=ROUNDS_SCHEMA, orient="row")


SEED_WRAP = 2**64
"""A seed runs to 2^64 - 1, SQLite's integers to 2^63 - 1: a seed of 2^63 or more is kept
as its two's-complement (negative) 64-bit value and read back exactly; seeds are never
negative, so a negative stored value means exactly that."""


def meta_row(meta: ShoeMeta) -> dict[str, Any]:
    """A shoe's metadata as the ``shoes`` row stores it."""
    m = {k: getattr(meta, k) for k in META_COLS}  # (``to_dict``'s deep copy: 0.2 ms a shoe)
    if m["seed"] is not None and m["seed"] >= 2**63:
        m["seed"] -= SEED_WRAP
    return m


def meta_of(row: sqlite3.Row | tuple[Any, ...]) -> ShoeMeta:
    m = dict(zip(META_COLS, row, strict=True))
    if isinstance(m["seed"], int) and m["seed"] < 0:
        m["seed"] += SEED_WRAP
    return ShoeMeta.from_dict(m)
