"""Shoes in the library: created, read, listed, renamed, ended, trashed and restored.

Every shoe carries a version number, bumped by each change. A checked change carries the
version its caller read; it is refused (`StaleShoeError`) when the shoe's rounds changed
since that version, or the shoe was deleted. A rename or a bet made meanwhile does not
make a tab stale (the old file store's rule: only the rounds must match). The checks
(`Shoes.current`, `Shoes.checked`) are the one gate every change of rounds or bets
goes through.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from roads_app.errors import RoundError, StorageError, quote
from roads_app.game.rounds import (
    ShoeMeta,
    check_name,
    check_shoe_id,
    empty_rounds,
    new_ids_within,
)
from roads_app.messages import Message
from roads_app.store.connection import (
    Connection,
    Database,
    bulk_cache,
    insert_frame,
    now,
    one_of,
    staged,
)
from roads_app.store.frames import (
    META_COLS,
    ROUND_COLS,
    SQL_ROUNDS,
    frame_of,
    meta_of,
    meta_row,
    rows_of,
)
from roads_app.store.history import History

LIST_SCHEMA: pl.Schema = pl.Schema(
    {
        "id": pl.String,
        "name": pl.String,
        "created": pl.String,
        "updated": pl.String,
        "rounds": pl.Int64,
        "source": pl.String,
        "rules": pl.String,
        "decks": pl.Int64,
        "version": pl.Int64,
        "deleted": pl.String,
        "ended": pl.String,
        "modified": pl.Float64,
        "error": pl.String,
    }
)
"""`Shoes.list` columns. ``modified`` is ``updated`` as a Unix time; ``error`` is
always null (kept so callers written for the file store still filter on it)."""


_META_TYPES: dict[str, pl.DataType] = {
    "created": pl.String(),
    "source": pl.String(),
    "decks": pl.Int64(),
    "seed": pl.Int64(),
    "rules": pl.String(),
    "notes": pl.String(),
    "burn_card": pl.String(),
    "cut": pl.Int64(),
}
"""The types of the metadata columns a file's shoes share (`Shoes.add_from_file`)."""

_BATCH: dict[str, pl.DataType] = {
    "shoe": pl.Int64(),
    "name": pl.String(),
    "origin": pl.String(),
    "id": pl.String(),
}
"""A batch's shoes as `file_batch` makes them (a batch of none has these too)."""


@dataclass(frozen=True)
class FileBatch:
    """A batch of a file's shoes made ready for `Shoes.add_from_file`: ``shoes`` (the
    shoe's number in the file, name, origin digest, new id, round count) and their
    ``rounds`` in the library's form under the new ids, in key order."""

    shoes: pl.DataFrame
    rounds: pl.DataFrame


def file_batch(
    rows: pl.DataFrame, names: pl.Series, origins: list[str], reach: tuple[float, float]
) -> FileBatch:
    """``rows`` (a batch's shoes whole in the library's form, `frames.sql_frame`, a
    ``shoe`` column first: each's number in the file) with ``names`` and ``origins``
    (`library.origins`' digests) in their shoes' order, each shoe given a new id. Any
    thread: no database is read.

    The new ids are random and ascend along the file: ``reach`` is where the batch lies
    in it (`streaming.Checked.reach`), the share of the id space its ids come from
    (`new_ids_within`). A batch's shoes, rounds and history then go into their indexes
    in key order, each a run of neighbouring pages rather than a page anywhere, and the
    next batch's after them rather than between them."""
    numbers = rows["shoe"].unique(maintain_order=True)
    shoes = pl.DataFrame(
        {
            "shoe": numbers,
            "name": names,
            "origin": origins,
            "id": new_ids_within(numbers.len(), reach),
        },
        schema_overrides=_BATCH,
    ).join(rows.group_by("shoe").len("rounds"), on="shoe", maintain_order="left")
    played = rows.join(shoes.select("shoe", "id"), on="shoe", maintain_order="left")
    return FileBatch(shoes, played.select(pl.col("id").alias("shoe"), *ROUND_COLS))


_GATE = "SELECT version, rounds, deleted, ended, name FROM shoes WHERE id = ?"
"""The row every checked change of a shoe reads first (`Shoes.current`)."""
_VERSION = "SELECT version FROM shoes WHERE id = ? AND deleted IS NULL"
"""A shoe's version while it is in the library (`Shoes.version`)."""


class StaleShoeError(StorageError):
    """The shoe changed since the caller read it (another tab, server or the CLI wrote it)."""


class ShoeEndedError(StorageError):
    """The shoe has ended: its rounds and bets are read-only (`Shoes.end`)."""


@dataclass(frozen=True)
class Saved:
    """A shoe as read from the store: its rounds, metadata and the version they are at."""

    rounds: pl.DataFrame
    meta: ShoeMeta
    version: int
    ended: str | None = None
    """When the shoe ended (None: still being played)."""


class Shoes:
    """The ``shoes`` table of a `Database` (with each shoe's rounds when one is made)."""

    def __init__(self, database: Database, history: History) -> None:
        self.db = database
        self.history = history

    # creating

    def insert(
        self,
        c: Connection,
        meta: ShoeMeta,
        rounds: pl.DataFrame,
        action: str,
        detail: str | None = None,
        updated: str | None = None,
    ) -> int:
        """A new shoe and its rounds inside the caller's write transaction; version 1."""
        return self.insert_many(c, [(rounds, meta)], action, detail, updated)

    def insert_many(
        self,
        c: Connection,
        shoes: list[tuple[pl.DataFrame, ShoeMeta]],
        action: str,
        detail: str | None = None,
        updated: str | None = None,
    ) -> int:
        """New shoes and their rounds inside the caller's write transaction, each at
        version 1; refused whole if any id is taken (even by a shoe in the trash). A few
        statements for the lot, not a few a shoe: an import's batch is hundreds."""
        ids = [meta.id for _, meta in shoes]
        for shoe_id in ids:
            check_shoe_id(shoe_id)
        self._refuse_taken(c, ids)
        when = updated or now()
        c.executemany(
            f"INSERT INTO shoes ({', '.join(META_COLS)}, updated, version, rounds) "
            f"VALUES ({', '.join('?' * len(META_COLS))}, ?, 1, ?)",
            [(*meta_row(meta).values(), when, rounds.height) for rounds, meta in shoes],
        )
        played = [(rounds, meta.id) for rounds, meta in shoes if rounds.height]
        if played:
            frame = pl.concat([r.select(ROUND_COLS) for r, _ in played], rechunk=False)
            shoe = pl.Series([i for r, i in played for _ in range(r.height)], dtype=pl.String)
            c.executemany(
                f"INSERT INTO rounds (shoe, {', '.join(ROUND_COLS)}) "
                f"VALUES (?, {', '.join('?' * len(ROUND_COLS))})",
                rows_of(frame, shoe),
            )
        self.history.log_many(
            c, [(meta.id, rounds.height) for rounds, meta in shoes], action, detail
        )
        return 1

    def add_from_file(
        self, batch: FileBatch, meta: ShoeMeta, staged_at: Path | None = None
    ) -> list[str | None]:
        """A batch of a file's shoes (`file_batch`) in one transaction, each at version
        1 under its new id, but those already in the library (in the trash too); ``meta``
        is what they share (id and name aside). Three bulk inserts for the lot, never a
        statement a shoe: the rounds staged (`connection.staged`; ``staged_at``: the
        file `connection.stage_frame` wrote them to, SQLite only), shoes and history
        with `connection.insert_frame`. Returns each shoe's new id, None for one already in."""
        with (
            staged(self.db, batch.rounds, staged_at) as rounds,
            self.db.write("import into") as c,
        ):
            origins = batch.shoes["origin"].to_list()
            among, param = one_of(c, origins)
            found = c.execute(f"SELECT origin FROM shoes WHERE origin{among}", (param,))
            have = list({r[0] for r in found.fetchall()})
            shoes = batch.shoes.filter(~pl.col("origin").is_in(have))
            if not shoes.height:
                return [None] * batch.shoes.height
            kept = shoes["id"].to_list()
            self._refuse_taken(c, kept)
            when = now()
            shared = {k: v for k, v in meta_row(meta).items() if k not in ("id", "name")}
            with bulk_cache(c):
                insert_frame(
                    c,
                    "shoes",
                    shoes.select(
                        "id",
                        "name",
                        *(pl.lit(v, dtype=_META_TYPES[k]).alias(k) for k, v in shared.items()),
                        pl.lit(when).alias("updated"),
                        pl.lit(1).alias("version"),
                        "rounds",
                        "origin",
                    ),
                )
                skipped = batch.shoes.filter(pl.col("origin").is_in(have))["id"].to_list()
                rounds.insert(c, "rounds", "shoe", skipped)
                insert_frame(
                    c,
                    "history",
                    shoes.select(
                        pl.col("id").alias("shoe"),
                        pl.lit(when).alias("at"),
                        pl.lit("imported").alias("action"),
                        pl.lit(1).alias("version"),
                        "rounds",
                    ),
                )
            for shoe_id in kept:
                self.db.notify(c, shoe_id, 1)
        return (
            batch.shoes.select("shoe")
            .join(shoes.select("shoe", "id"), on="shoe", how="left", maintain_order="left")["id"]
            .to_list()
        )

    @staticmethod
    def _refuse_taken(c: Connection, ids: list[str]) -> None:
        """Refuse new shoes whose id is taken (even by a shoe in the trash), or given twice."""
        among, param = one_of(c, ids)
        row = c.execute(
            f"SELECT id, deleted FROM shoes WHERE id{among} ORDER BY deleted IS NULL LIMIT 1",
            (param,),
        ).fetchone()
        if row is not None:
            taken = "msg_id_taken_trash" if row[1] else "msg_id_taken"
            raise StaleShoeError(Message(taken, id=row[0]))
        if len(set(ids)) < len(ids):
            twice = next(i for i in ids if ids.count(i) > 1)
            raise StaleShoeError(Message("msg_id_taken", id=twice))

    def create(
        self,
        meta: ShoeMeta,
        rounds: pl.DataFrame | None = None,
        *,
        action: str = "created",
        ended: bool = False,
    ) -> int:
        """Add a new shoe (refused if its id is taken, even by one in the trash); version 1.
        ``ended``: a whole shoe (dealt to the cut card's last hand), ended in the same
        transaction (version 2)."""
        frame = empty_rounds() if rounds is None else rounds
        with self.db.write() as c:
            version = self.insert(c, meta, frame, action)
            return self.end_in(c, meta.id) if ended else version

    def create_in(self, c: Connection, meta: ShoeMeta) -> int:
        """`create` (no rounds yet) inside a transaction the caller holds (`write`)."""
        return self.insert(c, meta, empty_rounds(), "created")

    def create_many(
        self, shoes: Iterable[tuple[pl.DataFrame, ShoeMeta]], *, action: str = "imported"
    ) -> int:
        """Add many shoes in one transaction (all or none); how many."""
        batch = list(shoes)
        with self.db.write() as c:
            self.insert_many(c, batch, action)
        return len(batch)

    # the gate every change goes through

    def current(self, c: Connection, shoe_id: str, *, playing: bool = False) -> tuple[int, int]:
        """(version, rounds) of a shoe in the library; StorageError if missing or trashed.

        ``playing``: the change is to the shoe's play (rounds, bets), which an ended shoe
        refuses (`ShoeEndedError`): the one rule every door (a page, the CLI, the API)
        goes through. A rename or the trash still work on an ended shoe.
        """
        row = c.execute(_GATE, (shoe_id,)).fetchone()
        if row is None:
            raise StorageError(Message("msg_no_saved_shoe", id=repr(shoe_id), folder=self.db.place))
        if row[2] is not None:
            raise StaleShoeError(Message("msg_deleted_elsewhere", id=shoe_id))
        if playing and row[3] is not None:
            raise ShoeEndedError(Message("msg_shoe_ended", name=quote(row[4] or shoe_id)))
        return int(row[0]), int(row[1])

    def checked(self, c: Connection, shoe_id: str, expected: int | None) -> tuple[int, int]:
        """Refuse if the rounds changed after version ``expected``, or the shoe has ended;
        (version, rounds) now."""
        version, n = self.current(c, shoe_id, playing=True)
        if expected is None or expected == version:
            return version, n
        if self.history.rounds_moved(c, shoe_id, expected) or expected > version:
            had = self.history.rounds_at(c, shoe_id, expected)
            raise StaleShoeError(
                Message("msg_changed_elsewhere_here", id=shoe_id, n=n, had=had)
                if had is not None
                else Message("msg_changed_elsewhere", id=shoe_id, n=n)
            )
        return version, n

    @staticmethod
    def ahead(shoe_id: str, *, version: bool = True) -> list[tuple[str, tuple[str]]]:
        """The reads a checked change of a shoe makes first (its gate row, its version
        unless the caller read it already), for `Database.write` to send with the lock."""
        return [(_GATE, (shoe_id,)), *([(_VERSION, (shoe_id,))] if version else [])]

    @staticmethod
    def bump(c: Connection, shoe_id: str, version: int, rounds: int) -> int:
        """The shoe's next version, with its round count and time of change; returns it."""
        c.execute(
            "UPDATE shoes SET version = ?, rounds = ?, updated = ? WHERE id = ?",
            (version + 1, rounds, now(), shoe_id),
        )
        return version + 1

    # changing

    def update_meta(
        self, meta: ShoeMeta, expected: int | None = None, action: str = "changed"
    ) -> int:
        """Store a shoe's metadata (name, notes, rules...); its id says which shoe."""
        with self.db.write(ahead=self.ahead(meta.id)) as c:
            version, n = self.checked(c, meta.id, expected)
            old = self.meta_in(c, meta.id)
            m = meta_row(meta)
            sets = ", ".join(f"{k} = ?" for k in META_COLS[1:])
            c.execute(
                f"UPDATE shoes SET {sets} WHERE id = ?", (*(m[k] for k in META_COLS[1:]), meta.id)
            )
            version = self.bump(c, meta.id, version, n)
            new = meta.to_dict()
            changed = {
                k: [old.to_dict()[k], new[k]] for k in META_COLS if old.to_dict()[k] != new[k]
            }
            self.history.log(c, meta.id, action, version, n, None, json.dumps(changed))
            return version

    def rename(self, shoe_id: str, name: str) -> ShoeMeta:
        """A new name for a shoe (the one name rule, `check_name`); the rounds are untouched."""
        try:
            name = check_name(name)
        except RoundError as e:  # the store's callers get the store's error, same words
            raise StorageError(e.message) from None
        with self.db.write(ahead=self.ahead(shoe_id)) as c:
            version, n = self.current(c, shoe_id)
            old = self.meta_in(c, shoe_id)
            c.execute("UPDATE shoes SET name = ? WHERE id = ?", (name, shoe_id))
            version = self.bump(c, shoe_id, version, n)
            self.history.log(c, shoe_id, "renamed", version, n, None, json.dumps([old.name, name]))
            return ShoeMeta.from_dict({**old.to_dict(), "name": name})

    def end(self, shoe_id: str) -> int:
        """End a shoe (the cut card's last hand was played, or the table closed it): it
        leaves the wall of live tables and its rounds and bets become read-only. Ending
        an ended shoe is refused. New version."""
        with self.db.write(ahead=self.ahead(shoe_id)) as c:
            return self.end_in(c, shoe_id)

    def end_in(self, c: Connection, shoe_id: str) -> int:
        """`end` inside a transaction the caller holds (`write`)."""
        version, n = self.current(c, shoe_id, playing=True)
        version = self.bump(c, shoe_id, version, n)
        c.execute("UPDATE shoes SET ended = ? WHERE id = ?", (now(), shoe_id))
        self.history.log(c, shoe_id, "ended", version, n)
        return version

    def delete(self, shoe_id: str) -> int:
        """Move a shoe (with its bets) to the trash; `restore` brings it back. New version."""
        with self.db.write(ahead=self.ahead(shoe_id)) as c:
            version, n = self.current(c, shoe_id)
            version = self.bump(c, shoe_id, version, n)
            c.execute("UPDATE shoes SET deleted = ? WHERE id = ?", (now(), shoe_id))
            self.history.log(c, shoe_id, "deleted", version, n)
            return version

    def restore(self, shoe_id: str) -> int:
        """Bring a shoe back from the trash, as it was. New version."""
        with self.db.write() as c:
            row = c.execute(
                "SELECT version, rounds, deleted FROM shoes WHERE id = ?", (shoe_id,)
            ).fetchone()
            if row is None:
                raise StorageError(
                    Message("msg_shoe_purged", id=quote(shoe_id))
                    if self.history.was_purged(c, shoe_id)
                    else Message("msg_shoe_not_here", id=quote(shoe_id), folder=self.db.place)
                )
            if row[2] is None:
                raise StorageError(Message("msg_shoe_not_in_trash", id=quote(shoe_id)))
            version = self.bump(c, shoe_id, int(row[0]), int(row[1]))
            c.execute("UPDATE shoes SET deleted = NULL WHERE id = ?", (shoe_id,))
            self.history.log(c, shoe_id, "restored", version, int(row[1]))
            return version

    def empty_trash(self, ids: list[str] | None = None) -> int:
        """Remove shoes in the trash (all, or ``ids``) for good; how many. Final."""
        with self.db.write() as c:
            if ids is None:
                ids = [r[0] for r in c.execute("SELECT id FROM shoes WHERE deleted IS NOT NULL")]
            gone = 0
            for shoe_id in ids:
                row = c.execute(
                    "SELECT version, rounds FROM shoes WHERE id = ? AND deleted IS NOT NULL",
                    (shoe_id,),
                ).fetchone()
                if row is None:
                    raise StorageError(Message("msg_shoe_not_in_trash", id=quote(shoe_id)))
                c.execute("DELETE FROM shoes WHERE id = ?", (shoe_id,))
                self.history.log(c, shoe_id, "purged", int(row[0]) + 1, int(row[1]))
                gone += 1
            return gone

    # reading

    @staticmethod
    def meta_in(c: Connection, shoe_id: str) -> ShoeMeta:
        """A shoe's metadata inside the caller's transaction (the shoe must exist)."""
        row = c.execute(
            f"SELECT {', '.join(META_COLS)} FROM shoes WHERE id = ?", (shoe_id,)
        ).fetchone()
        return meta_of(row)

    def meta(self, shoe_id: str) -> ShoeMeta:
        """A shoe's metadata alone (one indexed lookup)."""
        row = self.db.con.execute(
            f"SELECT {', '.join(META_COLS)} FROM shoes WHERE id = ?", (shoe_id,)
        ).fetchone()
        if row is None:
            raise StorageError(Message("msg_no_shoe_with_id", id=shoe_id, folder=self.db.place))
        return meta_of(row)

    def load(self, shoe_id: str) -> Saved:
        """A shoe's rounds (one query, straight into the rounds frame), metadata and version."""
        with self.db.read() as c:
            return self.load_in(c, shoe_id)

    def load_in(self, c: Connection, shoe_id: str) -> Saved:
        """`load` inside a transaction the caller holds (`read` or `write`)."""
        row = c.execute(
            f"SELECT {', '.join(META_COLS)}, version, ended, deleted FROM shoes WHERE id = ?",
            (shoe_id,),
        ).fetchone()
        if row is None:
            raise StorageError(Message("msg_no_shoe_with_id", id=shoe_id, folder=self.db.place))
        if row[-1] is not None:
            raise StorageError(Message("msg_shoe_in_trash", id=shoe_id))
        rounds = frame_of(c.execute(SQL_ROUNDS, (shoe_id,)).fetchall())
        return Saved(rounds, meta_of(row[: len(META_COLS)]), int(row[-3]), row[-2])

    def version(self, shoe_id: str) -> int | None:
        """The shoe's version now (None if missing or in the trash): one indexed lookup."""
        try:
            row = self.db.con.execute(_VERSION, (shoe_id,)).fetchone()
        except self.db.errors as e:
            raise self.db.translate(e, "read") from None
        return None if row is None else int(row[0])

    def ended(self, shoe_id: str) -> str | None:
        """When the shoe ended (None: still being played, or no such shoe)."""
        row = self.db.con.execute("SELECT ended FROM shoes WHERE id = ?", (shoe_id,)).fetchone()
        return None if row is None else row[0]

    def list(
        self,
        *,
        trash: bool = False,
        source: str | None = None,
        limit: int | None = None,
        live: bool = False,
    ) -> pl.DataFrame:
        """The library (or the trash), most recently changed first; one query.

        ``source`` keeps shoes of one source (the wall: ``hand``), ``limit`` the newest
        few, ``live`` those not ended.
        """
        where = "deleted IS NOT NULL" if trash else "deleted IS NULL"
        if live:
            where += " AND ended IS NULL"
        params: list[Any] = []
        if source is not None:
            where += " AND source = ?"
            params.append(source)
        tail = ""
        if limit is not None:
            tail = " LIMIT ?"
            params.append(int(limit))
        try:
            rows = self.db.con.execute(
                "SELECT id, name, created, updated, rounds, source, rules, decks, version, "
                f"deleted, ended FROM shoes WHERE {where} ORDER BY updated DESC{tail}",
                params,
            ).fetchall()
        except self.db.errors as e:
            raise self.db.translate(e, "read") from None
        names = LIST_SCHEMA.names()[:-2]
        columns = zip(*rows, strict=True) if rows else ([] for _ in names)
        frame = pl.DataFrame(
            dict(zip(names, columns, strict=True)), schema={k: LIST_SCHEMA[k] for k in names}
        )
        updated = pl.col("updated").str.strptime(
            pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%S%.f%:z"
        )
        return frame.with_columns(
            modified=updated.dt.epoch("us") / 1e6, error=pl.lit(None, dtype=pl.String)
        )
