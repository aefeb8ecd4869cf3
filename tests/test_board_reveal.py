"""The board held during a hand's reveal tells nothing of the hand before its last card.

`board_figure(..., BoardLook(hold_last=True))` is compared with the board drawn without a hold:
before the reveal ends, the marks on show are exactly those of the shoe without its
last round (a tie's count on an earlier cell included); after it (``new`` marks shown,
``old`` ones hidden, as the page does), exactly those of the whole shoe. The layout
is the same whatever the last result was, so its size does not tell it either.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from roads_app.game.rounds import rounds_from_winners
from roads_app.render.board import BoardLook, board_figure
from roads_app.ui.board_view import held_strip_html

Point = tuple[str, str, float, float, str | None]


def _points(fig: object, phase: str = "plain") -> Counter[Point]:
    """Every mark on show, as (axis, trace kind, x, y, text), in a phase of the hold."""
    out: Counter[Point] = Counter()
    for t in fig.data:  # type: ignore[attr-defined]
        name = t.name or ""
        if name == "grid" or name.startswith("ask "):
            continue
        kind = name.removeprefix("new ").removeprefix("old ")
        if phase == "before" and name.startswith("new "):
            continue
        if phase == "after" and name.startswith("old "):
            continue
        if phase == "plain":
            assert not name.startswith(("new ", "old ")), name
        texts = list(t.text) if t.text is not None else [None] * len(t.x)
        for x, y, text in zip(t.x, t.y, texts, strict=True):
            out[(t.xaxis, kind, float(x), float(y), text)] += 1
    return out


def _held_are_invisible(fig: object) -> bool:
    return all(t.opacity == 0 for t in fig.data if (t.name or "").startswith("new "))  # type: ignore[attr-defined]


shoes = st.text(alphabet="BPT", min_size=0, max_size=70)


@settings(max_examples=60, deadline=None)
@given(shoes, st.sampled_from("BPT"))
def test_held_board_shows_the_shoe_before_the_last_round_then_the_whole_shoe(
    earlier: str, last: str
) -> None:
    rounds = rounds_from_winners(earlier + last)
    held = board_figure(rounds, BoardLook(hold_last=True, width_px=1200))
    assert _held_are_invisible(held)
    assert _points(held, "before") == _points(board_figure(rounds.head(len(earlier))))
    assert _points(held, "after") == _points(board_figure(rounds))


@settings(max_examples=40, deadline=None)
@given(shoes, st.sampled_from([390, 1024, 1440]))
@example("BP" * 40, 1440)  # past the big road's floor of columns: a new column would show
@example("BBPPBBPP" * 9, 390)
def test_held_board_layout_is_the_same_whatever_the_last_result(earlier: str, width: int) -> None:
    sizes = set()
    for last in "BPT":
        fig = board_figure(
            rounds_from_winners(earlier + last), BoardLook(hold_last=True, width_px=width)
        )
        cols = {k: v["cols"] for k, v in fig.layout.meta["roads"].items()}
        sizes.add((fig.layout.width, fig.layout.height, fig.layout.meta["cell"], str(cols)))
    assert len(sizes) == 1, sizes


def test_a_second_tie_on_a_cell_keeps_its_old_count_until_the_reveal() -> None:
    """The case found in the browser: B then T then T: the big road cell said 2 at once."""
    held = board_figure(rounds_from_winners("BTT"), BoardLook(hold_last=True))
    on_show = [p for p in _points(held, "before") if p[1] == "ties"]
    assert [p[4] for p in on_show] == [""]  # one tie so far: a slash, no number
    after = [p for p in _points(held, "after") if p[1] == "ties"]
    assert [p[4] for p in after] == ["2"]


def test_held_count_strip_shows_the_counts_before_the_last_round_first() -> None:
    rounds = rounds_from_winners("BBPT")
    html = held_strip_html(rounds, "en")
    first, second = html.split("<div class='rd-hold-b-4'>")
    assert "<div class='rd-hold-a-4'>" in first and "Tie <b>0</b>" in first  # no tie yet
    assert "Tie <b>1</b>" in second and "Hands <b>4</b>" in second
    # the swap waits for the page to say round 4's reveal has ended
    assert 'html[data-rd-shown="4"] .rd-hold-b-4{max-height:none;visibility:visible}' in html
    assert '.rd-hold-b-4,html[data-rd-shown="4"] .rd-hold-a-4{max-height:0' in html


def test_a_held_board_needs_the_rounds_frame() -> None:
    import pytest

    from roads_app.roads.grids import all_roads

    with pytest.raises(ValueError, match="rounds frame"):
        board_figure(all_roads(rounds_from_winners("BP")), BoardLook(hold_last=True))
