"""The live-odds grid fits the room it has (a phone's page) without a sideways scroll,
names whole: wrapped rather than cut (issue 26: "Player Natur…")."""

from hypothesis import given
from hypothesis import strategies as st

from roads_app.bets.tables import list_tables, load_table
from roads_app.ui import live_odds as lo


@given(st.sampled_from(list_tables()), st.integers(320, 2000))
def test_the_shown_columns_fit_the_room_and_every_word_of_a_name_fits_its_column(
    rules: str, room: int
):
    labels = [b.label for b in load_table(rules).bets.values()]
    fit = lo._fit(labels, room)
    shown = sum(w for k, w in lo.FIGURE_PX.items() if k != "col_now" or not fit["narrow"])
    assert fit["name"] + shown <= room - 4
    words = [w for label in labels for w in label.split()]
    assert all(lo._text_px(w) + 22 <= fit["name"] for w in words)  # wraps, never cuts
    if not fit["wrap"]:
        assert all(lo._text_px(label) + 22 <= fit["name"] for label in labels)


def test_a_wide_page_keeps_every_column_and_names_on_one_line():
    labels = [b.label for b in load_table("winbox").bets.values()]
    assert lo._fit(labels, 1000) == lo._fit(labels, None)
    assert not lo._fit(labels, None)["narrow"] and not lo._fit(labels, None)["wrap"]
