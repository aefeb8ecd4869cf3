"""Who may call what: operator tokens write, viewer tokens read.

* writes need an operator token (``Authorization: Bearer ...``), on any address;
* reads are open when the server listens on a loopback address only, and otherwise
  need a viewer (or operator) token. The event stream also takes ``?token=`` because
  a browser's ``EventSource`` cannot set headers.

A revoke holds from its commit on, on every replica: a write's token is asked again
inside the write's own transaction (`roads_app.api.service.Feed._once`), under the
write lock the revoke takes too; a read's is asked on a store thread; an event stream
ends at the first event after the process's watcher saw a revoke of its token. The
gate's early check, before a body is read, uses the tokens this process found, trusted
until its watcher sees a revoke (`Feed.token_role`). A screen key
(``roads-app token --screen``) is for the dashboard's display and wall only: the API
refuses it (403).
"""

from __future__ import annotations

import ipaddress
from typing import Annotated

from fastapi import Depends, Header, Query, Request

from roads_app.api.context import Ctx
from roads_app.api.limits import WRITER_CHECKED, Refusal
from roads_app.api.service import Feed
from roads_app.store import tokens

OPERATOR, VIEWER, SCREEN = "operator", "viewer", "screen"
SCREEN_ONLY = "a screen key is for the dashboard's display and wall only, not the API"


class Unauthorized(Refusal):
    """No usable token for this call (401) or the wrong kind of token (403)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(status, reason, {"WWW-Authenticate": "Bearer"} if status == 401 else None)


def is_loopback(host: str) -> bool:
    """Whether a listen address only accepts this machine (reads then need no token).

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(401, "the Authorization header must be 'Bearer <token>'")
    return token.strip()


def role_of(feed: Feed, token: str | None) -> str | None:
    if token is None:
        return None
    role = feed.token_role(token)
    if role is None:
        raise Unauthorized(401, "the token is not valid for this data folder")
    return role


def require_operator(feed: Feed, authorization: str | None) -> None:
    """The one rule for writes, run by the gate before any body byte is read."""
    role = role_of(feed, _bearer(authorization))
    if role is None:
        raise Unauthorized(
            401,
            "writing needs an operator token: Authorization: Bearer <token> "
            "(roads-app token --data DIR prints one)",
        )
    if role == SCREEN:
        raise Unauthorized(403, SCREEN_ONLY)
    if role != OPERATOR:
        raise Unauthorized(403, "a viewer token can read but not write: use an operator token")


async def operator(
    api: Ctx, request: Request, authorization: Annotated[str | None, Header()] = None
) -> str:
    """The rule for writes, checked here unless the gate checked this request already;
    the writer's token hash, which the write asks about again in its own transaction."""
    if not getattr(request.state, WRITER_CHECKED, False):
        require_operator(api.feed, authorization)
    return tokens.hash_token(_bearer(authorization) or "")


async def reader(
    api: Ctx,
    authorization: Annotated[str | None, Header()] = None,
    token: Annotated[
        str | None, Query(description="for EventSource, which cannot set headers")
    ] = None,
) -> str | None:
    """The rule for reads, asked of the library now (on a store thread); the reader's
    token hash (None: no token, on a loopback server)."""
    given = _bearer(authorization) or token
    if not given:
        if api.open_reads:
            return None
        raise Unauthorized(
            401,
            "this server is open to the network: reading needs a viewer token "
            "(roads-app token --viewer --data DIR prints one)",
        )
    key = tokens.hash_token(given)
    role = await api.run(api.feed.role_now, key)
    if role is None:
        raise Unauthorized(401, "the token is not valid for this data folder")
    if role == SCREEN:
        raise Unauthorized(403, SCREEN_ONLY)
    return key


Write = Depends(operator)
Read = Depends(reader)
Writer = Annotated[str, Write]
"""A write route's writer: its token's hash."""
Reader = Annotated[str | None, Read]
"""A read route's reader: its token's hash, None without one."""
