"""The Plotly board (pure: frames in, figures out) and the tab's save guard.

The figures are checked against the road frames and the spec's conventions (colours,
where pair dots sit, what a tie-only cell shows, square cells, newest column in view),
never against a stored copy of a figure.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from roads_app.game.rounds import add_cards, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.render import board
from roads_app.roads.grids import all_roads, ask_road
from roads_app.store import db
from roads_app.ui.session import StaleShoeError, load_state, new_state, save_checked
from tests import storehelp as sh

shoes = hs.text(alphabet="BPT", min_size=0, max_size=120)


def points_of(fig, name: str, axis: str | None = None) -> list[tuple[float, float]]:
    out = []
    for t in fig.data:
        if t.name == name and (axis is None or (t.xaxis or "x") == axis):
            out += list(zip(t.x, t.y, strict=True))
    return out


def trace(fig, name: str, axis: str = "x"):
    found = [t for t in fig.data if t.name == name and (t.xaxis or "x") == axis]
    assert len(found) == 1, (name, axis, [(t.name, t.xaxis) for t in fig.data])
    return found[0]


AXIS_OF = {
    "bead_plate": "x",
    "big_road": "x2",
    "big_eye_boy": "x3",
    "small_road": "x4",
    "cockroach_pig": "x5",
}


@settings(max_examples=60, deadline=None)
@given(shoes, hs.sampled_from([360, 1024, 1440]))
def test_every_mark_of_the_shoe_is_drawn_once_in_its_cell(text: str, width: int):
    rounds = rounds_from_winners(text)
    roads = all_roads(rounds)
    fig = board.board_figure(roads, board.BoardLook(width_px=width))
    meta = fig.layout.meta
    assert meta["rounds"] == len(text)
    if width >= board.NARROW_PX:  # laid out for the page: never squeezed after
        assert fig.layout.width <= width + 2
    for name, road in roads.items():
        assert meta["roads"][name]["marks"] == road.height
        cols, first = meta["roads"][name]["cols"], meta["roads"][name]["first"]
        need = int(road["col"].max()) + 2 if road.height else 1
        assert first == max(0, need - cols)  # the whole shoe where the columns hold it
        shown = road.filter(pl.col("col") >= first)  # else its newest columns
        axis = AXIS_OF[name]
        ring_names = {"bead_plate": ("B", "P", "T"), "big_road": ("B", "P")}.get(
            name, ("red", "blue")
        )
        drawn = sorted(p for n in ring_names for p in points_of(fig, n, axis))
        want = sorted(
            zip((shown["col"] + 0.5).to_list(), (shown["row"] + 0.5).to_list(), strict=True)
        )
        if name == "big_road":  # a tie-only first cell has no ring, only its slash
            want = sorted(
                zip(
                    (shown.filter(pl.col("winner") != "T")["col"] + 0.5).to_list(),
                    (shown.filter(pl.col("winner") != "T")["row"] + 0.5).to_list(),
                    strict=True,
                )
            )
        assert drawn == want, name
        # from the first column shown to the newest one, all inside the x range
        xr = fig.layout[f"xaxis{axis[1:]}"].range
        assert xr[0] == first
        if road.height:
            assert int(road["col"].max()) < xr[1] - 0.5


# shoes long enough to need more columns than a phone shows, as well as short ones
phone_shoes = hs.one_of(
    shoes,
    hs.text(alphabet="BPT", min_size=60, max_size=160),
    hs.integers(10, 80).map(lambda n: "BP" * n),
)


def _x_px(fig, axis: str, x: float) -> float:
    """Where ``x`` of road axis ``axis`` lands across the figure, in px."""
    lay = fig.layout
    xa = lay[f"xaxis{axis[1:]}"]
    w = lay.width - lay.margin.l - lay.margin.r
    d0, d1 = xa.domain
    return lay.margin.l + (d0 + (d1 - d0) * (x - xa.range[0]) / (xa.range[1] - xa.range[0])) * w


@settings(max_examples=80, deadline=None)
@given(phone_shoes, hs.sampled_from([320, 360, 390, 430, 600]))
def test_a_phone_board_keeps_readable_cells_and_opens_on_the_newest_columns(text: str, width: int):
    """Narrow pages: cells never below `NARROW_CELL_PX`, beads never below
    `BEAD_MIN_CELL_PX`; a board wider than the page only when the whole shoe would need
    smaller ones; at the right-hand end (where the page opens it) every road's newest
    column and every road's title are in view, the first column in view is whole, and
    a road that fits the page is in view whole."""
    rounds = rounds_from_winners(text)
    roads = all_roads(rounds)
    fig = board.board_figure(roads, board.BoardLook(width_px=width))
    lay, cell = fig.layout, fig.layout.meta["cell"]
    assert cell >= board.NARROW_CELL_PX
    bead = fig.layout.meta["roads"]["bead_plate"]
    # readable beads where 18 columns of them fit the page; the whole plate in view
    assert bead["cell"] >= min(board.BEAD_MIN_CELL_PX, (width + 2) / 18) - 0.01
    assert bead["cols"] * bead["cell"] <= width + 2.1 or bead["cols"] > 18
    if lay.width > width + 2:  # it scrolls only because the floor binds
        assert cell < board.NARROW_CELL_PX * 1.1
    # the part in view at the right-hand end: the page's last width + 2 px (the page
    # gives the board's box 4 px more than ``width_px``: `ui.board_view`)
    view_left = lay.width - width - 3
    # cut there on a big-road cell boundary (issue 26 item 6), so also a derived one
    big_px = _x_px(fig, "x2", 1) - _x_px(fig, "x2", 0)
    assert (width + 2) / big_px == pytest.approx(round((width + 2) / big_px), abs=0.05)
    for name, road in roads.items():
        axis = AXIS_OF[name]
        xa = lay[f"xaxis{axis[1:]}"]
        if name != "bead_plate":  # the bead plate starts at the view's left (it fits)
            assert xa.domain[1] == pytest.approx(1.0)  # right-aligned
        if road.height:
            newest = int(road["col"].max()) + 1
            assert _x_px(fig, axis, newest) >= view_left, (name, width)
        if _x_px(fig, axis, xa.range[1]) - _x_px(fig, axis, 0) <= width:
            assert _x_px(fig, axis, 0) >= view_left - 0.5, (name, width)
    for note in lay.annotations:
        assert note.x * (lay.width - 2) + 1 >= view_left - 0.5, (note.text, width)


@settings(max_examples=30, deadline=None)
@given(shoes)
def test_cells_are_square_on_every_road(text: str):
    fig = board.board_figure(rounds_from_winners(text))
    lay = fig.layout
    w = lay.width - lay.margin.l - lay.margin.r
    h = lay.height - lay.margin.t - lay.margin.b
    sizes = {}
    for i in range(1, 6):
        sfx = "" if i == 1 else str(i)
        xa, ya = lay[f"xaxis{sfx}"], lay[f"yaxis{sfx}"]
        px_x = (xa.domain[1] - xa.domain[0]) * w / (xa.range[1] - xa.range[0])
        px_y = (ya.domain[1] - ya.domain[0]) * h / abs(ya.range[1] - ya.range[0])
        assert px_x == pytest.approx(px_y, rel=0.02)
        sizes[i] = px_x
    # derived roads at half the cell size of the big road, as on casino boards
    for i in (3, 4, 5):
        assert sizes[i] == pytest.approx(sizes[2] / 2, rel=0.02)
    # the bead plate in its own, larger cells (its letters must be read)
    assert sizes[1] == pytest.approx(lay.meta["roads"]["bead_plate"]["cell"], rel=0.02)
    assert sizes[1] > sizes[2]


def test_colours_banker_red_player_blue_tie_green_and_derived_by_meaning():
    fig = board.board_figure(rounds_from_winners("PBPPBPPPPBPPBPTBPPPP"))
    assert trace(fig, "B", "x").marker.color == board.RED
    assert trace(fig, "P", "x").marker.color == board.BLUE
    assert trace(fig, "T", "x").marker.color == board.GREEN
    assert trace(fig, "B", "x2").marker.symbol == "circle-open"
    assert trace(fig, "ties", "x2").marker.color == board.GREEN
    for axis, kind in (("x3", "big_eye_boy"), ("x4", "small_road"), ("x5", "cockroach_pig")):
        assert trace(fig, "red", axis).marker.color == board.RED
        assert trace(fig, "blue", axis).marker.color == board.BLUE
        assert trace(fig, "red", axis).marker.symbol == board.DERIVED_SYMBOL[kind]
    # spec example: big eye boy RBBBBRRBBBBBRRBRR -> 7 red, 10 blue
    assert (len(trace(fig, "red", "x3").x), len(trace(fig, "blue", "x3").x)) == (7, 10)


def test_tie_only_first_cell_shows_a_slash_with_its_count_and_no_ring():
    fig = board.big_road_figure(rounds_from_winners("TT"))
    assert [t.name for t in fig.data] == ["ties"]
    assert list(fig.data[0].text) == ["2"]
    assert (fig.data[0].x[0], fig.data[0].y[0]) == (0.5, 0.5)
    fig = board.big_road_figure(rounds_from_winners("TTB"))
    assert list(trace(fig, "ties").text) == ["2"] and len(trace(fig, "B").x) == 1
    fig = board.big_road_figure(rounds_from_winners("BT"))
    assert list(trace(fig, "ties").text) == [""]  # one tie: a slash without a number


def test_pair_dots_in_their_corners_and_natural_marked():
    # 4h 4d (player pair, 8 natural) against Ks Kc (banker pair, 0): player wins.
    rounds = add_cards(rounds_from_winners("B"), ["4h", "4d"], ["Ks", "Kc"])
    fig = board.bead_plate_figure(rounds)
    bp, pp = trace(fig, "banker_pair"), trace(fig, "player_pair")
    assert (bp.marker.color, pp.marker.color) == (board.RED, board.BLUE)
    assert (bp.x[0], bp.y[0]) == pytest.approx((0.16, 1.16))  # round 2 is row 1: top-left
    assert (pp.x[0], pp.y[0]) == pytest.approx((0.84, 1.84))  # bottom-right
    assert len(trace(fig, "natural").x) == 1
    # every bead shows its winner's letter, whether or not the points are known (one
    # kind of mark on the plate, not letters mixed with totals)
    assert list(trace(fig, "B").text) == ["B"] and list(trace(fig, "P").text) == ["P"]
    zh = board.bead_plate_figure(rounds, lang="zh")
    assert list(trace(zh, "B").text) == ["庄"] and list(trace(zh, "P").text) == ["闲"]


def test_a_long_shoe_keeps_the_newest_column_in_view_and_draws_only_what_shows():
    text = "BP" * 60  # 120 one-cell columns on the big road
    fig = board.big_road_figure(rounds_from_winners(text))
    x0, x1 = fig.layout.xaxis.range
    # the last column (119) and one spare column to its right fill the view's right end
    assert (x0, x1) == (121 - board.BIG_ROAD_COLS, 121.0)
    assert min(trace(fig, "B").x + trace(fig, "P").x) >= x0
    assert fig.layout.meta["marks"] == 120  # the data keeps every cell


def test_mini_big_road_is_small_and_plain():
    fig = board.big_road_figure(rounds_from_winners("BBPTP"), mini=True)
    assert fig.layout.height < board.ROWS * board.CELL_PX
    assert {t.name for t in fig.data} == {"B", "P", "ties"}
    assert trace(fig, "ties").text is None


def test_unknown_derived_road_is_refused():
    with pytest.raises(ValueError, match="not one of"):
        board.derived_road_figure(rounds_from_winners("BPB"), "dragon_tail")


def test_ask_road_text_shows_each_mark_or_a_dash():
    assert board.ask_road_text({}) == "— — —"
    text = board.ask_road_text({"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": None})
    assert text == ":blue[○] :red[●] —"


# --- the tab's save guard ----------------------------------------------------------------


def test_save_checked_refuses_a_stale_copy_and_keeps_the_newer_file(tmp_path: Path):
    state = save_checked(new_state(), rounds_from_winners("B"), tmp_path)
    other = load_state(state.meta.id, tmp_path)
    save_checked(other, rounds_from_winners("BP"), tmp_path)
    with pytest.raises(StaleShoeError, match="another tab"):
        save_checked(state, rounds_from_winners("BB"), tmp_path)
    rounds, _ = sh.load_shoe(state.meta.id, tmp_path)
    assert rounds.height == 2 and rounds["winner"].cast(pl.String).to_list() == ["B", "P"]


def test_save_checked_will_not_bring_back_a_deleted_shoe(tmp_path: Path):
    state = save_checked(new_state(), rounds_from_winners("B"), tmp_path)
    db.open_store(tmp_path).shoes.delete(state.meta.id)
    with pytest.raises(StaleShoeError, match="deleted"):
        save_checked(state, rounds_from_winners("BP"), tmp_path)
    assert db.open_store(tmp_path).shoes.list().height == 0


def _race(state, winners: str, start: threading.Barrier, folder: Path, outcome: list) -> None:
    start.wait()
    try:
        save_checked(state, rounds_from_winners(winners), folder)
        outcome.append(winners)
    except StaleShoeError:
        outcome.append("refused")


def test_two_tabs_saving_the_same_shoe_at_once_never_both_win(tmp_path: Path):
    """Tabs are threads of one server: exactly one of two racing saves may land."""
    for _ in range(20):
        base = save_checked(new_state(), rounds_from_winners("B"), tmp_path)
        tabs = [load_state(base.meta.id, tmp_path) for _ in range(2)]
        start = threading.Barrier(2)
        outcome: list[str] = []
        threads = [
            threading.Thread(target=_race, args=(tab, w, start, tmp_path, outcome))
            for tab, w in zip(tabs, ("BP", "BT"), strict=True)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcome)[1] == "refused", outcome
        on_disk, _ = sh.load_shoe(base.meta.id, tmp_path)
        assert "".join(on_disk["winner"].cast(pl.String).to_list()) in outcome


@settings(max_examples=50, deadline=None)
@given(shoes, hs.sampled_from("BP"))
def test_ghosted_ask_road_agrees_with_ask_road_and_stays_in_view(text: str, side: str):
    rounds = rounds_from_winners(text)
    fig = board.board_figure(rounds, board.BoardLook(ask=side))
    assert fig.layout.meta["ask"] == side
    want = ask_road(rounds, side)
    for kind, axis in (("big_eye_boy", "x3"), ("small_road", "x4"), ("cockroach_pig", "x5")):
        ghosts = [t for t in fig.data if t.name.startswith("ask ") and t.xaxis == axis]
        if want[kind] is None:
            assert ghosts == []
        else:
            assert [(t.name, len(t.x)) for t in ghosts] == [(f"ask {want[kind]}", 1)]
            x0, x1 = fig.layout[f"xaxis{axis[1:]}"].range
            assert x0 < ghosts[0].x[0] < x1
            assert ghosts[0].opacity < 1
    # the big road always gains its cell (a B/P result), in the result's colour (a
    # leading tie-only cell it takes over keeps its tie slash)
    big = [
        t
        for t in fig.data
        if t.name.startswith("ask ") and t.xaxis == "x2" and t.name != "ask ties"
    ]
    assert [(t.name, t.marker.color) for t in big] == [(f"ask {side}", board.WINNER_COLOUR[side])]
    # and nothing of the real roads changed
    assert fig.layout.meta["roads"] == board.board_figure(rounds).layout.meta["roads"]


@settings(max_examples=40, deadline=None)
@given(shoes, hs.sampled_from([360, 390, 768, 1024, 1280, 1440, 1920, 2560]))
def test_no_mark_is_bigger_than_its_cell_at_any_width(text: str, width: int):
    """Marker sizes are pixels: each must come from the cell it is drawn in, so a
    narrower page gives smaller marks, never overlapping ones."""
    rounds = add_cards(rounds_from_winners(text), ["4h", "4d"], ["Ks", "Kc"])  # pairs, natural
    fig = board.board_figure(rounds, board.BoardLook(width_px=width))
    cells = {AXIS_OF[k]: v["cell"] for k, v in fig.layout.meta["roads"].items()}
    checked = 0
    for t in fig.data:
        if not len(t.x or ()):
            continue
        px = cells[t.xaxis or "x"]
        extent = board.SYMBOL_EXTENT.get(t.marker.symbol, 1.0)
        size = t.marker.size * extent + (t.marker.line.width or 0)
        for x, y in zip(t.x, t.y, strict=True):
            for offset in (abs(x % 1 - 0.5), abs(y % 1 - 0.5)):
                assert offset * px + size / 2 <= px / 2 + 0.05, (t.name, width, size, px)
            checked += 1
        if t.text is not None and any(t.text):
            assert t.textfont.size <= 0.6 * px, (t.name, t.textfont.size, px)
    assert checked >= len(text) + 1


@settings(max_examples=40, deadline=None)
@given(
    shoes,
    hs.sampled_from([360, 1440]),
    hs.sampled_from([None, "B", "P"]),
    hs.booleans(),
    hs.sampled_from(["en", "zh"]),
)
def test_the_unchecked_board_is_what_plotly_checks_and_what_the_page_draws(
    text: str, width: int, ask: str | None, hold: bool, lang: str
):
    """The page hands the board's spec to plotly.js as plain JSON (`plot_host`), without
    Plotly's Python checks: Plotly must accept every attribute of it unchanged, and the
    JSON the page gets must be the spec itself, nothing lost or converted."""
    import plotly.graph_objects as go
    import plotly.io as pio

    rounds = add_cards(rounds_from_winners(text), ["4h", "4d"], ["Ks", "Kc"])
    spec = board.board_spec(
        rounds, board.BoardLook(width_px=width, ask=ask, hold_last=hold, lang=lang)
    )
    checked = go.Figure(spec).to_dict()  # raises on any attribute Plotly does not know
    checked["layout"].pop("template")
    plain = {**spec, "layout": {k: v for k, v in spec["layout"].items() if k != "template"}}
    assert json.loads(pio.to_json(checked)) == json.loads(pio.to_json(plain))
    assert json.loads(json.dumps(spec, allow_nan=False)) == spec


def _shape(spec: dict, narrow: bool) -> tuple:
    """What must not change while a shoe goes on: every road's rows, cells, place and
    size, and the figure's size (a stacked board may only grow to the right, in its own
    sideways scroll)."""
    lay = spec["layout"]
    roads = {k: (v["cell"], None if narrow else v["cols"]) for k, v in lay["meta"]["roads"].items()}
    axes = {
        k: (None if narrow else v["domain"], v["range"] if k.startswith("y") else None)
        for k, v in lay.items()
        if k.startswith(("xaxis", "yaxis"))
    }
    return lay["height"], None if narrow else lay["width"], str(roads), str(axes)


@settings(max_examples=25, deadline=None)
@given(hs.integers(1, 8), hs.data(), hs.sampled_from([358, 560, 976, 1456]))
def test_the_layout_holds_for_a_whole_shoe_at_a_given_width(decks: int, data, width: int):
    """Issue 26 item 4: at a given width and deck count, every prefix of a shoe (up to
    the longest one the decks allow) is drawn with the same rows, road sizes, cells and
    figure height: the entry buttons under the board never move. A stacked (phone) board
    only grows sideways, inside its own scroll box."""
    text = data.draw(hs.text(alphabet="BPT", min_size=1, max_size=13 * decks))
    rounds = rounds_from_winners(text)
    narrow = board.board_spec(rounds[:0], board.BoardLook(width_px=width, decks=decks))["layout"][
        "meta"
    ]["stacked"]
    shapes, widths = set(), []
    for n in range(len(text) + 1):
        spec = board.board_spec(rounds.head(n), board.BoardLook(width_px=width, decks=decks))
        shapes.add(_shape(spec, narrow))
        widths.append(spec["layout"]["width"])
    assert len(shapes) == 1, (len(shapes), text)
    assert widths == sorted(widths)
    if not narrow:
        assert widths[-1] <= width + 2  # and it fits the page


def test_an_eight_deck_shoe_of_81_rounds_keeps_the_shape_it_opened_with_at_1440():
    """The case in the issue: between rounds 60 and 70 the cockroach pig dropped to a row
    of its own and the board grew 68 px."""
    text = "".join(deal_shoe(2024, ShoeOptions(decks=8), 0).rounds["winner"].cast(pl.String))
    heights = [
        board.board_spec(rounds_from_winners(text[:n]), board.BoardLook(width_px=976))["layout"][
            "height"
        ]
        for n in (0, 40, 60, 70, 81)
    ]
    assert len(set(heights)) == 1, heights


@pytest.mark.parametrize("width", [358, 560, 816, 976, 1456])
def test_the_bead_plate_has_the_longest_shoes_columns_in_readable_cells(width: int):
    """Issue 26 item 5: 8 decks deal at most 104 rounds, so the bead plate has 18
    columns (not 40 with 15 in use), and its cells are `BEAD_MIN_CELL_PX` or more at
    every page width from a 390 px phone up (1024 px with the sidebar open: 560 px),
    each bead's letter 9.5 px or more."""
    rounds = add_cards(rounds_from_winners("BPT" * 20), ["4h", "4d"], ["Ks", "Kc"])
    for lang in ("en", "zh"):
        spec = board.board_spec(rounds, board.BoardLook(width_px=width, decks=8, lang=lang))
        bead = spec["layout"]["meta"]["roads"]["bead_plate"]
        assert bead["cols"] == 18
        assert bead["cell"] >= board.BEAD_MIN_CELL_PX
        letters = [t for t in spec["data"] if t.get("xaxis") == "x" and t.get("text")]
        assert letters and all(t["textfont"]["size"] >= 9.5 for t in letters)
        assert bead["cols"] * bead["cell"] <= width + 2.1  # the whole plate in view


def _cells(spec: dict, name: str, axis: str) -> list[tuple[float, float]]:
    return [
        (x, y)
        for t in spec["data"]
        if t["name"] == name and t["xaxis"] == axis
        for x, y in zip(t["x"], t["y"], strict=True)
    ]


def test_a_natural_has_a_gold_ring_round_its_bead():
    """Issue 26 item 12: naturals marked on the bead plate as road feeds mark them, a
    ring round the bead (a 5 px corner star could not be seen), only on natural rounds."""
    rounds = add_cards(rounds_from_winners("B"), ["4h", "4d"], ["Ks", "Kc"])  # P natural 8
    rounds = add_cards(rounds, ["Kh", "7d"], ["Qs", "6c"])  # P 7 against B 6: no natural
    spec = board.board_spec(rounds, board.BoardLook(width_px=976))
    ring = [t for t in spec["data"] if t["name"] == "natural_ring" and t["xaxis"] == "x"]
    assert _cells(spec, "natural_ring", "x") == [(0.5, 1.5)]  # round 2 only
    assert ring[0]["marker"]["color"] == board.GOLD
    assert ring[0]["marker"]["symbol"] == "circle-open"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_banker_win_on_six_is_marked_on_a_no_commission_table(lang: str):
    """Issue 26 item 12: on a table that pays a Banker win on 6 apart, that round's bead
    says 6 and its big-road cell has a filled centre; a Banker win on 7, or any table
    that pays it like any other win, has neither."""
    from roads_app.game.rounds import add_points

    rounds = add_points(add_points(rounds_from_winners("P"), 5, 6), 5, 7)  # B6 then B7
    spec = board.board_spec(rounds, board.BoardLook(width_px=976, six=True, lang=lang))
    texts = {
        (x, y): s
        for t in spec["data"]
        if t["xaxis"] == "x" and t.get("text")
        for x, y, s in zip(t["x"], t["y"], t["text"], strict=True)
    }
    assert texts[(0.5, 1.5)] == "6"
    assert texts[(0.5, 2.5)] == ("B" if lang == "en" else "庄")
    assert _cells(spec, "banker_six", "x2") == [(1.5, 0.5)]  # round 2: the big road's 2nd column
    plain = board.board_spec(rounds, board.BoardLook(width_px=976, six=False, lang=lang))
    assert "6" not in json.dumps([t.get("text") for t in plain["data"]])
    assert _cells(plain, "banker_six", "x2") == []


def test_ties_before_the_first_result_are_counted_apart_from_the_first_cells():
    """Issue 26 item 12: two ties open the shoe, then B, a tie, P. Road feeds keep the
    two opening ties apart: the big road's title counts them, and its first cell shows
    only its own tie (one slash, no number, not 3)."""
    spec = board.board_spec(rounds_from_winners("TTBTP"), board.BoardLook(width_px=976))
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert titles[1] == "Big road · 2 ties before the first result"
    ties = [t for t in spec["data"] if t["name"] == "ties" and t["xaxis"] == "x2"]
    assert [(x, y, s) for t in ties for x, y, s in zip(t["x"], t["y"], t["text"], strict=True)] == [
        (0.5, 0.5, "")
    ]
    zh = board.board_spec(rounds_from_winners("TB"), board.BoardLook(width_px=976, lang="zh"))
    assert zh["layout"]["annotations"][1]["text"] == "大路 · 首局前和 1 局"
    assert _cells(zh, "ties", "x2") == []  # the opening tie is not the first cell's own
    only = board.board_spec(
        rounds_from_winners("TTT"), board.BoardLook(width_px=976)
    )  # no result yet
    assert only["layout"]["annotations"][1]["text"] == "Big road"  # the cell says 3
    assert [t["text"] for t in only["data"] if t["name"] == "ties"] == [["3"]]


@settings(max_examples=25, deadline=None)
@given(shoes, hs.sampled_from([390, 976, 1440]), hs.sampled_from(["en", "zh"]))
def test_a_board_with_the_default_look_is_the_board_with_every_field_spelled_out(
    text: str, width: int, lang: str
):
    """`BoardLook`'s defaults are the board every caller got before the look was a record
    (the page's light board, laid out for 8 decks): a changed default shows here. The dark
    theme is that board recoloured (`board.recolour`), nothing else."""
    rounds = rounds_from_winners(text)
    spelled = board.BoardLook(
        width_px=board.DEFAULT_WIDTH_PX,
        height_px=None,
        max_cell=board.MAX_CELL_PX,
        rows=board.ROWS,
        lang="en",
        ask=None,
        hold_last=False,
        decks=8,
        six=False,
        last_mark_s=None,
        theme=board.Theme.LIGHT,
    )
    assert board.board_spec(rounds) == board.board_spec(rounds, spelled)
    light = board.BoardLook(width_px=width, lang=lang)
    dark = board.BoardLook(width_px=width, lang=lang, theme=board.Theme.DARK)
    want = board.recolour(board.board_spec(rounds, light), board.Theme.DARK)
    assert board.board_spec(rounds, dark) == want


def test_a_tie_of_naturals_has_the_gold_ring_and_a_tie_of_sevens_has_none():
    """A tie's bead is a natural's when the hands are naturals (8 against 8: neither side
    draws, so a tie holds a natural on both sides or on neither)."""
    rounds = add_cards(rounds_from_winners(""), ["4h", "4d"], ["5s", "3c"])  # 8 = 8
    rounds = add_cards(rounds, ["Kh", "7d"], ["Qs", "7c"])  # 7 = 7, both stand
    spec = board.board_spec(rounds, board.BoardLook(width_px=976))
    assert rounds["winner"].cast(str).to_list() == ["T", "T"]
    assert _cells(spec, "natural_ring", "x") == [(0.5, 0.5)]  # round 1 only
    assert _cells(spec, "natural", "x") == [(0.84, 0.16)]  # and its corner star
