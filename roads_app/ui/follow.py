"""Pages that follow the table: the one live path from the store to every open page.

A page that shows a shoe (the scoreboard, the display) or every live shoe (the wall)
places `follow_shoe` / `follow_wall` inside the fragment that draws it. The component
(``static/follow.js``) keeps one request open at ``/_roads/follow`` (`routes`, served by
the dashboard's own server beside Streamlit's routes, `launch`), which the process's
one watcher of the store (`roads_app.store.watch`) answers as soon as the shoe, or any
shoe, has changed, whoever wrote it: this tab, another tab, the CLI, the HTTP API or
another server on the same data folder. The component's state then changes, which
reruns that fragment alone, which reads the store and redraws.

The wall: its grid (`follow_wall`, a fragment) and each tile's live part (`wall_tile`)
share the page's one request for the wall (``static/follow_hub.js``), answered with
every live shoe's version: a result is drawn by its one tile in place, a shoe that
starts or ends reruns the grid. (One request per tile would not do: a browser holds 6
connections to a server.)

When the dashboard is open to the network, the route applies the pages' rule
(`access.follow_admit`): the follower sends the tab's token as the store keeps it. A
screen key bound to one floor table is refused for another table's shoe or ``table:``
key (403), and the wall's answer tells it of its own table's shoes only.

Why not ``st.fragment(run_every=...)``: each tick is a script run per page per tab,
whether anything changed or not (the display ran 2.5 a second). Here an idle page holds
one open request, renewed every `WAIT_S` seconds, and the server runs nothing for it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.floor import check_table_code
from roads_app.game.rounds import is_shoe_id
from roads_app.i18n import word
from roads_app.store import db, library, tokens, watch
from roads_app.ui import access, page_head
from roads_app.ui.board_view import lang

ROUTE = "/_roads/follow"
WAIT_S = 25.0
"""How long one request waits for a change before it is answered anyway (and renewed)."""
MAX_WAITING = 2000
"""Requests waiting at once, at most (each a small future; more is a misbehaving client)."""

_JS = page_head.static_text("follow_hub.js") + page_head.static_text("follow.js")
_component = st.components.v2.component(
    "roads_app.follow",
    js=_JS,
    css=page_head.static_text("reconnecting.css"),  # a screen's own mark (`follow_hub.js`)
    isolate_styles=False,
)


def _screen_words(screen: bool) -> str | None:
    """What a screen (the display, the wall) says while its dashboard is away: its board
    stays, with this small mark instead of the framework's overlay."""
    return word("screen_reconnecting", lang()) if screen else None


def follow_shoe(
    shoe_id: str | None, version: int | None, key: str = "follow", *, screen: bool = False
) -> None:
    """Rerun the calling fragment when the saved shoe's version is no longer ``version``.
    ``screen``: also report the window's size (`screen_size`), for a page laid out to
    fill it. ``shoe_id`` None follows nothing (a shoe not saved yet) but keeps the
    element's place on the page."""
    _component(
        key=key,
        height=1,
        on_seen_change=lambda: None,
        on_screen_change=lambda: None,
        data={
            "shoe": shoe_id,
            "version": version,
            "screen": screen,
            "screen_now": screen_size(key),
            "reconnecting": _screen_words(screen),
            "got": _got(key),
            "pass": access.follow_pass(),
        },
    )


def _state(key: str, name: str) -> Any:
    """One of the component's state values as the server last received it, or None."""
    value = st.session_state.get(key)
    try:
        return value[name] if value is not None else None
    except (KeyError, TypeError):
        return getattr(value, name, None)


def _got(key: str) -> float | None:
    """The stamp of the last news the page asked for and this server received: the page
    stops asking again for what was answered (`static/follow.js`)."""
    try:
        at = _state(key, "seen")["at"]
    except (KeyError, TypeError):
        return None
    return at if isinstance(at, int | float) else None


def screen_size(key: str = "follow") -> dict[str, int] | None:
    """The window's size the page reported (``{"w", "h"}``), None before its report."""
    got = _state(key, "screen")
    if isinstance(got, dict) and all(isinstance(got.get(k), int | float) for k in "wh"):
        return {"w": int(got["w"]), "h": int(got["h"])}
    return None


def follow_wall(
    seq: int,
    shown: Iterable[str] | None = (),
    hidden: Mapping[str, int] | None = None,
    *,
    floor: Sequence[str] = (),
    key: str = "follow_wall",
) -> None:
    """Rerun the calling fragment (the wall's grid) when the set of live shoes is no
    longer ``shown`` (the watcher's change ``seq`` or later; None: the wall shows floor
    tables, whose shoes come and go inside their tiles), when the floor's tables in
    their order (`floor_order`) are no longer ``floor``, or a shoe the good-road filter
    hides moved past its version in ``hidden`` (it may pass the filter now). A shown
    shoe's own change, and a shown table's, is drawn by its tile alone (`wall_tile`).
    Also reports the window's size (`screen_size`), which sets how big a tile is."""
    _component(
        key=key,
        height=1,
        on_seen_change=lambda: None,
        on_screen_change=lambda: None,
        data={
            "wall": True,
            "seq": seq,
            "ids": None if shown is None else sorted(shown),
            "floor": list(floor),
            "hidden": dict(hidden or {}),
            "screen": True,
            "screen_now": screen_size(key),
            "reconnecting": _screen_words(True),
            "got": _got(key),
            "pass": access.follow_pass(),
        },
    )


def wall_seq(data_dir: Path) -> int:
    """The watcher's change count now: what `follow_wall` is given."""
    return watch.watcher(data_dir).seq


def shoe_now(data_dir: Path, shoe_id: str) -> watch.ShoeNow | None:
    """A shoe as the watcher last saw it (what a tile follows), None when gone."""
    return watch.watcher(data_dir).shoe(shoe_id)


def wall_versions(w: watch.Watcher) -> dict[str, int]:
    """The versions of the shoes on the wall (`library.on_the_wall`), as last seen."""
    return {k: s.version for k, s in w.shoes().items() if library.on_the_wall(k, s.source, s.ended)}


def floor_order(places: Mapping[str, int]) -> list[str]:
    """Floor tables' codes (each with its floor position) in the floor's order: position,
    then code. The wall's tiles stand in this order all day; the grid and the wall's
    follower both order by it.

    >>> floor_order({"B2": 2, "A9": 1, "A1": 2})
    ['A9', 'A1', 'B2']
    """
    return sorted(places, key=lambda code: (places[code], code))


# --- the server side (no Streamlit: runs on the server's event loop) -----------------------

_waiting = 0
WALL = "*"
"""The key `following` counts the wall's pages under (a shoe id never holds it)."""
_following: dict[str, int] = {}
"""Requests waiting now per shoe id (the wall's under `WALL`): ``/metrics``' followers."""
answered = 0
"""Answers that carried news (not a renewal): ``/metrics``' events sent."""
refused_hooks: list[Callable[[int], None]] = []
"""Told the status of each refusal of these routes (the dashboard's metrics count them)."""


def following() -> dict[str, int]:
    """Pages following now, per shoe id (the wall's under `WALL`)."""
    return dict(_following)


def refuse(status: int, detail: str) -> Any:
    """A refusal of the follow and tile routes: one line, and counted."""
    from starlette.responses import JSONResponse

    for hook in refused_hooks:
        hook(status)
    return JSONResponse({"detail": detail}, status_code=status)


GONE_CHECK_S = 1.0
"""How often a waiting request asks whether its page has gone (`wait_for_change`)."""


def followable(key: str) -> bool:
    """Whether ``key`` names something a page may follow: a shoe id, or ``table:`` and a
    table code (the one rule of each, `is_shoe_id` and `check_table_code`)."""
    if not key.startswith(watch.TABLE_KEY):
        return is_shoe_id(key)
    try:
        code = key.removeprefix(watch.TABLE_KEY)
        return check_table_code(code) == code
    except RoadsAppError:
        return False


async def wait_for_change(
    w: watch.Watcher,
    shoe_id: str | None,
    known: str,
    timeout: float,
    gone: Callable[[], Awaitable[bool]] | None = None,
) -> Any:
    """Wait until ``shoe_id``'s version (or, with no shoe, the change count) is no longer
    ``known``, at most ``timeout`` seconds, until a revoke was seen (the route asks
    again whether the page's key holds), or until ``gone()`` says the page closed the
    request (checked every `GONE_CHECK_S`); what it is now. Why: the server's shutdown
    waits for the requests in flight, and a closed tab's request waited out its whole
    ``timeout`` (a server took 24 s to stop with one page following)."""

    def now() -> Any:
        if shoe_id is None:
            return w.seq
        return w.version_of(shoe_id)

    if str(now() if now() is not None else "") != known:
        return now()
    loop = asyncio.get_running_loop()
    moved = asyncio.Event()
    revokes = w.tokens

    def listener(_seq: int, changed: frozenset[str]) -> None:
        if shoe_id is None or shoe_id in changed or watch.TOKENS_NEWS in changed:
            loop.call_soon_threadsafe(moved.set)

    unsubscribe = w.subscribe(listener)
    wake = lambda: loop.call_soon_threadsafe(moved.set)  # noqa: E731
    _wakers.add(wake)
    end = loop.time() + timeout
    try:
        while (
            str(now() if now() is not None else "") == known
            and w.tokens == revokes
            and not _stopping.is_set()
        ):
            left = end - loop.time()
            if left <= 0:
                break
            try:
                await asyncio.wait_for(moved.wait(), min(left, GONE_CHECK_S))
                moved.clear()  # woken: the loop's test says whether it moved past ``known``
            except TimeoutError:
                if gone is not None and await gone():
                    break
    finally:
        _wakers.discard(wake)
        unsubscribe()
    return now()


_wakers: set[Callable[[], object]] = set()
"""How to wake each request waiting in `wait_for_change` (from any thread)."""
_stopping = threading.Event()
"""Set once the server is stopping (`stop_waiting`)."""


def stop_waiting() -> None:
    """Answer every waiting request now, and each later one at once: the server is
    stopping. Why: its shutdown waits for every request in flight, and a page that
    stays open (a table's screen) held its server up to `WAIT_S` seconds, till a
    supervisor gave up and killed it; answered, the page renews its request against
    the next server."""
    _stopping.set()
    for wake in list(_wakers):
        wake()


def admit(request: Any, data_dir: Path, shown: str | None = None) -> tuple[Any, str | None]:
    """The pages' rule for a route a page's script calls (this one, `wall_tile`'s): None
    when the tab may see ``shown`` (a shoe id or ``table:<code>``; None: the wall, whose
    answer is filtered, `wall_answer`), else the JSON response that says why; and the
    one floor table the tab's key shows (None: any). A tab that could not see the
    shoe's page sees no versions; a table's screen key sees nothing of another table."""
    try:
        given = tokens.one_credential(request.headers.getlist(access.FOLLOW_HEADER), "follow")
    except tokens.CredentialError as e:  # two passes: which counts would be a guess
        return refuse(400, str(e)), None
    try:
        refused, bound = access.follow_admit(given, data_dir, shown)
    except RoadsAppError as e:
        return refuse(503, f"follow: {e}"), None
    return (None if refused is None else refuse(*refused)), bound


def refusal(request: Any, data_dir: Path, shown: str | None = None) -> Any:
    """`admit`'s refusal alone (None: answered)."""
    return admit(request, data_dir, shown)[0]


def wall_answer(data_dir: Path, bound: str | None, versions: dict[str, int]) -> dict[str, int]:
    """The wall's shoes (their versions) a tab whose key shows the floor table ``bound``
    (None: any) may be told of: a table's screen key, its table's alone, as its page
    shows (`tokens.screen_keeps`)."""
    if bound is None:
        return versions
    try:
        kept = tokens.screen_keeps(db.open_store(data_dir), bound, versions)
    except RoadsAppError:  # the request was let in a moment ago: a lost database
        return {}
    return {k: v for k, v in versions.items() if k in kept}


def routes(data_dir: Path) -> list[Any]:
    """The starlette route `launch` serves beside Streamlit's own."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def follow(request: Request) -> JSONResponse:
        global _waiting, answered
        shoe = request.query_params.get("shoe")
        if shoe is not None and not followable(shoe):
            return refuse(400, "shoe: not a shoe id or table")
        known = request.query_params.get("wall" if shoe is None else "v", "")[:24]
        if _waiting >= MAX_WAITING:
            return refuse(503, "too many pages following; try again")
        refused, bound = admit(request, data_dir, shoe)
        if refused is not None:
            return refused
        _waiting += 1
        key = WALL if shoe is None else shoe
        _following[key] = _following.get(key, 0) + 1
        try:
            w = watch.watcher(data_dir)
            revokes = w.tokens
            now = await wait_for_change(w, shoe, known, WAIT_S, request.is_disconnected)
        finally:
            _waiting -= 1
            if _following[key] <= 1:
                del _following[key]
            else:
                _following[key] -= 1
        if w.tokens != revokes:  # a revoke while waiting: does the page's key still hold?
            refused, bound = admit(request, data_dir, shoe)
            if refused is not None:
                return refused
        if str(now if now is not None else "") != known:
            answered += 1
        body: dict[str, Any] = {"v": now}
        if shoe is None:  # the wall: its shoes, and its floor tables in order
            tables = {c: t for c, t in w.tables().items() if tokens.sees(bound, c)}
            body = {
                "seq": now,
                "shoes": wall_answer(data_dir, bound, wall_versions(w)),
                "tables": {code: t.version for code, t in tables.items()},
                "floor": floor_order({code: t.position for code, t in tables.items()}),
            }
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    return [Route(ROUTE, follow, methods=["GET"])]
