"""A shoe's bets (``bets``, and ``replay-bets`` placed while replaying it), kept with it.

A change to the bets is one of the ledger's pure functions run under the write lock, so
two tabs betting at once both land; an ended shoe refuses it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import polars as pl

from roads_app.bets.ledger import BETS_SCHEMA, HISTORY_KINDS, with_placement
from roads_app.errors import StorageError, quote
from roads_app.messages import Message
from roads_app.store.connection import Connection, Database
from roads_app.store.history import History
from roads_app.store.shoes import Shoes


class Bets:
    """The ``bets`` table of a `Database`."""

    def __init__(self, database: Database, shoes: Shoes, history: History) -> None:
        self.db = database
        self.shoes = shoes
        self.history = history

    def load(self, shoe_id: str, kind: str = "bets") -> pl.DataFrame:
        """A shoe's bet history (``kind`` bets or replay-bets), in placing order."""
        check_kind(kind)
        rows = self.db.con.execute(
            "SELECT id, round, bet, stake, voided, coalesce(placement, id) FROM bets "
            "WHERE shoe = ? AND kind = ? "
            "ORDER BY id",
            (shoe_id, kind),
        ).fetchall()
        return pl.DataFrame(rows, schema={**BETS_SCHEMA, "voided": pl.Int8}, orient="row").cast(
            BETS_SCHEMA  # type: ignore[arg-type]
        )

    def change(
        self, shoe_id: str, kind: str, change: Callable[[pl.DataFrame], pl.DataFrame]
    ) -> pl.DataFrame:
        """Read, change and store a shoe's bets in one transaction; returns the new bets.

        ``change`` is one of the ledger's pure functions (place, void, clear...); it runs
        under the write lock, so two tabs betting at once both land.
        """
        check_kind(kind)
        with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
            version, n = self.shoes.current(c, shoe_id, playing=True)
            old = self.load(shoe_id, kind)
            new = with_placement(change(old))
            self.put_in(c, shoe_id, kind, new)
            action = _bets_action(old, new)
            version = self.shoes.bump(c, shoe_id, version, n)
            rounds = sorted(set(new["round"].to_list()) ^ set(old["round"].to_list())) or None
            detail = json.dumps({"kind": kind, "bets": new.height, "rounds": rounds})
            self.history.log(c, shoe_id, action, version, n, None, detail)
            return new

    @staticmethod
    def put_in(c: Connection, shoe_id: str, kind: str, bets: pl.DataFrame) -> None:
        """Store a shoe's whole bet history of ``kind`` inside the caller's transaction."""
        c.execute("DELETE FROM bets WHERE shoe = ? AND kind = ?", (shoe_id, kind))
        rows = bets.select(BETS_SCHEMA.names()).with_columns(pl.col("voided").cast(pl.Int8)).rows()
        c.executemany(
            "INSERT INTO bets (shoe, kind, id, round, bet, stake, voided, placement) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [(shoe_id, kind, *r) for r in rows],
        )


def check_kind(kind: str) -> None:
    if kind not in HISTORY_KINDS:
        raise StorageError(
            Message("msg_bet_kind", kind=quote(kind), kinds=", ".join(HISTORY_KINDS))
        )


def _bets_action(old: pl.DataFrame, new: pl.DataFrame) -> str:
    if new.height > old.height:
        return "bet placed"
    if new.height < old.height:
        return "bets cleared"
    if int(new["voided"].sum()) > int(old["voided"].sum()):
        return "round voided"
    return "bets changed"
