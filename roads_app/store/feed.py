"""The live feed's tables: requests answered once (idempotency) and API tokens (hashes).

The API (`roads_app.api`) is their one user; the core keeps them because a request's
answer is stored in the same transaction as the change it made.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from roads_app.errors import StorageError
from roads_app.messages import Message
from roads_app.store.connection import Connection, Database, now
from roads_app.store.pg import TOKENS_NEWS

_ANSWER = "SELECT fingerprint, status, body FROM api_requests WHERE key = ?"


class RequestKeyReused(StorageError):
    """An API Idempotency-Key sent again with a different request."""


class Requests:
    """The ``api_requests`` table: what each Idempotency-Key was answered."""

    def __init__(self, database: Database) -> None:
        self.db = database

    def once(
        self,
        key: str | None,
        fingerprint: str,
        shoe_id: str | None,
        do: Callable[[Connection], tuple[int, dict[str, Any]]],
        *,
        ahead: Sequence[tuple[str, tuple[Any, ...]]] = (),
        first: Callable[[], object] | None = None,
    ) -> tuple[int, dict[str, Any], bool]:
        """Run ``do`` (a change, given the open write transaction) once per ``key``.

        The answer is stored in the same transaction as the change, so a request retried
        with the same key gets the first answer again (third item True) and changes
        nothing, whether the first one's answer was lost or not. A refused request
        (``do`` raises) stores nothing. A key reused for a different request is refused.

        ``first`` runs before the key is looked up (the shoe must exist), inside the
        transaction; ``ahead``: the reads ``first`` and ``do`` make first (`Database.write`).
        """
        reads = [*([(_ANSWER, (key,))] if key is not None else []), *ahead]
        with self.db.write(ahead=reads) as c:
            if first is not None:
                first()
            if key is not None:
                row = c.execute(_ANSWER, (key,)).fetchone()
                if row is not None:
                    if row[0] != fingerprint:
                        raise RequestKeyReused(
                            Message("msg_key_reused", header="Idempotency-Key", value=repr(key))
                        )
                    return int(row[1]), json.loads(row[2]), True
            status, body = do(c)
            if key is not None:
                c.execute(
                    "INSERT INTO api_requests (key, fingerprint, shoe, status, body, at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (key, fingerprint, shoe_id, status, json.dumps(body), now()),
                )
            return status, body, False

    def forget(self, before: str) -> int:
        """Drop remembered answers older than ``before`` (an ISO time); how many."""
        with self.db.write() as c:
            return c.execute("DELETE FROM api_requests WHERE at < ?", (before,)).rowcount


_KEY = (
    "SELECT role, NULL, NULL FROM api_tokens WHERE hash = ? "
    "UNION ALL SELECT 'screen', table_code, revoked FROM screen_keys WHERE hash = ?"
)
GENERATION = "SELECT value FROM settings WHERE key = 'tokens'"
"""The keys' generation (no row: 0), bumped by every revoke; the watcher reads it too."""
_BUMP = (
    "INSERT INTO settings (key, value) VALUES ('tokens', '1') ON CONFLICT (key) "
    "DO UPDATE SET value = CAST(CAST(settings.value AS INTEGER) + 1 AS TEXT)"
)


@dataclass(frozen=True)
class Key:
    """What a token or screen key (by its hash) is: its role (``operator``, ``viewer``,
    ``screen``), the floor table a screen key is for (None: any), and whether it was
    revoked (a screen key is kept as revoked, so its screen can say so)."""

    role: str
    table: str | None = None
    revoked: bool = False


class Tokens:
    """The ``api_tokens`` table (the hashes of the tokens issued, with their roles) and
    ``screen_keys`` (the display's and the wall's keys), and the generation every
    revoke bumps in ``settings`` (``tokens``): a process trusts a key it found until it
    sees the generation move (`roads_app.store.watch`)."""

    def __init__(self, database: Database) -> None:
        self.db = database

    def add(self, token_hash: str, role: str) -> None:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO api_tokens (hash, role, created) VALUES (?, ?, ?)",
                (token_hash, role, now()),
            )

    def add_screen(self, key_hash: str, table: str | None) -> None:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO screen_keys (hash, table_code, created) VALUES (?, ?, ?)",
                (key_hash, table, now()),
            )

    @staticmethod
    def ahead(token_hash: str) -> list[tuple[str, tuple[Any, ...]]]:
        """The read `key` makes, for a write transaction to send with its lock."""
        return [(_KEY, (token_hash, token_hash))]

    def key(self, token_hash: str) -> Key | None:
        """The token or screen key of this hash, None if nobody issued it (or it was
        revoked: a token's row is gone; a screen key's says ``revoked``). Inside a write
        transaction it reads what that transaction sees (the lock is held: no revoke
        can commit between this read and the change)."""
        try:
            row = self.db.con.execute(_KEY, (token_hash, token_hash)).fetchone()
        except self.db.errors as e:
            raise self.db.translate(e, "read") from None
        if row is None:
            return None
        return Key(str(row[0]), None if row[1] is None else str(row[1]), row[2] is not None)

    def role(self, token_hash: str) -> str | None:
        """The role of a token or screen key (by its hash) that holds now, or None."""
        found = self.key(token_hash)
        return None if found is None or found.revoked else found.role

    def count(self, role: str) -> int:
        return int(
            self.db.con.execute(
                "SELECT count(*) FROM api_tokens WHERE role = ?", (role,)
            ).fetchone()[0]
        )

    def revoke(self, role: str) -> int:
        """Every token of ``role`` (``screen``: every screen key) stops holding, in one
        transaction that also bumps the generation and, on a server, tells every
        process (`TOKENS_NEWS`); how many there were."""
        with self.db.write() as c:
            if role == "screen":  # counted first: a server's UPDATE is sent with the COMMIT
                held = "FROM screen_keys WHERE revoked IS NULL"
                n = int(c.execute(f"SELECT count(*) {held}").fetchone()[0])
                c.execute("UPDATE screen_keys SET revoked = ? WHERE revoked IS NULL", (now(),))
            else:
                n = c.execute("DELETE FROM api_tokens WHERE role = ?", (role,)).rowcount
            c.execute(_BUMP)
            self.db.notify(c, TOKENS_NEWS, 0)
            return n
