"""The ASGI app: routes, who may call them, and every refusal as one line.

FastAPI (the team's choice) because its bodies are pydantic v2 models, the same
schema library as the rest of the project, and its OpenAPI docs come free at ``/docs``.
All work is done by `service.Feed` and the event streams by `stream.Hub`; this module
only maps HTTP onto them. (The streams are not FastAPI's own Server-Sent Events: those
encode every event again for each follower, and 2,000 followers filled the event loop.)

Who may call what:
* writes need an operator token (``Authorization: Bearer ...``), on any address;
* reads are open when the server listens on a loopback address only, and otherwise
  need a viewer (or operator) token. The event stream also takes ``?token=`` because
  a browser's ``EventSource`` cannot set headers.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import StreamingResponse

from roads_app.api.limits import Gate, Refusal
from roads_app.api.models import (
    AppendOut,
    ChangeOut,
    GoodRoadShoe,
    Problem,
    RoundIn,
    ShoeCreate,
    ShoeOut,
    ShoeSummary,
    TableOut,
)
from roads_app.api.service import Feed, NotFound, Refused, Reply, tags, unreachable
from roads_app.api.stream import Hub
from roads_app.errors import RoadsAppError, quote, report_bug, validation_message
from roads_app.game.rounds import max_rounds
from roads_app.store import watch

log = logging.getLogger(__name__)

OPERATOR, VIEWER = "operator", "viewer"
KEY_HEADER = "Idempotency-Key"
REFUSALS: dict[int | str, dict[str, Any]] = {404: {"model": Problem}, 422: {"model": Problem}}
REPLAYED_HEADER = "Idempotent-Replayed"
STORE_THREADS = 4
"""Threads (and so database connections) the server's store calls share; SQLite takes
one writer at a time, and a read is a millisecond."""


Key = Annotated[
    str | None,
    Header(alias=KEY_HEADER, max_length=200,
           description="a retried request with the same key is answered, not done again"),
]  # fmt: skip


class Unauthorized(Refusal):
    """No usable token for this call (401) or the wrong kind of token (403)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(status, reason, {"WWW-Authenticate": "Bearer"} if status == 401 else None)


ShoeId = Annotated[str, PathParam(description="the shoe's id")]
RoundNo = Annotated[int, PathParam(ge=1, le=max_rounds(8), description="1 is the first round")]


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


def create_app(data_dir: Path, host: str = "127.0.0.1", *, samples: bool = False) -> FastAPI:
    """The API over the store in ``data_dir``, for a server listening on ``host``."""
    feed = Feed(Path(data_dir), samples=samples)
    data_dir = feed.store.data_dir
    # Every store call runs on these few long-lived threads: one connection each, however
    # many streams come and go (a thread per call opened a connection per thread).
    pool = ThreadPoolExecutor(max_workers=STORE_THREADS, thread_name_prefix="roads-store")

    async def run(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    # The process's one watcher of the store feeds every event stream (`stream.Hub`).
    watcher = watch.watcher(data_dir)
    hub = Hub(watcher, feed.snapshot, run, tags)
    open_reads = is_loopback(host)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await hub.close()
        pool.shutdown(wait=False, cancel_futures=True)  # each thread closes its connection

    app = FastAPI(
        title="roads-app live feed",
        summary="Push baccarat results from a card-reading shoe or any program; follow a shoe.",
        version="1",
        lifespan=lifespan,
        responses={
            401: {"model": Problem, "description": "no token or an unknown token"},
            403: {"model": Problem, "description": "a viewer token where an operator's is needed"},
        },
    )
    app.state.feed = feed
    app.state.hub = hub

    # --- who may call ------------------------------------------------------------------
    # (on the event loop: one indexed lookup, cheaper than a hop to a worker thread)

    def role_of(token: str | None) -> str | None:
        if token is None:
            return None
        role = feed.token_role(token)
        if role is None:
            raise Unauthorized(401, "the token is not valid for this data folder")
        return role

    def require_operator(authorization: str | None) -> None:
        """The one rule for writes, run by the gate before any body byte is read."""
        role = role_of(_bearer(authorization))
        if role is None:
            raise Unauthorized(
                401, "writing needs an operator token: Authorization: Bearer <token> "
                "(roads-app token --data DIR prints one)"
            )  # fmt: skip
        if role != OPERATOR:
            raise Unauthorized(403, "a viewer token can read but not write: use an operator token")

    async def operator(authorization: Annotated[str | None, Header()] = None) -> None:
        require_operator(authorization)  # the gate checked it already; this documents it

    async def reader(
        authorization: Annotated[str | None, Header()] = None,
        token: Annotated[str | None, Query(description="for EventSource, which cannot set headers")] = None,  # noqa: E501
    ) -> None:
        given = _bearer(authorization) or token
        role = role_of(given) if given else None
        if role is None and not open_reads:
            raise Unauthorized(
                401, "this server is open to the network: reading needs a viewer token "
                "(roads-app token --viewer --data DIR prints one)"
            )  # fmt: skip

    Write = Depends(operator)
    Read = Depends(reader)

    # --- refusals as one line --------------------------------------------------------------

    def problem(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
        """Every refusal the app makes: one short line, no server path in it."""
        return JSONResponse({"detail": one_line(scrub(detail, data_dir))}, status_code=status,
                            headers=headers)  # fmt: skip

    @app.exception_handler(Refusal)
    async def _refusal(_r: Request, e: Refusal) -> JSONResponse:
        return problem(e.status, str(e), e.headers)

    @app.exception_handler(NotFound)
    async def _not_found(_r: Request, e: NotFound) -> JSONResponse:
        return problem(404, str(e))

    @app.exception_handler(Refused)
    async def _refused(_r: Request, e: Refused) -> JSONResponse:
        return problem(e.status, str(e))

    def unavailable(e: Exception) -> JSONResponse | None:
        """The database unreachable (restarting) or busy: 503, nothing changed, try again
        (a feeder retries it with the same key), never a 422 that stops it or a 'bug'."""
        if unreachable(e):
            return problem(503, str(e), {"Retry-After": "1"})
        return None

    @app.exception_handler(RoadsAppError)
    async def _user_error(_r: Request, e: RoadsAppError) -> JSONResponse:
        return unavailable(e) or problem(422, str(e))

    @app.exception_handler(RequestValidationError)
    async def _bad_body(_r: Request, e: RequestValidationError) -> JSONResponse:
        return problem(422, validation_line(e.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_r: Request, e: StarletteHTTPException) -> JSONResponse:
        return problem(e.status_code, str(e.detail), dict(e.headers or {}) or None)

    @app.exception_handler(Exception)
    async def _bug(_r: Request, e: Exception) -> JSONResponse:
        if (busy := unavailable(e)) is not None:  # raised in a middleware (the token check)
            return busy
        where = report_bug(e)  # the traceback goes to the server's log folder, not the client
        log.error("%s", where)
        return problem(500, f"bug in roads-app ({type(e).__name__}); its traceback is in "
                            "the server's log")  # fmt: skip

    def answer(reply: Reply, shoe_id: str | None = None) -> JSONResponse:
        if shoe_id is not None and not reply.replayed:
            hub.changed(shoe_id)
        headers = {REPLAYED_HEADER: "true"} if reply.replayed else None
        return JSONResponse(reply.body, status_code=reply.status, headers=headers)

    async def existing(shoe_id: ShoeId) -> None:
        """A 404 before a stream starts (once it has, the status line is sent). A shoe the
        watcher knows needs no read; one it has not seen yet (made a moment ago) is looked up."""
        if watcher.version(shoe_id) is None and await run(feed.version, shoe_id) is None:
            raise NotFound(f"no shoe {quote(shoe_id)} (it never existed or is in the trash)")

    # --- routes ---------------------------------------------------------------------------------

    @app.get("/health", include_in_schema=False)
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/tables", response_model=list[TableOut], dependencies=[Read])
    async def tables() -> Any:
        """The rules tables a shoe can be created at."""
        return await run(feed.tables)

    @app.get("/good-roads", response_model=list[GoodRoadShoe], dependencies=[Read])
    async def good_roads() -> Any:
        """Every live shoe holding a good road (好路) now, headline first: each shoe's
        keys in the catalogue's priority order, shoes by their headline's priority."""
        return await run(feed.good_roads)

    @app.get("/shoes", response_model=list[ShoeSummary], dependencies=[Read])
    async def shoes() -> Any:
        """Every shoe in the library, most recently changed first."""
        return await run(feed.shoes)

    @app.post("/shoes", status_code=201, response_model=ShoeSummary, dependencies=[Write],
              responses={422: {"model": Problem}})  # fmt: skip
    async def create_shoe(body: ShoeCreate, key: Key = None) -> Any:
        """Start a new shoe at a table."""
        return answer(await run(feed.create, body, key))

    @app.get("/shoes/{shoe_id}", response_model=ShoeOut, dependencies=[Read],
             responses={404: {"model": Problem}})  # fmt: skip
    async def shoe(shoe_id: ShoeId) -> Any:
        """A shoe: its rounds, statistics and all five roads as grid cells."""
        return await run(feed.shoe, shoe_id)

    @app.post("/shoes/{shoe_id}/rounds", status_code=201, response_model=AppendOut,
              dependencies=[Write], responses=REFUSALS)
    async def append(shoe_id: ShoeId, body: RoundIn, key: Key = None) -> Any:
        """Append a round by winner (+ flags), by points or by cards.

        Checked by the same rules as the dashboard; a refusal is a 4xx with the reason
        and leaves the shoe as it was. Send an ``Idempotency-Key`` so that a retry after
        a lost answer never enters the hand twice.
        """
        return answer(await run(feed.append, shoe_id, body, key), shoe_id)

    @app.post("/shoes/{shoe_id}/undo", response_model=ChangeOut, dependencies=[Write],
              responses=REFUSALS)
    async def undo(shoe_id: ShoeId, key: Key = None) -> Any:
        """Take back the last round."""
        return answer(await run(feed.undo, shoe_id, key), shoe_id)

    @app.post("/shoes/{shoe_id}/rounds/{round_no}/void", response_model=ChangeOut,
              dependencies=[Write], responses=REFUSALS)
    async def void(shoe_id: ShoeId, round_no: RoundNo, key: Key = None) -> Any:
        """Void a round (a misdeal): it leaves the roads; the history keeps it."""
        return answer(await run(feed.void, shoe_id, round_no, key), shoe_id)

    @app.post("/shoes/{shoe_id}/end", response_model=ChangeOut, dependencies=[Write],
              responses={**REFUSALS, 409: {"model": Problem}})  # fmt: skip
    async def end(shoe_id: str, key: Key = None) -> Any:
        """End the shoe (the cut card's last hand was played, or the table closed it):
        it leaves the wall of live tables, and every later append is refused (409).
        No body."""
        return answer(await run(feed.end, shoe_id, key), shoe_id)

    @app.get("/shoes/{shoe_id}/events", response_class=EventStream, status_code=200,
             dependencies=[Read, Depends(existing)],
             responses={200: {"content": {EventStream.media_type: {}},
                              "description": "the shoe's events, as they happen"},
                        404: {"model": Problem}})  # fmt: skip
    async def events(shoe_id: ShoeId) -> EventStream:
        """Server-Sent Events of one shoe: ``snapshot``, then ``append`` / ``reset`` / ``gone``.

        Every event's data is ``{"version": V, "rounds": [...], "good_roads": [...]}`` and
        its id is the version.
        """
        return EventStream(hub.follow(shoe_id))

    # Outermost: the gate sees a request before FastAPI reads its body.
    app.add_middleware(Gate, writer=require_operator, routes=lambda: app.router.routes)
    return app


class EventStream(StreamingResponse):
    """A stream of Server-Sent Events, each event's bytes made by `stream.Hub` (shared by
    every follower of the shoe, not encoded again for each)."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[bytes]) -> None:
        # no caching, and no buffering by a proxy in between (nginx reads this header)
        super().__init__(content, headers={"Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})  # fmt: skip


DETAIL_MAX = 300
"""Longest ``detail`` an answer carries (a quote of input in it is at most ~60)."""

_ABSOLUTE_PATH = re.compile(r"(?<![\w'\"./~-])/(?:[^\s/'\"]+/)+([^\s/'\":,;)]*)")


def scrub(detail: str, data_dir: Path) -> str:
    """No server path in an answer: the data folder is named as such, any other absolute
    path (a rules file, a log folder) shortened to its last part.

    >>> scrub("/srv/d/roads.db: the database is busy", Path("/srv/d"))
    'roads.db: the database is busy'
    >>> scrub("/home/x/.config/roads-app/tables/mine.toml: bad", Path("/srv/d"))
    'mine.toml: bad'
    >>> scrub("no shoe '/etc/passwd'", Path("/srv/d"))
    "no shoe '/etc/passwd'"
    """
    root = str(data_dir)
    detail = detail.replace(f"{root}/", "").replace(root, "the data folder")
    return _ABSOLUTE_PATH.sub(lambda m: m.group(1) or "a server folder", detail)


def one_line(detail: str, limit: int = DETAIL_MAX) -> str:
    """The last guard on every ``detail``: one line, escaped, at most ``limit`` characters.

    >>> one_line("a\\nb")
    'a\\\\nb'
    >>> len(one_line("x" * 10_000)) <= 300
    True
    """
    text = detail if detail.isprintable() else detail.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def validation_line(errors: Any) -> str:
    """pydantic's error list as one line (`errors.validation_message`), without FastAPI's
    ``body`` prefix, each part of the location quoted short (a key can be 10 KB).

    >>> validation_line([{"loc": ("body", "winner"), "msg": "Input should be 'B'"}])
    "winner: Input should be 'B'"
    """
    errors = list(errors)
    if errors and errors[0].get("type") == "json_invalid":  # where in the text, not a field
        why = str(errors[0].get("ctx", {}).get("error", "")).splitlines()[:1]
        return "the body is not JSON" + (f": {quote(why[0], 80)}" if why else "")
    cleaned = []
    for err in errors:
        loc = tuple(_loc_part(p) for p in err.get("loc", ()) if p != "body")
        cleaned.append({**err, "loc": loc})
    return validation_message(cleaned) if cleaned else "invalid request"


def _loc_part(p: object) -> object:
    if isinstance(p, int) or (isinstance(p, str) and p.isidentifier() and len(p) <= 40):
        return p
    return quote(p, 40)
