"""Good roads on the dashboard through Streamlit's AppTest: the scoreboard header's tags
follow each key, in English and 中文; the sidebar names the catalogue in force; the
good-roads page runs the study and shows it in both languages; the settings' edits are
checked like a file and saved as the player's catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from roads_app.bets import tables
from roads_app.errors import RulesError
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.roads import good_roads as gr
from roads_app.ui import session
from tests import storehelp as sh

APP = str(Path(__file__).resolve().parents[1] / "roads_app" / "ui" / "app.py")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(folder))
    monkeypatch.setenv(tables.TABLES_ENV, str(tmp_path / "tables"))
    return folder


def _tags(at: AppTest, key: str = "good_roads") -> str:
    texts = [t.value for t in at.get("text") if t.value.startswith(("Good roads:", "好路："))]
    assert texts, [t.value for t in at.get("text")]
    return texts[0]


@pytest.mark.parametrize(
    ("lang", "before", "after"),
    [
        ("en", "Good roads: Single jump", "Good roads: Single jump · Banker jumps"),
        ("zh", "好路：单跳", "好路：单跳 · 逢庄跳"),
    ],
)
def test_the_scoreboard_header_tags_follow_each_key(
    data: Path, lang: str, before: str, after: str
) -> None:
    meta = ShoeMeta(name="Table 9")
    sh.save_shoe(rounds_from_winners("BPTBP"), meta, data)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[session.URL_PARAM] = meta.id
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    assert _tags(at) == before
    at.button(key="btn_B").click().run()
    assert _tags(at) == after
    at.button(key="btn_B").click().run()
    assert _tags(at) == ("Good roads: none" if lang == "en" else "好路：暂无")
    side = [t.value for t in at.sidebar.get("text")]
    in_force = "Good roads by the built-in catalogue" if lang == "en" else "好路规则：内置"
    assert in_force in side, side  # the catalogue in force, named in the page's words


def _page() -> None:
    from roads_app.ui.good_roads_page import render_good_roads_page

    render_good_roads_page()


@pytest.mark.parametrize(("lang", "pattern"), [("en", "Single jump"), ("zh", "单跳")])
def test_the_study_page_shows_every_pattern(data: Path, lang: str, pattern: str) -> None:
    at = AppTest.from_function(_page, default_timeout=300)
    at.query_params["lang"] = lang
    at.run()
    at.number_input(key="gr.study.shoes").set_value(2000)
    at.button(key="gr.study.run").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    frame = at.dataframe[0].value
    assert len(frame) == len(gr.in_force().keys)
    assert frame.iloc[0, 0] == pattern
    verdicts = [t.value for t in at.get("text") if t.value.startswith(pattern + ":")]
    assert verdicts and ("within" in verdicts[0] or "运气" in verdicts[0])


def _edited(changes: dict[str, str], off: set[str]) -> pl.DataFrame:
    cat = gr.load_catalogue(gr.default_path())
    return pl.DataFrame(
        [
            {
                "key": p.key,
                "name": p.en,
                "invites": p.invites.value,
                "rule": p.description,
                "enabled": p.key not in off,
                "columns": changes.get(p.key, ", ".join(c.text for c in p.columns)),
            }
            for p in cat.patterns
        ]
    )


def test_settings_edits_are_checked_and_saved_as_the_players_catalogue(data: Path) -> None:
    from roads_app.ui.good_roads_page import edited_catalogue

    cat = gr.load_catalogue(gr.default_path())
    new = edited_catalogue(cat, _edited({"long_banker": "B>=8"}, {"single_jump"}))
    path = gr.save_user_catalogue(new)
    assert path == gr.user_path()
    force = gr.in_force()
    assert force.where == str(path)
    assert "single_jump" not in force.keys
    assert gr.tags_of_winners("BBBBBBB", force) == []
    assert gr.tags_of_winners("BBBBBBBB", force) == ["long_banker"]
    with pytest.raises(RulesError) as e:
        edited_catalogue(cat, _edited({"long_player": "P>=4, X=2"}, set()))
    assert "patterns.10.columns.1" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("shoe", "new"),
    [
        ("BPBP", ["single_jump"]),  # entered on its last round
        ("BPBPT", []),  # a tie changes nothing: it held before
        ("BPBPB", ["banker_jumps"]),  # single jump held already: only the newcomer
        ("BBBB", ["long_banker"]),
        ("BBBBB", []),
        ("", []),
    ],
)
def test_a_table_alerts_only_on_a_pattern_it_did_not_hold_a_round_before(
    shoe: str, new: list[str]
) -> None:
    assert gr.entered(shoe) == new
    rounds = rounds_from_winners(shoe)  # a frame's tags are its letters' tags
    assert gr.tags_now(rounds) == gr.tags_now(rounds, len(shoe)) == gr.tags_of_winners(shoe)


def test_the_filter_passes_tables_on_a_picked_pattern() -> None:
    from roads_app.ui.good_roads_view import shown

    assert shown([], []) and shown(["single_jump"], [])
    assert shown(["single_jump", "long_banker"], ["long_banker", "long_player"])
    assert not shown(["single_jump"], ["long_banker", "long_player"])
    assert not shown([], ["long_banker"])


# --- the lobby: tags, filter, alert ---------------------------------------------------


def _lobby() -> None:
    import streamlit as st

    from roads_app.ui.lobby_page import render_lobby_page

    st.navigation([st.Page(render_lobby_page, url_path="lobby", default=True)]).run()


def _hand(data: Path, winners: str, name: str) -> ShoeMeta:
    meta = ShoeMeta(name=name, source="hand")
    sh.save_shoe(rounds_from_winners(winners), meta, data)
    return meta


def _open_buttons(at: AppTest) -> set[str]:
    return {b.key.removeprefix("lobby_open_") for b in at.button if b.key.startswith("lobby_open_")}


@pytest.mark.parametrize(
    ("lang", "dragon", "alert_words"),
    [
        ("en", "Good roads: Long banker dragon", "is on a good road: Long banker dragon"),
        ("zh", "好路：长庄", "出现好路：长庄"),
    ],
)
def test_the_lobby_tags_filters_and_alerts(
    data: Path, lang: str, dragon: str, alert_words: str
) -> None:
    long_b = _hand(data, "PBBBB", "dragon table")
    jumps = _hand(data, "BPBP", "jump table")
    later = _hand(data, "PBBB", "later table")
    at = AppTest.from_function(_lobby, default_timeout=60)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    texts = [t.value for t in at.get("text")]
    assert dragon in texts
    assert ("Good roads: Single jump" if lang == "en" else "好路：单跳") in texts
    assert not at.toast  # what tables held when the page opened is not news
    assert _open_buttons(at) == {long_b.id, jumps.id, later.id}
    at.multiselect(key="lobby_good_roads_filter").set_value(["long_banker", "long_player"]).run()
    assert _open_buttons(at) == {long_b.id}  # tables on a long dragon only
    # another writer (the API, another tab) adds a Banker: the later table turns a dragon
    sh.save_shoe(rounds_from_winners("PBBBB"), later, data)
    at.run()
    assert _open_buttons(at) == {long_b.id, later.id}
    toasts = [t.value for t in at.toast]
    assert len(toasts) == 1 and alert_words in toasts[0] and "later table" in toasts[0]
    at.run()
    assert not at.toast  # said once


def _display() -> None:
    import streamlit as st

    from roads_app.ui.display_page import render_display_page

    st.navigation([st.Page(render_display_page, url_path="display", default=True)]).run()


@pytest.mark.parametrize(
    ("lang", "want"), [("en", ["Double jump", "Paired columns"]), ("zh", ["双跳", "排排连"])]
)
def test_the_display_header_shows_the_tags(data: Path, lang: str, want: list[str]) -> None:
    """The good roads as badges in the header, one each, in the colour of the big road's
    side (the last result not a tie: P, blue); no line of small type about them."""
    meta = _hand(data, "BBPPTBBPP", "display table")
    at = AppTest.from_function(_display, default_timeout=60)
    at.query_params["shoe"] = meta.id
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    head = [h.proto.body for h in at.get("html") if "<div class='rd-display-head'>" in h.proto.body]
    assert len(head) == 1
    badges = re.findall(r"data-testid='good-road' data-side='(\w)'[^>]*>([^<]*)<", head[0])
    assert badges == [("P", w) for w in want]
    assert not [t.value for t in at.get("text") if "Good roads" in t.value or "好路" in t.value]
