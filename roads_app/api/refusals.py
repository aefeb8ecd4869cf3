"""Every refusal the app makes as one short line: the exception handlers and the guards
on a ``detail`` (no server path, one line, escaped, short)."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from roads_app.api.limits import Refusal
from roads_app.api.service import NotFound, Refused, unreachable
from roads_app.errors import RoadsAppError, quote, report_bug, validation_message

log = logging.getLogger(__name__)


def problem(
    request: Request, status: int, detail: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """Every refusal the app makes: one short line, no server path in it (and counted by
    its status in the metrics)."""
    data_dir: Path = request.app.state.api.data_dir
    request.app.state.api.metrics.refused(status)
    return JSONResponse(
        {"detail": one_line(scrub(detail, data_dir))}, status_code=status, headers=headers
    )


async def _refusal(r: Request, e: Refusal) -> JSONResponse:
    return problem(r, e.status, str(e), e.headers)


async def _not_found(r: Request, e: NotFound) -> JSONResponse:
    return problem(r, 404, str(e))


async def _refused(r: Request, e: Refused) -> JSONResponse:
    return problem(r, e.status, str(e))


def _unavailable(r: Request, e: Exception) -> JSONResponse | None:
    """The database unreachable (restarting) or busy: 503, nothing changed, try again
    (a feeder retries it with the same key), never a 422 that stops it or a 'bug'."""
    if unreachable(e):
        return problem(r, 503, str(e), {"Retry-After": "1"})
    return None


async def _user_error(r: Request, e: RoadsAppError) -> JSONResponse:
    return _unavailable(r, e) or problem(r, 422, str(e))


async def _bad_body(r: Request, e: RequestValidationError) -> JSONResponse:
    return problem(r, 422, validation_line(e.errors()))


async def _http(r: Request, e: StarletteHTTPException) -> JSONResponse:
    return problem(r, e.status_code, str(e.detail), dict(e.headers or {}) or None)


async def _bug(r: Request, e: Exception) -> JSONResponse:
    if (busy := _unavailable(r, e)) is not None:  # raised in a middleware (the token check)
        return busy
    where = report_bug(e)  # the traceback goes to the server's log folder, not the client
    log.error("%s", where)
    return problem(
        r, 500, f"bug in roads-app ({type(e).__name__}); its traceback is in the server's log"
    )


def add_handlers(app: FastAPI) -> None:
    """Answer each of our errors (and FastAPI's, and a bug) with `problem`."""
    app.add_exception_handler(Refusal, _refusal)
    app.add_exception_handler(NotFound, _not_found)
    app.add_exception_handler(Refused, _refused)
    app.add_exception_handler(RoadsAppError, _user_error)
    app.add_exception_handler(RequestValidationError, _bad_body)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _bug)


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
