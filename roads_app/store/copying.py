"""Moving a library: every shoe, round, bet, history row, token hash and remembered API
answer from one database to another (SQLite file ↔ PostgreSQL, either way round).

The copy is one transaction on the target: it lands whole or not at all. A target that
already holds shoes (or their history) is refused untouched. Before it commits, the
target's rows are read back and each side's counts and a checksum of every shoe's
rounds compared; if they differ the copy is rolled back.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roads_app.errors import StorageError, shown_path
from roads_app.messages import Message
from roads_app.store import pg
from roads_app.store.connection import DB_NAME
from roads_app.store.db import Store

TABLES = ("shoes", "rounds", "bets", "history", "api_tokens", "screen_keys", "api_requests")
"""In insertion order (rounds and bets refer to shoes). ``settings`` and
``schema_migrations`` belong to each database itself."""
_ORDER = {
    "shoes": "id",
    "rounds": "shoe, round",
    "bets": "shoe, kind, id",
    "history": "seq",
    "api_tokens": "hash",
    "screen_keys": "hash",
    "api_requests": "key",
}
_FROM_BOTH = ("api_tokens", "screen_keys", "api_requests")  # a target may have issued its own: kept


@dataclass(frozen=True)
class Summary:
    """One side of a copy: where, how many rows of each table, the rounds' checksum."""

    where: str
    counts: dict[str, int]
    checksum: str

    def line(self) -> str:
        c = self.counts
        return (
            f"{self.where}: {c['shoes']} shoes, {c['rounds']} rounds, {c['bets']} bets, "
            f"{c['history']} history rows, {c['api_tokens']} token hashes; "
            f"rounds checksum {self.checksum}"
        )


def open_side(text: str, *, source: bool = False) -> Store:
    """A side of a copy: a PostgreSQL URL, a data folder, or a SQLite file (``roads.db``
    in its folder). ``ROADS_APP_DB`` plays no part: both sides are named. A source folder
    must hold a library (none is made there)."""
    if pg.is_url(text):
        return Store(Path("."), url=pg.check_url(text), from_env=False)
    path = Path(text).expanduser()
    if path.is_file() or path.suffix == ".db":
        if path.name != DB_NAME:
            raise StorageError(Message("msg_copy_file_name", path=shown_path(text), name=DB_NAME))
        path = path.parent
    if source and not (path / DB_NAME).is_file():
        raise StorageError(Message("msg_copy_no_source", path=shown_path(text), name=DB_NAME))
    return Store(path, from_env=False)


def _where(store: Store) -> str:
    return str(store.where)


def _summary(c: Any, where: str) -> Summary:
    counts = {t: int(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in TABLES}
    per: dict[str, Any] = {}
    rows = c.execute(
        "SELECT shoe, round, winner, player_points, banker_points, player_pair, banker_pair, "
        "player_natural, banker_natural, player_cards, banker_cards FROM rounds"
    ).fetchall()
    for row in sorted(rows, key=lambda r: (r[0], r[1])):  # the same order on both databases
        h = per.get(row[0]) or per.setdefault(row[0], hashlib.sha256())
        h.update(("\t".join("" if v is None else str(v) for v in row[1:]) + "\n").encode())
    digest = hashlib.sha256()
    for shoe in sorted(per):
        digest.update(f"{shoe}:{per[shoe].hexdigest()}\n".encode())
    return Summary(where, counts, digest.hexdigest()[:16])


def copy_library(source: Store, target: Store) -> tuple[Summary, Summary]:
    """Copy everything from ``source`` into the empty ``target`` in one transaction;
    both sides' summaries (equal, or nothing was written)."""
    if source.backend == target.backend and (
        source.url == target.url if source.url else source.path == target.path
    ):
        raise StorageError(Message("msg_copy_same", where=_where(source)))
    with source.read() as s:
        before = _summary(s, _where(source))
        rows: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
        for t in TABLES:
            cur = s.execute(f"SELECT * FROM {t} ORDER BY {_ORDER[t]}")
            names = [d[0] for d in cur.description]
            rows[t] = (names, [tuple(r) for r in cur.fetchall()])
    with target.write("copy into") as c:
        held = [
            int(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in ("shoes", "history")
        ]
        if any(held):
            raise StorageError(
                Message(
                    "msg_copy_target_not_empty",
                    where=_where(target),
                    shoes=held[0],
                    history=held[1],
                )
            )
        for t in TABLES:
            names, data = rows[t]
            if not data:
                continue
            cols = ", ".join(names)
            marks = ", ".join("?" * len(names))
            tail = " ON CONFLICT DO NOTHING" if t in _FROM_BOTH else ""
            c.executemany(f"INSERT INTO {t} ({cols}) VALUES ({marks}){tail}", data)
        if target.url is not None:  # the history's sequence goes on after the copied rows
            c.execute(
                "SELECT setval(pg_get_serial_sequence('history', 'seq'), "
                "(SELECT coalesce(max(seq), 0) + 1 FROM history), false)"
            )
        for shoe_id, version in c.execute("SELECT id, version FROM shoes").fetchall():
            target.notify(c, shoe_id, int(version))  # the target's followers see them
        after = _summary(c, _where(target))
        mine = {k: v for k, v in after.counts.items() if k not in _FROM_BOTH}
        theirs = {k: v for k, v in before.counts.items() if k not in _FROM_BOTH}
        if mine != theirs or after.checksum != before.checksum:
            raise StorageError(
                Message("msg_copy_differs", source=before.line(), target=after.line())
            )
    return before, after
