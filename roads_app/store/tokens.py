"""API tokens: who may write (operator) and who may read an exposed server (viewer).

A token is 32 random bytes (URL-safe text with a readable prefix). The database keeps
only its SHA-256, so a copy of ``roads.db`` gives nobody a token; a plain hash is
enough because the token is random, not a password a person chose. Since the token
itself is never kept, it is printed once, when it is made.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from pathlib import Path

from roads_app.errors import RoadsAppError, quote
from roads_app.messages import Message
from roads_app.store import db

ROLES: tuple[str, ...] = ("operator", "viewer", "screen")
_PREFIX = {"operator": "ra_op_", "viewer": "ra_vw_", "screen": "ra_sc_"}
SCREEN_PREFIX = _PREFIX["screen"]
"""How a screen key begins: a dashboard keeps such a key in the display's link."""
_TABLE_CODE = re.compile(r"[A-Za-z0-9_-]{1,32}")


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
    if table is not None and not _TABLE_CODE.fullmatch(table):
        raise RoadsAppError(Message("msg_screen_table", option="--table", table=quote(table)))
    key = SCREEN_PREFIX + secrets.token_urlsafe(32)
    db.open_store(data_dir).tokens.add_screen(hash_token(key), table)
    return key


def role_of(data_dir: Path, token: str) -> str | None:
    """``operator``, ``viewer`` or None for a token nobody issued (or one revoked)."""
    return db.open_store(data_dir).tokens.role(hash_token(token))


def revoke_all(data_dir: Path, role: str) -> int:
    """Invalidate every token of a role (``screen``: every screen key); how many there
    were. Every process on the library acts on it from its commit on."""
    return db.open_store(data_dir).tokens.revoke(_check_role(role))
