"""The gate in front of the API: who may write and how big a body may be, before any
body byte is read.

FastAPI reads and parses a request's whole body before its dependencies run, so a
token checked by a dependency comes too late: a 300 MB POST without a token was read
into memory (the server grew by 900 MB) before its 401. This ASGI middleware runs
first, on the headers alone:

0. a request that gives more than one credential (two ``Authorization`` headers, or a
   header and ``?token=``) is refused at once (400): which one counts would be a guess,
   and a balancer that checked the first would be bypassed by the last;
1. a write (POST, PUT, PATCH, DELETE) without an operator token is refused at once;
2. a body whose ``Content-Length`` is over its route's cap is refused at once (413);
3. any other body is read up to its cap, chunked or not, and a body that goes past it
   is refused there (413) without reading the rest;
4. the body read is handed to the app as it came.

A refusal before the body was read says ``Connection: close``: the rest of the body
is never read, and the connection is not reused.

Caps are per route template (`BODY_CAPS`); a route not in the table gets
`DEFAULT_BODY_CAP`, so a new JSON route is capped without touching this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs

from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from roads_app.store import tokens

KB = 1024

DEFAULT_BODY_CAP = 4 * KB
"""Any body of a route not in `BODY_CAPS` (a shoe creation is under 300 bytes)."""

BODY_CAPS: dict[str, int] = {
    "/shoes/{shoe_id}/rounds": 2 * KB,  # a round by cards is under 120 bytes
    "/shoes": 4 * KB,  # a new shoe: a name of at most 200 characters, a table, decks
    "/shoes/{shoe_id}/end": 64,  # no body at all (an empty JSON object at most)
    "/tables/{code}/rounds": 2 * KB,  # a round, as a shoe's
    "/tables/{code}/shuffle": 64,  # no body
    "/tables/{code}/state": 256,  # {"state": "shuffling"}
}
"""Largest body per route template, in bytes."""

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
WRITER_CHECKED = "roads_app_writer_checked"
"""Set in a request's state when the gate has let its writer through, so the route's
own check (`roads_app.api.access.operator`) does not look the token up a second time
(on a server, one round trip less per write)."""


class Refusal(Exception):
    """A request refused by the gate: status, one line, extra headers."""

    def __init__(self, status: int, detail: str, headers: Mapping[str, str] | None = None):
        super().__init__(detail)
        self.status = status
        self.headers = dict(headers or {})


def size(n: int) -> str:
    """A byte count for a message.

    >>> size(2048), size(100)
    ('2 KB', '100 bytes')
    """
    return f"{n // KB} KB" if n >= KB and n % KB == 0 else f"{n} bytes"


class Gate:
    """ASGI middleware: refuse unauthenticated writes and oversized bodies before reading.

    ``writer`` takes the ``Authorization`` header (or None) and returns nothing or raises
    `Refusal` (the same rule the routes' dependency uses); ``routes`` is the app whose
    route templates pick the cap; ``refused`` is told the status of each refusal (the
    metrics count them).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        writer: Callable[[str | None], None],
        routes: Callable[[], list[Any]],
        caps: Mapping[str, int] = BODY_CAPS,
        default_cap: int = DEFAULT_BODY_CAP,
        refused: Callable[[int], None] | None = None,
    ) -> None:
        self.app = app
        self.refused = refused
        self.writer = writer
        self.routes = routes
        self.caps = caps
        self.default_cap = default_cap
        self._all: list[Any] | None = None  # the routes, listed at the first request
        self._capped: list[tuple[Any, int, str]] = []  # those with a cap of their own

    def cap_for(self, scope: Scope) -> tuple[int, str]:
        """The cap of the route this request goes to, and the route's template.

        The routes with caps of their own (the writes with bodies) are tried first: a
        feeder's append is the most frequent request, and a route matched late in the
        list (a table's after every shoe route) paid a match per route before it."""
        if self._all is None:
            self._all = self.routes()
            paths = [(r, getattr(r, "path", "")) for r in self._all]
            self._capped = [(r, self.caps[t], t) for r, t in paths if t in self.caps]
        for route, cap, template in self._capped:
            if route.matches(scope)[0] is Match.FULL:
                return cap, template
        for route in self._all:
            match, _ = route.matches(scope)
            if match is not Match.NONE:
                template = getattr(route, "path", "")
                return self.caps.get(template, self.default_cap), template
        return self.default_cap, ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            _one_credential(scope)
            if scope["method"] in WRITES:
                self.writer(headers.get("authorization"))
                scope.setdefault("state", {})[WRITER_CHECKED] = True
            cap, template = self.cap_for(scope)
            what = f"{scope['method']} {template}" if template else "a request"
            declared = _length(headers)
            if declared is not None and declared > cap:
                raise _too_big(cap, what)
            body = await _read_capped(receive, cap, what) if _has_body(headers) else b""
        except Refusal as e:
            if self.refused is not None:
                self.refused(e.status)
            close = _has_body(headers)  # its body is left unread: the connection cannot be reused
            await _refuse(send, e, close=close)
            return
        await self.app(scope, _replay(body, receive), send)


def _one_credential(scope: Scope) -> None:
    """Refuse a request that gives more than one credential, before anything is read."""
    given = [v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"authorization"]
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    try:
        tokens.one_credential(given + query.get("token", []), "the request")
    except tokens.CredentialError as e:
        raise Refusal(400, str(e)) from None


def _length(headers: Mapping[str, str]) -> int | None:
    text = headers.get("content-length")
    if text is None:
        return None
    try:
        return int(text)  # the HTTP parser already refused anything but digits
    except ValueError:
        return None


def _has_body(headers: Mapping[str, str]) -> bool:
    if "transfer-encoding" in headers:
        return True
    n = _length(headers)
    return n is not None and n > 0


def _too_big(cap: int, what: str) -> Refusal:
    return Refusal(413, f"the request body is over {size(cap)}, the most {what} takes")


async def _read_capped(receive: Receive, cap: int, what: str) -> bytes:
    """The whole body, read chunk by chunk; refused as soon as it passes ``cap``."""
    chunks: list[bytes] = []
    got = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Refusal(400, "the client went away before its body arrived")
        chunk = message.get("body", b"")
        got += len(chunk)
        if got > cap:
            raise _too_big(cap, what)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The app's ``receive``: the body read by the gate, then the server's own messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(send: Send, e: Refusal, *, close: bool) -> None:
    body = json.dumps({"detail": str(e)}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in e.headers.items()]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": e.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
