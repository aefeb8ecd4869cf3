"""A wall tile's live part, drawn by the page itself: a result costs no script run.

A tile of the wall (`lobby_page.render_tile`; a floor table's, `render_table_tile`) is a
fragment with the parts that change seldom (name, table, good-road tags, the Open
button) and one component
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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import plotly.io as pio
import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.floor import TableState
from roads_app.game.hand import Winner
from roads_app.game.rounds import empty_rounds, is_shoe_id
from roads_app.i18n import LANGUAGES, word
from roads_app.render import board
from roads_app.render.flags import flag_note, flag_value
from roads_app.roads import good_roads as gr
from roads_app.roads.grids import all_roads
from roads_app.roads.stats import side_now
from roads_app.store import library, watch
from roads_app.store.floor import FloorTable
from roads_app.ui import access, floor_view, follow, page_head, theme
from roads_app.ui.good_roads_view import short_tags, shown
from roads_app.ui.good_roads_view import tags as tag_names

ROUTE = "/_roads/tile"
BEAD_COLS = 12
BIG_COLS = 20
_TAG = re.compile(r"[a-z0-9_]{1,40}")
MAX_TAGS = 64
"""Tags in one request's ``tags`` or ``picked``, at most (a catalogue holds a dozen)."""

_JS = "".join(page_head.static_text(f) for f in ("svg_plot.js", "follow_hub.js", "wall_tile.js"))
_component = st.components.v2.component(
    "roads_app.wall_tile", js=_JS, css=page_head.static_text("wall_tile.css"), isolate_styles=False
)


@dataclass(frozen=True)
class Look:
    """How a tile is drawn: ``big`` and ``bead`` columns of the kiosk wall's big road
    (across the tile) and bead plate (0: none) — both 0 for the settings wall's small
    roads — and the board's ``ground`` (`theme`)."""

    big: int = 0
    bead: int = 0
    ground: theme.Theme = theme.Theme.LIGHT

    @property
    def kiosk(self) -> bool:
        return self.big > 0

    def query(self) -> dict[str, str]:
        """As the route's parameters (`_look_param` reads them back)."""
        return {"big": str(self.big), "bead": str(self.bead), "theme": str(self.ground)}


KIOSK_CELL_PX = 12.0
"""A kiosk road's cell as laid out; the page scales the road to its tile's width."""
MAX_KIOSK_COLS = 80


def tile_roads(
    rounds: pl.DataFrame, lg: str, derived: bool = False, look: Look = Look()
) -> list[dict[str, Any]]:
    """A tile's roads as Plotly specs (drawn by ``svg_plot.js``): the bead plate and big
    road, and where ``derived`` the big eye boy, small road and cockroach pig; on the
    kiosk wall (``look.kiosk``) the big road of ``look.big`` columns, then the bead
    plate of ``look.bead`` where the tile has room for it."""
    if look.kiosk:
        roads = [board.big_road_figure(rounds, cols_visible=look.big, cell_px=KIOSK_CELL_PX)]
        if look.bead:
            roads.append(
                board.bead_plate_figure(
                    rounds, cols_visible=look.bead, cell_px=KIOSK_CELL_PX, lang=lg
                )
            )
    else:
        roads = [
            board.bead_plate_figure(
                rounds, cols_visible=BEAD_COLS, cell_px=board.MINI_CELL_PX, lang=lg
            ),
            board.big_road_figure(rounds, cols_visible=BIG_COLS, mini=True),
        ]
    if derived and not look.kiosk:
        grids = all_roads(rounds)
        roads += [
            board.derived_road_figure(
                grids, k, cols_visible=BIG_COLS, cell_px=board.MINI_CELL_PX * 0.8
            )
            for k in board.DERIVED
        ]
    return [
        theme.recolour(json.loads(pio.to_json(fig, validate=False)), look.ground) for fig in roads
    ]


@lru_cache(maxsize=256)
def content(
    shoe_id: str, folder: str, version: int, lg: str, derived: bool = False, look: Look = Look()
) -> dict[str, Any] | str:
    """A shoe's tile contents at ``version`` (the message when it cannot be read): read
    and laid out once per version, for the fragment and the route alike. Shared: not to
    be changed by a caller."""
    loaded = library.safe_load(shoe_id, Path(folder))
    if isinstance(loaded, str):
        return loaded
    rounds, meta = loaded
    winners = rounds["winner"].cast(pl.String).to_list()
    side = side_now(winners)
    return {
        "meta": meta,
        "winners": winners,  # its good roads
        "side": side,  # the big road's side now (a badge's colour)
        "counts": library.counts(rounds),
        "roads": tile_roads(rounds, lg, derived, look),
        "badges": badges(gr.tags_of_winners(winners), side, lg, look.ground),
    }


def badges(keys: Sequence[str], side: str, lg: str, ground: theme.Theme) -> list[list[str]]:
    """The good roads a table is on as ``[short name, ground colour, text colour, name]``
    badges, in the colour of the big road's side they ride (its mark's, on the theme's
    board).

    >>> badges(["long_banker"], "B", "en", theme.Theme.LIGHT)  # doctest: +ELLIPSIS
    [['B dragon', '#d32f2f', '#ffffff', 'Long banker dragon']]
    """
    bg = theme.recolour(board.WINNER_COLOUR[side], ground)
    fg = theme.recolour(board.PAPER, ground)
    names = zip(short_tags(keys, lg), tag_names(keys, lg), strict=True)
    return [[short, bg, fg, name] for short, name in names]


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
    pairs = word(
        "pairs_short", lg, p=flag_value(flags["player_pair"]), b=flag_value(flags["banker_pair"])
    )
    note = flag_note(flags, "pair", lg)
    if not (flags["player_pair"].known or flags["banker_pair"].known):
        pairs, note = word("what_pair", lg), word("flags_none", lg)
    parts: list[tuple[str, str]] = []
    for w in (x.value for x in Winner):
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
    look: Look = Look(),
) -> dict[str, Any]:
    """What a tile's live part shows now (`view_at`), or ``rerun`` alone when the shoe
    left the wall (ended, deleted)."""
    now_shoe = follow.shoe_now(folder, shoe_id)
    if now_shoe is None or not library.on_the_wall(shoe_id, now_shoe.source, now_shoe.ended):
        return {"rerun": True}
    tile = content(shoe_id, str(folder), now_shoe.version, lg, derived, look)
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
    rerun = (
        list(now_tags) != list(tags)
        or bool(gr.entered(tile["winners"]))
        or not shown(now_tags, picked)
    )
    meta = tile["meta"]
    return shows | {
        "counts": counts_parts(tile["counts"], lg),
        "roads": tile["roads"],
        "rerun": rerun,
        "badges": tile["badges"],
        "name": meta.name or word("shoe_default_name", lg, id=meta.id),
        "bpt": [[word(f"{w}_letter", lg), tile["counts"][w], w] for w in (x.value for x in Winner)],
    }


def live(
    shoe_id: str,
    first: dict[str, Any],
    *,
    lg: str,
    derived: bool,
    tags: Sequence[str],
    picked: Sequence[str],
    stale_min: float,
    runs: int,
    look: Look = Look(),
    table: dict[str, Any] | None = None,
) -> None:
    """The tile's live part, first drawn from ``first`` (a `view`), then kept current by
    the page (`ROUTE`) until its fragment runs again. ``runs``: how often this page ran
    the tile's fragment (the tests read it). ``table``: a floor table's tile
    (`table_data`), which also asks its fragment to run when the table changes (a
    shuffle, its next shoe, closed); ``shoe_id`` is then its shoe being dealt, or None
    between shoes."""
    _component(
        key=f"lobby_live_table_{table['table']}" if table else f"lobby_live_{shoe_id}",
        height="content",
        on_seen_change=lambda: None,
        data={
            **(table or {}),
            "shoe": shoe_id,
            "view": first,
            "route": ROUTE.lstrip("/"),
            "query": {
                "shoe": shoe_id,
                "lang": lg,
                "derived": int(derived),
                "tags": ",".join(tags),
                "picked": ",".join(picked),
                **look.query(),
            },
            "kiosk": look.kiosk,
            "stale_s": stale_min * 60,
            "now": time.time(),
            "stale_text": word("stale_badge", lg, m=f"{stale_min:g}"),
            "runs": runs,
            "pass": access.follow_pass(),
        },
    )


def table_data(table: FloorTable, lg: str) -> dict[str, Any]:
    """What a floor table's tile shows of the table itself (our own words and numbers,
    and its name, set as text by the page): its name, state, shoe number and limits
    (`floor_view`), and the version its tile stands at."""
    return {
        "table": table.code,
        "table_version": table.version,
        "title": table.name or table.code,
        "code": table.code,
        "state": table.state.value,
        "state_text": floor_view.state_word(table, lg),
        "head": [list(p) for p in floor_view.table_parts(table, lg)],
    }


@lru_cache(maxsize=16)
def _cleared(lg: str, derived: bool, look: Look) -> list[dict[str, Any]]:
    """A tile's roads with no round in them. Shared: not to be changed by a caller."""
    return tile_roads(empty_rounds(), lg, derived, look)


def between_view(
    table: FloorTable,
    folder: Path,
    lg: str,
    look: Look,
    last: int | None,
    derived: bool = False,
) -> dict[str, Any]:
    """A floor table's tile between shoes (shuffling, closed, open before its first
    hand): its roads cleared, as the board beside a table clears at a shuffle (the same
    size as a dealt shoe's: the tile keeps its height, the wall its places) and,
    shuffling, the last shoe's final counts (``last``: that shoe's version, None when
    unknown)."""
    shows: dict[str, Any] = {"version": -1, "modified": None, "rounds": "", "rerun": False}
    shows |= {"counts": [], "roads": _cleared(lg, derived, look), "badges": [], "bpt": []}
    if table.state is TableState.SHUFFLING and table.shoe is not None and last is not None:
        tile = content(table.shoe, str(folder), last, lg, False, look)
        if isinstance(tile, dict):
            shows["counts"] = counts_parts(tile["counts"], lg)
            shows["bpt"] = [
                [word(f"{w}_letter", lg), tile["counts"][w], w] for w in (x.value for x in Winner)
            ]
            shows["rounds"] = word("rounds_n", lg, n=tile["counts"]["rounds"])
    return shows


def _tags_param(text: str | None) -> list[str] | None:
    """A comma-separated list of tag keys, or None when it is not one."""
    got = [t for t in (text or "").split(",") if t]
    if len(got) > MAX_TAGS or not all(_TAG.fullmatch(t) for t in got):
        return None
    return got


def _look_param(q: Any) -> Look | None:
    """The route's ``big``, ``bead`` and ``theme`` as a `Look`, None when one is not one
    (absent: the settings wall's light tile)."""
    big, bead = q.get("big", "0"), q.get("bead", "0")
    if not (big.isdigit() and bead.isdigit() and len(big) < 4 and len(bead) < 4):
        return None
    try:
        ground = theme.Theme(q.get("theme", "light"))
    except ValueError:
        return None
    if int(big) > MAX_KIOSK_COLS or int(bead) > MAX_KIOSK_COLS:
        return None
    return Look(int(big), int(bead), ground)


def routes(data_dir: Path) -> list[Any]:
    """The starlette route `launch` serves beside Streamlit's own."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def tile(request: Request) -> JSONResponse:
        q = request.query_params
        shoe, lg, derived = q.get("shoe") or "", q.get("lang"), q.get("derived", "0")
        tags, picked = _tags_param(q.get("tags")), _tags_param(q.get("picked"))
        look = _look_param(q)
        if not is_shoe_id(shoe):
            return follow.refuse(400, "shoe: not a shoe id")
        if (
            lg not in LANGUAGES
            or derived not in ("0", "1")
            or tags is None
            or picked is None
            or look is None
        ):
            return follow.refuse(
                400, "tile: lang, derived, tags, picked, big, bead or theme is not one"
            )
        refused = follow.refusal(request, data_dir, shoe)  # a table's key: its own
        if refused is not None:
            return refused
        try:
            body = await asyncio.to_thread(
                view, data_dir, shoe, lg, derived == "1", tags, picked, look
            )
        except RoadsAppError as e:
            return follow.refuse(503, f"tile: {e}")
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    return [Route(ROUTE, tile, methods=["GET"])]
