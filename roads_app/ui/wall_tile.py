"""A wall tile's live part, drawn by the page itself: a result costs no script run.

A tile of the wall (`lobby_page.render_tile`) is a fragment with the parts that change
seldom (name, table, good-road tags, the Open button) and one component
(``static/wall_tile.js``) with the parts that change at every result: the round count,
the stale mark, the small roads (plain SVG, ``static/svg_plot.js``) and the counts.
The component shares the page's one request for the wall (``static/follow_hub.js``);
when its shoe moves on it asks `ROUTE` for the tile's new `view` and draws it in
place. Why: on a wall of 24 live tables each result reran its tile's fragment, and
each fragment run cost the page a pass of Streamlit's React tree (issue 29: the page's
main thread was 94% busy). Only what needs the script runs it: the `view` says
``rerun`` when the tile's tags changed, it entered a good road (the alert), it left the
filter or the wall, or its shoe cannot be read; the component then reruns its fragment.

What a tile shows is decided here, once, for both ways in: the fragment's first
drawing and the route's answers are the same `view`.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import plotly.io as pio
import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.i18n import LANGUAGES, word
from roads_app.render import board
from roads_app.render.flags import flag_note, flag_value
from roads_app.roads import good_roads as gr
from roads_app.roads.grids import all_roads
from roads_app.store import library, watch
from roads_app.ui import access, follow, page_head
from roads_app.ui.good_roads_view import entered_of, shown

ROUTE = "/_roads/tile"
BEAD_COLS = 12
BIG_COLS = 20
_TAG = re.compile(r"[a-z0-9_]{1,40}")
MAX_TAGS = 64
"""Tags in one request's ``tags`` or ``picked``, at most (a catalogue holds a dozen)."""

_JS = "".join(page_head.static_text(f) for f in ("svg_plot.js", "follow_hub.js", "wall_tile.js"))
_component = st.components.v2.component("roads_app.wall_tile", js=_JS,
                                        css=page_head.static_text("wall_tile.css"),
                                        isolate_styles=False)  # fmt: skip


def tile_roads(rounds: pl.DataFrame, lg: str, derived: bool = False) -> list[dict[str, Any]]:
    """A tile's small roads as Plotly specs (drawn by ``svg_plot.js``): the bead plate and
    big road, and where ``derived`` the big eye boy, small road and cockroach pig."""
    roads = [
        board.bead_plate_figure(rounds, cols_visible=BEAD_COLS, cell_px=board.MINI_CELL_PX,
                                lang=lg),
        board.big_road_figure(rounds, cols_visible=BIG_COLS, mini=True),
    ]  # fmt: skip
    if derived:
        grids = all_roads(rounds)
        roads += [board.derived_road_figure(grids, k, cols_visible=BIG_COLS,
                                            cell_px=board.MINI_CELL_PX * 0.8)
                  for k in board.DERIVED]  # fmt: skip
    return [json.loads(pio.to_json(fig, validate=False)) for fig in roads]


@lru_cache(maxsize=256)
def content(
    shoe_id: str, folder: str, version: int, lg: str, derived: bool = False
) -> dict[str, Any] | str:
    """A shoe's tile contents at ``version`` (the message when it cannot be read): read
    and laid out once per version, for the fragment and the route alike. Shared: not to
    be changed by a caller."""
    loaded = library.safe_load(shoe_id, Path(folder))
    if isinstance(loaded, str):
        return loaded
    rounds, meta = loaded
    return {
        "meta": meta,
        "winners": rounds["winner"].cast(pl.String).to_list(),  # its good roads
        "counts": library.counts(rounds),
        "roads": tile_roads(rounds, lg, derived),
    }


def counts_parts(c: dict[str, Any], lg: str) -> list[tuple[str, str]]:
    """The counts under a tile's roads as ``(text, winner)`` pieces (winner "" for plain
    text): ``B 12 · P 9 · T 2 · pairs P 1 / B 3``, pairs with the rounds that recorded
    them, as on every page.

    >>> from roads_app.roads.stats import FlagCount
    >>> none = FlagCount(hits=0, recorded=0, rounds=3)
    >>> counts_parts({"B": 2, "P": 1, "T": 0, "flags": {"player_pair": none,
    ...               "banker_pair": none}}, "en")  # doctest: +NORMALIZE_WHITESPACE
    [('B 2', 'B'), (' · ', ''), ('P 1', 'P'), (' · ', ''), ('T 0', 'T'),
     (' · pairs not recorded', '')]
    """
    flags = c["flags"]
    pairs = word("pairs_short", lg, p=flag_value(flags["player_pair"]),
                 b=flag_value(flags["banker_pair"]))  # fmt: skip
    note = flag_note(flags, "pair", lg)
    if not (flags["player_pair"].known or flags["banker_pair"].known):
        pairs, note = word("what_pair", lg), word("flags_none", lg)
    parts: list[tuple[str, str]] = []
    for w in "BPT":
        parts += [(" · ", "")] if parts else []
        parts.append((f"{word(f'{w}_letter', lg)} {c[w]}", w))
    return [*parts, (" · " + (f"{pairs} {note}" if note else pairs), "")]


def view(
    folder: Path,
    shoe_id: str,
    lg: str,
    derived: bool,
    tags: Sequence[str] = (),
    picked: Sequence[str] = (),
) -> dict[str, Any]:
    """What a tile's live part shows now (`view_at`), or ``rerun`` alone when the shoe
    left the wall (ended, deleted)."""
    now_shoe = follow.shoe_now(folder, shoe_id)
    if now_shoe is None or not library.on_the_wall(shoe_id, now_shoe.source, now_shoe.ended):
        return {"rerun": True}
    tile = content(shoe_id, str(folder), now_shoe.version, lg, derived)
    return view_at(tile, now_shoe, lg, tags, picked)


def view_at(
    tile: dict[str, Any] | str,
    shoe: watch.ShoeNow,
    lg: str,
    tags: Sequence[str] = (),
    picked: Sequence[str] = (),
) -> dict[str, Any]:
    """What a tile's live part shows for ``shoe`` (as the watcher saw it; ``tile``: its
    `content`), on a page that shows ``tags`` for it and filters on ``picked``.
    ``rerun``: the tile's fragment must run (its tags changed, it entered a good road,
    it left the filter, it cannot be read) and then draws what it reads itself."""
    shows: dict[str, Any] = {
        "version": shoe.version,
        "modified": shoe.modified,
        "rounds": word("rounds_n", lg, n=shoe.rounds),
        "counts": [],
        "roads": [],
        "rerun": True,
    }
    if isinstance(tile, str):
        return shows
    now_tags = gr.tags_of_winners(tile["winners"])
    rerun = (list(now_tags) != list(tags) or bool(entered_of(tile["winners"]))
             or not shown(now_tags, picked))  # fmt: skip
    return shows | {"counts": counts_parts(tile["counts"], lg), "roads": tile["roads"],
                    "rerun": rerun}  # fmt: skip


def live(
    shoe_id: str, first: dict[str, Any], *, lg: str, derived: bool, tags: Sequence[str],
    picked: Sequence[str], stale_min: float, runs: int,
) -> None:  # fmt: skip
    """The tile's live part, first drawn from ``first`` (a `view`), then kept current by
    the page (`ROUTE`) until its fragment runs again. ``runs``: how often this page ran
    the tile's fragment (the tests read it)."""
    _component(key=f"lobby_live_{shoe_id}", height="content", on_seen_change=lambda: None,
               data={"shoe": shoe_id, "view": first, "route": ROUTE.lstrip("/"),
                     "query": {"shoe": shoe_id, "lang": lg, "derived": int(derived),
                               "tags": ",".join(tags), "picked": ",".join(picked)},
                     "stale_s": stale_min * 60, "now": time.time(),
                     "stale_text": word("stale_badge", lg, m=f"{stale_min:g}"),
                     "runs": runs, "pass": access.follow_pass()})  # fmt: skip


def _tags_param(text: str | None) -> list[str] | None:
    """A comma-separated list of tag keys, or None when it is not one."""
    got = [t for t in (text or "").split(",") if t]
    if len(got) > MAX_TAGS or not all(_TAG.fullmatch(t) for t in got):
        return None
    return got


def routes(data_dir: Path) -> list[Any]:
    """The starlette route `launch` serves beside Streamlit's own."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def tile(request: Request) -> JSONResponse:
        q = request.query_params
        shoe, lg, derived = q.get("shoe") or "", q.get("lang"), q.get("derived", "0")
        tags, picked = _tags_param(q.get("tags")), _tags_param(q.get("picked"))
        if not follow.is_shoe_id(shoe):
            return JSONResponse({"detail": "shoe: not a shoe id"}, status_code=400)
        if lg not in LANGUAGES or derived not in ("0", "1") or tags is None or picked is None:
            return JSONResponse({"detail": "tile: lang, derived, tags or picked is not one"},
                                status_code=400)  # fmt: skip
        refused = follow.refusal(request, data_dir)
        if refused is not None:
            return refused
        try:
            body = await asyncio.to_thread(view, data_dir, shoe, lg, derived == "1", tags,
                                           picked)  # fmt: skip
        except RoadsAppError as e:
            return JSONResponse({"detail": f"tile: {e}"}, status_code=503)
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    return [Route(ROUTE, tile, methods=["GET"])]
