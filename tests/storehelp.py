"""Test shorthands over the real store (`roads_app.store.db`): put, get and list shoes."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from roads_app.game.rounds import ShoeMeta
from roads_app.store import db


def save_shoe(rounds: pl.DataFrame, meta: ShoeMeta, data_dir: Path) -> int:
    """Create the shoe, or make an existing one hold exactly these rounds and metadata."""
    store = db.open_store(data_dir)
    if store.shoes.version(meta.id) is None:
        return store.shoes.create(meta, rounds)
    store.rounds.replace(meta.id, rounds, None)
    return store.shoes.update_meta(meta)


def load_shoe(shoe_id: str, data_dir: Path) -> tuple[pl.DataFrame, ShoeMeta]:
    saved = db.open_store(data_dir).shoes.load(shoe_id)
    return saved.rounds, saved.meta


def list_shoes(data_dir: Path) -> pl.DataFrame:
    return db.open_store(data_dir).shoes.list()


def begun_by_result(rounds: pl.DataFrame) -> pl.DataFrame:
    """``rounds`` with round 1 known by its result alone: a shoe not recorded by cards,
    so it takes results by key as well as by cards (a shoe whose every round came with
    its cards takes only cards: `game.rounds.check_by_cards`)."""
    first = pl.int_range(pl.len()) == 0
    unknown = [c for c in rounds.columns if c not in ("round", "winner")]
    return rounds.with_columns(
        pl.when(first).then(None).otherwise(pl.col(c)).alias(c) for c in unknown
    )
