"""The PNG export is a scorecard someone can print and share: the board under a header
of the shoe's name, table, decks, date and counts (pairs with their denominators)."""

from __future__ import annotations

import io

import numpy as np
import polars as pl

from roads_app.game.rounds import ShoeMeta
from roads_app.game.shoe import deal_shoe
from roads_app.render import scorecard
from roads_app.render.board import BoardLook, board_figure
from roads_app.render.scorecard import HEADER_PX, scorecard_figure


def header_text(fig) -> str:
    return "\n".join(a.text for a in fig.layout.annotations)


def test_the_header_names_the_shoe_its_table_date_and_counts():
    dealt = deal_shoe(11)
    rounds = dealt.rounds.head(40)
    meta = ShoeMeta(**{**dealt.meta.to_dict(), "name": "Saturday <b>x</b>", "rules": "winbox"})
    text = header_text(scorecard_figure(rounds, meta, "Winbox"))
    winners = rounds["winner"].cast(pl.String).to_list()
    for word, side in (("Banker", "B"), ("Player", "P"), ("Tie", "T")):
        assert f"{word} <b>{winners.count(side)}</b>" in text
    assert "Hands <b>40</b>" in text
    pairs = sum(bool(v) for v in rounds["banker_pair"].to_list())
    assert f"Pairs: banker <b>{pairs}</b>" in text  # dealt: every round has its pairs
    assert "Table Winbox" in text and "Decks 8" in text and meta.created[:10] in text
    assert "Saturday &lt;b&gt;x&lt;/b&gt;" in text  # the name is text, not markup


def test_a_keyed_shoe_says_its_pairs_are_not_recorded():
    from roads_app.game.rounds import rounds_from_winners

    text = header_text(scorecard_figure(rounds_from_winners("BPBBT"), ShoeMeta(name="n")))
    assert "Pairs: not recorded" in text and "Naturals: not recorded" in text


def test_the_png_carries_the_header_lines_above_the_board():
    from PIL import Image

    dealt = deal_shoe(5)
    png = scorecard.board_png(dealt.rounds, meta=dealt.meta)
    with Image.open(io.BytesIO(png)) as im:
        px = np.asarray(im.convert("L"), dtype=np.int32)
    board_h = board_figure(dealt.rounds, BoardLook(width_px=scorecard.PNG_WIDTH_PX)).layout.height
    assert px.shape[0] == (board_h + HEADER_PX) * scorecard.PNG_SCALE
    head = px[: HEADER_PX * scorecard.PNG_SCALE]
    inked = (head < 120).any(axis=1)  # rows holding dark text
    bands = int((inked[1:] & ~inked[:-1]).sum() + inked[0])
    assert bands >= 3  # name; table, decks, date; the counts
