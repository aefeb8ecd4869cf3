"""The history of every change: when, what, the version it made, the round count after it.

Every change appends here in its own transaction, so an undone round can be brought back
(`roads_app.store.rounds.Rounds.redo`) and a tab that is behind is told what moved. The
history outlives a shoe purged from the trash.
"""

from __future__ import annotations

import polars as pl

from roads_app.errors import StorageError
from roads_app.messages import Message
from roads_app.store.connection import Connection, Database, now

_LOG = (
    "INSERT INTO history (shoe, at, action, version, rounds, round, detail) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)

ROUND_ACTIONS = (
    "created",
    "imported",
    "entered",
    "undone",
    "redone",
    "edited",
    "replaced",
    "voided",
    "ended",
)
"""History actions that change a shoe's rounds: only these make another tab stale."""

HISTORY_SCHEMA: pl.Schema = pl.Schema(
    {
        "seq": pl.Int64,
        "at": pl.String,
        "action": pl.String,
        "version": pl.Int64,
        "rounds": pl.Int64,
        "round": pl.Int64,
        "detail": pl.String,
    }
)


class History:
    """The ``history`` table of a `Database`."""

    def __init__(self, database: Database) -> None:
        self.db = database

    def log(
        self,
        c: Connection,
        shoe_id: str,
        action: str,
        version: int,
        rounds: int,
        round_no: int | None = None,
        detail: str | None = None,
    ) -> None:
        """Append one change, inside the caller's write transaction. Every change of a
        shoe comes here, so here the change feed is told (`Database.notify`)."""
        c.execute(_LOG, (shoe_id, now(), action, version, rounds, round_no, detail))
        self.db.notify(c, shoe_id, version)

    def log_many(
        self,
        c: Connection,
        shoes: list[tuple[str, int]],
        action: str,
        detail: str | None = None,
    ) -> None:
        """`log` of each new shoe (id, rounds) at version 1, in one statement."""
        at = now()
        c.executemany(_LOG, [(i, at, action, 1, rounds, None, detail) for i, rounds in shoes])
        for shoe_id, _ in shoes:
            self.db.notify(c, shoe_id, 1)

    def of(self, shoe_id: str) -> pl.DataFrame:
        """Every change of a shoe, oldest first (also after it was purged from the trash)."""
        rows = self.db.con.execute(
            "SELECT seq, at, action, version, rounds, round, detail FROM history "
            "WHERE shoe = ? ORDER BY seq",
            (shoe_id,),
        ).fetchall()
        if not rows:
            raise StorageError(Message("msg_no_shoe_with_id", id=shoe_id, folder=self.db.place))
        return pl.DataFrame(rows, schema=HISTORY_SCHEMA, orient="row")

    def undone_rounds(self, shoe_id: str) -> list[str]:
        """The rounds (as history JSON) an undo took back that can be brought back, next
        one first: the run of undo/redo at the end of the history, redone ones skipped."""
        rows = self.db.con.execute(
            "SELECT action, detail FROM history WHERE shoe = ? AND action IN "
            f"({', '.join('?' * len(ROUND_ACTIONS))}) ORDER BY seq DESC",
            (shoe_id, *ROUND_ACTIONS),
        ).fetchall()
        skip, out = 0, []
        for action, detail in rows:  # newest first: walk back over the undo/redo run
            if action == "redone":
                skip += 1
            elif action == "undone":
                if skip:
                    skip -= 1
                else:
                    out.append(detail)
            else:
                break
        return out

    @staticmethod
    def rounds_moved(c: Connection, shoe_id: str, since: int) -> bool:
        """Whether a change after version ``since`` changed the shoe's rounds."""
        return (
            c.execute(
                f"SELECT 1 FROM history WHERE shoe = ? AND version > ? AND action IN "
                f"({', '.join('?' * len(ROUND_ACTIONS))}) LIMIT 1",
                (shoe_id, since, *ROUND_ACTIONS),
            ).fetchone()
            is not None
        )

    @staticmethod
    def rounds_at(c: Connection, shoe_id: str, version: int) -> int | None:
        """The shoe's round count at ``version`` (None if the history does not reach it)."""
        row = c.execute(
            "SELECT rounds FROM history WHERE shoe = ? AND version <= ? "
            "ORDER BY version DESC LIMIT 1",
            (shoe_id, version),
        ).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def was_purged(c: Connection, shoe_id: str) -> bool:
        """Whether the shoe was ever here (its history outlives a purge)."""
        return (
            c.execute("SELECT 1 FROM history WHERE shoe = ? LIMIT 1", (shoe_id,)).fetchone()
            is not None
        )
