"""API tokens: who may write (operator) and who may read an exposed server (viewer).

A token is 32 random bytes (URL-safe text with a readable prefix). The database keeps
only its SHA-256, so a copy of ``roads.db`` gives nobody a token; a plain hash is
enough because the token is random, not a password a person chose. Since the token
itself is never kept, it is printed once, when it is made.

A screen key may be bound to one floor table; what such a key may show (that table, its
shoes, its tile on the wall: nothing of another table or of a shoe of none) is decided
here once (`sees`), for the dashboard's pages and for the routes their followers ask.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from pathlib import Path

from roads_app.errors import FloorError, RoadsAppError, quote
from roads_app.game.floor import CODE_MAX, check_table_code
from roads_app.messages import Message
from roads_app.store import db
from roads_app.store.watch import TABLE_KEY

ROLES: tuple[str, ...] = ("operator", "viewer", "screen")
_PREFIX = {"operator": "ra_op_", "viewer": "ra_vw_", "screen": "ra_sc_"}
SCREEN_PREFIX = _PREFIX["screen"]
"""How a screen key begins: a dashboard keeps such a key in the display's link."""


class CredentialError(RoadsAppError):
    """A request that names more than one credential (400): which one counts would be a
    guess, and a gateway that checked the first would be bypassed by the last."""


def one_credential(given: list[str], where: str) -> str | None:
    """The one credential a request gives (its ``Authorization`` headers and ``?token=``
    values, or a page's follower header), None for none; more than one is refused.

    >>> one_credential([], "x"), one_credential(["Bearer a"], "x")
    (None, 'Bearer a')
    >>> one_credential(["Bearer a", "Bearer b"], "the request")
    Traceback (most recent call last):
    roads_app.store.tokens.CredentialError: the request gives 2 credentials ...
    """
    if len(given) > 1:
        raise CredentialError(
            Message(
                "msg_credentials_many",
                where=where,
                n=len(given),
                header="Authorization",
                param="?token=",
            )
        )
    return given[0] if given else None


def hash_token(token: str) -> str:
    """What the database keeps of a token.

    >>> len(hash_token("ra_op_x")), hash_token("a") == hash_token("a")
    (64, True)
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _check_role(role: str) -> str:
    if role not in ROLES:
        raise RoadsAppError(Message("msg_token_role", role=quote(role), roles=", ".join(ROLES)))
    return role


def issue(data_dir: Path, role: str = "operator", *, again: bool = False) -> str:
    """A new token of ``role``; refused when one exists unless ``again`` (it cannot be
    shown twice: only its hash is kept)."""
    store = db.open_store(data_dir)
    if _check_role(role) == "screen":
        raise RoadsAppError(Message("msg_token_role", role=quote(role), roles="operator, viewer"))
    if store.tokens.count(role) and not again:
        flag = "" if role == "operator" else " --viewer"
        key = "msg_token_exists_operator" if role == "operator" else "msg_token_exists_viewer"
        raise RoadsAppError(Message(key, new=f"roads-app token{flag} --new", revoke="--revoke-all"))
    token = _PREFIX[role] + secrets.token_urlsafe(32)
    store.tokens.add(hash_token(token), role)
    return token


def issue_screen(data_dir: Path, table: str | None = None) -> str:
    """A new screen key: read-only, for the display and the wall only (of ``table``, a
    floor table's code, or of any table), kept until revoked. Only its hash is kept."""
    try:
        code = None if table is None else check_table_code(table)  # as the floor keeps it
    except FloorError:
        raise RoadsAppError(
            Message("msg_screen_table", option="--table", most=CODE_MAX, table=quote(table))
        ) from None
    key = SCREEN_PREFIX + secrets.token_urlsafe(32)
    db.open_store(data_dir).tokens.add_screen(hash_token(key), code)
    return key


# --- what a table's screen key shows: the one rule, for every page and route ---------------


def sees(bound: str | None, table: str | None) -> bool:
    """Whether a key bound to the floor table ``bound`` (None: a key of no one table)
    may show what belongs to ``table`` (a table's code; None: a shoe of no table).

    >>> sees(None, "C01"), sees("B07", "B07"), sees("b07", "B07")
    (True, True, True)
    >>> sees("B07", "C01"), sees("B07", None)
    (False, False)
    """
    return bound is None or (table is not None and bound.upper() == table.upper())


def screen_sees(store: db.Store, bound: str | None, followed: str) -> bool:
    """`sees` for what a page or a follower asks for: a shoe id (the table it was dealt
    at, `Floor.place_of`) or ``table:<code>`` (`watch.TABLE_KEY`)."""
    if bound is None:
        return True
    if followed.startswith(TABLE_KEY):
        return sees(bound, followed.removeprefix(TABLE_KEY))
    place = store.floor.place_of(followed)
    return sees(bound, None if place is None else place.table)


def screen_keeps(store: db.Store, bound: str | None, shoe_ids: Iterable[str]) -> set[str]:
    """Those of ``shoe_ids`` a key bound to ``bound`` may show (`sees`): the wall's
    shoes, on its page and in its follower's answer."""
    ids = set(shoe_ids)
    if bound is None:
        return ids
    return {s for s, table in store.floor.tables_of(ids).items() if sees(bound, table)}


def role_of(data_dir: Path, token: str) -> str | None:
    """``operator``, ``viewer`` or None for a token nobody issued (or one revoked)."""
    return db.open_store(data_dir).tokens.role(hash_token(token))


def revoke_all(data_dir: Path, role: str) -> int:
    """Invalidate every token of a role (``screen``: every screen key); how many there
    were. Every process on the library acts on it from its commit on."""
    return db.open_store(data_dir).tokens.revoke(_check_role(role))
