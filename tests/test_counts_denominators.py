"""Counts that look complete must be: every page says what a flag count is out of.

A shoe keyed by winner with a few rounds entered with the pair toggles has seen only
those rounds' pairs. `roads.stats.flag_counts` gives each count with its denominator,
and the scoreboard's statistics and count strip, the lobby line (and so the replay and
the display, which draw the same strip and statistics) all say it the same way.
"""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as hs

from roads_app.game.rounds import rounds_from_winners
from roads_app.roads.stats import FLAGS, flag_counts
from roads_app.store import library
from roads_app.ui.board_view import count_strip_html
from roads_app.ui.stats_view import stats_markdown
from roads_app.ui.wall_tile import counts_parts


def counts_line(counts: dict) -> str:
    """The counts under a wall tile's roads, as the page writes them (`counts_parts`)."""
    return "".join(text for text, _ in counts_parts(counts, "en"))


flags = hs.lists(hs.sampled_from([None, False, True]), min_size=0, max_size=60)


def keyed_shoe(n: int, with_pairs: dict[int, tuple[bool, bool]]) -> pl.DataFrame:
    """``n`` rounds by key; rounds in ``with_pairs`` entered with (banker, player) pairs."""
    rounds = rounds_from_winners("BPBPT" * (n // 5 + 1)).head(n)
    bank = [with_pairs[r][0] if r in with_pairs else None for r in rounds["round"]]
    play = [with_pairs[r][1] if r in with_pairs else None for r in rounds["round"]]
    return rounds.with_columns(
        banker_pair=pl.Series(bank, dtype=pl.Boolean), player_pair=pl.Series(play, dtype=pl.Boolean)
    )


@settings(max_examples=60, deadline=None)
@given(flags)
def test_each_flag_counts_its_hits_out_of_the_rounds_that_recorded_it(values):
    rounds = rounds_from_winners("B" * len(values)).with_columns(
        banker_pair=pl.Series(values, dtype=pl.Boolean)
    )
    c = flag_counts(rounds)["banker_pair"]
    assert c.hits == sum(v is True for v in values)
    assert c.recorded == sum(v is not None for v in values)
    assert c.rounds == len(values)
    assert c.complete == (None not in values)
    assert set(flag_counts(rounds)) == set(FLAGS)


ISSUE_SHOE = keyed_shoe(
    80, {1: (True, False), 2: (False, True), 3: (True, True), 4: (False, False), 5: (False, False)}
)


def test_the_issue_shoe_says_its_pairs_are_out_of_five_rounds_on_every_page():
    said = "in the 5 rounds with pairs"
    assert said in stats_markdown(ISSUE_SHOE)
    assert said in count_strip_html(ISSUE_SHOE, "en")
    assert said in counts_line(library.counts(ISSUE_SHOE))
    zh = count_strip_html(ISSUE_SHOE, "zh")
    assert "记录了对子的 5 局中" in zh


def test_a_shoe_that_never_recorded_pairs_says_so_instead_of_zero():
    rounds = keyed_shoe(30, {})
    line = counts_line(library.counts(rounds))
    assert "not recorded" in line and "P 0" not in line and "B 0" not in line
    assert "Pairs: not recorded" in stats_markdown(rounds)
    assert "not recorded" in count_strip_html(rounds, "en")


def test_a_shoe_with_every_pair_recorded_says_the_plain_count():
    rounds = keyed_shoe(5, {r: (r == 1, r < 3) for r in range(1, 6)})
    pairs = next(ln for ln in stats_markdown(rounds).splitlines() if ln.startswith("Pairs"))
    assert pairs.strip() == "Pairs: banker **1** · player **2**"
    assert "rounds with" not in counts_line(library.counts(rounds))
