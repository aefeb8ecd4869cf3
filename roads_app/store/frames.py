"""Rows of the database and the frames and metadata they hold, both ways.

The one place that knows how a rounds frame and a `ShoeMeta` are laid out in SQL.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import polars as pl

from roads_app.game.rounds import ROUNDS_SCHEMA, WINNER, ShoeMeta, empty_rounds

ROUND_COLS = ROUNDS_SCHEMA.names()
FLAG_COLS = ("player_pair", "banker_pair", "player_natural", "banker_natural")
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


def rows_of(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    """Rounds as SQL rows: cards joined by spaces, flags as 0/1.

    Rows are few per change (one per key press), where a Python loop costs microseconds
    and Polars expressions a millisecond; bulk imports go through the same small loop.
    """
    return [
        (
            r[0],
            str(r[1]),
            *r[2:4],
            *(None if f is None else int(f) for f in r[4:8]),
            None if r[8] is None else " ".join(r[8]),
            None if r[9] is None else " ".join(r[9]),
        )
        for r in (frame if frame.columns == ROUND_COLS else frame.select(ROUND_COLS)).iter_rows()
    ]  # (a select costs a Polars query, ~1 ms a shoe under load: skipped when in order)


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
    m = meta.to_dict()
    if m["seed"] is not None and m["seed"] >= 2**63:
        m["seed"] -= SEED_WRAP
    return m


def meta_of(row: sqlite3.Row | tuple[Any, ...]) -> ShoeMeta:
    m = dict(zip(META_COLS, row, strict=True))
    if isinstance(m["seed"], int) and m["seed"] < 0:
        m["seed"] += SEED_WRAP
    return ShoeMeta.from_dict(m)
