"""The live feed's tables: requests answered once (idempotency) and API tokens (hashes).

The API (`roads_app.api`) is their one user; the core keeps them because a request's
answer is stored in the same transaction as the change it made.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from roads_app.errors import StorageError
from roads_app.messages import Message
from roads_app.store.connection import Connection, Database, now

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


class Tokens:
    """The ``api_tokens`` table: the hashes of the tokens issued, with their roles."""

    def __init__(self, database: Database) -> None:
        self.db = database

    def add(self, token_hash: str, role: str) -> None:
        with self.db.write() as c:
            c.execute(
                "INSERT INTO api_tokens (hash, role, created) VALUES (?, ?, ?)",
                (token_hash, role, now()),
            )

    def role(self, token_hash: str) -> str | None:
        """The role of a token (by its hash), or None if no such token."""
        try:
            row = self.db.con.execute(
                "SELECT role FROM api_tokens WHERE hash = ?", (token_hash,)
            ).fetchone()
        except self.db.errors as e:
            raise self.db.translate(e, "read") from None
        return None if row is None else str(row[0])

    def count(self, role: str) -> int:
        return int(
            self.db.con.execute(
                "SELECT count(*) FROM api_tokens WHERE role = ?", (role,)
            ).fetchone()[0]
        )

    def revoke(self, role: str) -> int:
        with self.db.write() as c:
            return c.execute("DELETE FROM api_tokens WHERE role = ?", (role,)).rowcount
