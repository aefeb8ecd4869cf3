"""A shoe's rounds: appended, undone and brought back, edited, replaced, voided.

Each change goes through the shoe's version check (`Shoes.checked`), writes the
smallest change (INSERTs for a key press), bumps the version once per round and keeps
what it took in the history, so an undone round comes back exactly (`Rounds.redo`).
"""

from __future__ import annotations

import json

import polars as pl

from roads_app.errors import StorageError
from roads_app.game.rounds import empty_rounds
from roads_app.messages import Message
from roads_app.store.connection import Connection, Database
from roads_app.store.frames import ROUND_COLS, frame_from_json, frame_of, row_json, rows_of
from roads_app.store.history import History
from roads_app.store.shoes import Shoes

_INSERT = (
    f"INSERT INTO rounds (shoe, {', '.join(ROUND_COLS)}) "
    f"VALUES (?, {', '.join('?' * len(ROUND_COLS))})"
)
_SINCE = (
    "SELECT version, action, rounds FROM history WHERE shoe = ? AND version > ? ORDER BY version"
)
_AFTER = f"SELECT {', '.join(ROUND_COLS)} FROM rounds WHERE shoe = ? AND round > ? ORDER BY round"
_ONE = f"SELECT {', '.join(ROUND_COLS)} FROM rounds WHERE shoe = ? AND round = ?"


class Rounds:
    """The ``rounds`` table of a `Database`, changed through the shoes' version gate."""

    def __init__(self, database: Database, shoes: Shoes, history: History) -> None:
        self.db = database
        self.shoes = shoes
        self.history = history

    def append(self, shoe_id: str, new: pl.DataFrame, expected: int | None) -> int:
        """Add rounds after the last one (INSERTs only); returns the new version."""
        with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
            return self.append_in(c, shoe_id, new, expected)

    def append_in(
        self, c: Connection, shoe_id: str, new: pl.DataFrame, expected: int | None
    ) -> int:
        """`append` inside a transaction the caller holds (`write`)."""
        version, n = self.shoes.checked(c, shoe_id, expected)
        return self._add(c, shoe_id, new, version, n, "entered")

    def _add(
        self,
        c: Connection,
        shoe_id: str,
        new: pl.DataFrame,
        version: int,
        n: int,
        action: str,
    ) -> int:
        new = new.with_columns(
            pl.int_range(n + 1, n + 1 + new.height, dtype=pl.Int32).alias("round")
        )
        c.executemany(_INSERT, [(shoe_id, *r) for r in rows_of(new)])
        for i in range(new.height):
            version = self.shoes.bump(c, shoe_id, version, n + i + 1)
            self.history.log(c, shoe_id, action, version, n + i + 1, n + i + 1, row_json(new, i))
        return version

    def appended_in(
        self, c: Connection, shoe_id: str, since: int, had: int
    ) -> tuple[int, pl.DataFrame] | None:
        """(version now, the rounds added) of a shoe read at version ``since`` with ``had``
        rounds, when every change since was an append (``entered``, one version a round);
        None when anything else changed it (an undo, an edit, a replace, a void, its end)
        or its history does not say so: the caller reads it whole.

        Why: a follower that keeps a shoe's summary (the lobby) adds a round to it rather
        than reading a whole shoe after each round."""
        version, n = self.shoes.current(c, shoe_id)
        if version < since:
            return None
        changes = [tuple(r) for r in c.execute(_SINCE, (shoe_id, since)).fetchall()]
        if changes != [(since + i, "entered", had + i) for i in range(1, version - since + 1)]:
            return None
        if n != had + len(changes):
            return None
        return version, frame_of(c.execute(_AFTER, (shoe_id, had)).fetchall())

    def undo(self, shoe_id: str, expected: int | None, count: int = 1) -> int:
        """Take back the last ``count`` rounds; each is kept in the history for `redo`."""
        with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
            return self.undo_in(c, shoe_id, expected, count)

    def undo_in(self, c: Connection, shoe_id: str, expected: int | None, count: int = 1) -> int:
        """`undo` inside a transaction the caller holds (`write`)."""
        version, n = self.shoes.checked(c, shoe_id, expected)
        if count > n:
            raise StorageError(Message("msg_store_undo", id=shoe_id, n=n))
        gone = frame_of(
            c.execute(
                f"SELECT {', '.join(ROUND_COLS)} FROM rounds WHERE shoe = ? AND round > ? "
                "ORDER BY round DESC",
                (shoe_id, n - count),
            ).fetchall()
        )
        c.execute("DELETE FROM rounds WHERE shoe = ? AND round > ?", (shoe_id, n - count))
        for i in range(gone.height):
            no = n - i
            version = self.shoes.bump(c, shoe_id, version, no - 1)
            self.history.log(c, shoe_id, "undone", version, no - 1, no, row_json(gone, i))
        return version

    def redoable(self, shoe_id: str) -> pl.DataFrame:
        """The rounds an undo took back that can be brought back, next one first."""
        out = self.history.undone_rounds(shoe_id)
        return frame_from_json(out) if out else empty_rounds()

    def redo(self, shoe_id: str, expected: int | None) -> int:
        """Bring back the round last undone (the undo of an undo), from the history."""
        with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
            version, n = self.shoes.checked(c, shoe_id, expected)
            back = self.redoable(shoe_id)
            if not back.height:
                raise StorageError(Message("msg_store_bring_back", id=shoe_id))
            return self._add(c, shoe_id, back.head(1), version, n, "redone")

    def edit(self, shoe_id: str, round_no: int, row: pl.DataFrame, expected: int | None) -> int:
        """Replace one round (a one-row rounds frame); the old content goes to the history."""
        with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
            version, n = self.shoes.checked(c, shoe_id, expected)
            if not 1 <= round_no <= n:
                raise StorageError(Message("msg_no_such_round", n=round_no, rounds=n))
            new = row.head(1).with_columns(pl.lit(round_no, dtype=pl.Int32).alias("round"))
            old = frame_of(c.execute(_ONE, (shoe_id, round_no)).fetchall())
            sets = ", ".join(f"{col} = ?" for col in ROUND_COLS[1:])
            c.execute(
                f"UPDATE rounds SET {sets} WHERE shoe = ? AND round = ?",
                (*rows_of(new)[0][1:], shoe_id, round_no),
            )
            version = self.shoes.bump(c, shoe_id, version, n)
            detail = json.dumps(
                {"old": json.loads(row_json(old, 0)), "new": json.loads(row_json(new, 0))}
            )
            self.history.log(c, shoe_id, "edited", version, n, round_no, detail)
            return version

    def replace(self, shoe_id: str, rounds: pl.DataFrame, expected: int | None) -> int:
        """Every round at once (a change that is no append, undo or single edit)."""
        with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
            version, n = self.shoes.checked(c, shoe_id, expected)
            c.execute("DELETE FROM rounds WHERE shoe = ?", (shoe_id,))
            frame = rounds.with_columns(
                pl.int_range(1, rounds.height + 1, dtype=pl.Int32).alias("round")
            )
            c.executemany(_INSERT, [(shoe_id, *r) for r in rows_of(frame)])
            version = self.shoes.bump(c, shoe_id, version, frame.height)
            self.history.log(
                c, shoe_id, "replaced", version, frame.height, None, f"{n} rounds before"
            )
            return version

    def save(self, shoe_id: str, old: pl.DataFrame, new: pl.DataFrame, expected: int | None) -> int:
        """Store ``new`` where the caller showed ``old`` (read at version ``expected``).

        The smallest change is written: the added rounds are INSERTed, undone ones
        deleted (kept in the history), one changed round updated; anything else
        replaces the rounds. Refused with `StaleShoeError` if the shoe moved on.
        """
        k = min(old.height, new.height)
        same_head = old.head(k).equals(new.head(k))
        if same_head and new.height > old.height:
            return self.append(shoe_id, new.slice(old.height), expected)
        if same_head and new.height < old.height:
            return self.undo(shoe_id, expected, old.height - new.height)
        if new.height == old.height:
            diff = [i for i in range(new.height) if not new.slice(i, 1).equals(old.slice(i, 1))]
            if not diff:
                with self.db.write(ahead=self.shoes.ahead(shoe_id)) as c:
                    return self.shoes.checked(c, shoe_id, expected)[0]
            if len(diff) == 1:
                return self.edit(shoe_id, diff[0] + 1, new.slice(diff[0], 1), expected)
        return self.replace(shoe_id, new, expected)

    def void_in(self, c: Connection, shoe_id: str, round_no: int, expected: int | None) -> int:
        """Void a round (a misdeal) inside a transaction the caller holds (`write`): it leaves
        the shoe, later rounds move up one, and the history keeps its content (``voided``)."""
        version, n = self.shoes.checked(c, shoe_id, expected)
        if not 1 <= round_no <= n:
            raise StorageError(Message("msg_no_such_round", n=round_no, rounds=n))
        gone = frame_of(c.execute(_ONE, (shoe_id, round_no)).fetchall())
        c.execute("DELETE FROM rounds WHERE shoe = ? AND round = ?", (shoe_id, round_no))
        # two steps so that no moment holds two rows with one (shoe, round) key
        c.execute(
            "UPDATE rounds SET round = round + 1000000 WHERE shoe = ? AND round > ?",
            (shoe_id, round_no),
        )
        c.execute(
            "UPDATE rounds SET round = round - 1000001 WHERE shoe = ? AND round > 1000000",
            (shoe_id,),
        )
        version = self.shoes.bump(c, shoe_id, version, n - 1)
        self.history.log(c, shoe_id, "voided", version, n - 1, round_no, row_json(gone, 0))
        return version
