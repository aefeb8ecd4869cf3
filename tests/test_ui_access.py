"""An exposed dashboard (`--host`): no token sees nothing, a viewer sees the board
without the controls, an operator enters results. Through Streamlit's AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens
from roads_app.ui import access, session
from tests.apphelp import open_tab

APP = str(Path(__file__).resolve().parents[1] / "roads_app" / "ui" / "app.py")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(folder))
    monkeypatch.setenv(access.HOST_ENV, "0.0.0.0")
    return folder


def open_app(shoe: str, token: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[session.URL_PARAM] = shoe
    if token is not None:
        at.query_params[access.TOKEN_PARAM] = token
    at.run()
    assert not at.exception, at.exception
    return at


def entry_buttons(at: AppTest) -> list[str]:
    return [b.key for b in at.button if b.key in ("btn_B", "btn_P", "btn_T", "btn_undo")]


def drawn_specs(at: AppTest) -> list[dict]:
    """The figure specs the page draws in place (`plot_host`), as the browser gets them."""
    return [
        json.loads(c.proto.json)["spec"]
        for c in at.get("bidi_component")
        if c.proto.component_name == "roads_app.plot"
    ]


def shoe_with(data: Path, winners: str) -> str:
    meta = ShoeMeta(name="exposed")
    db.open_store(data).shoes.create(meta, rounds_from_winners(winners))
    return meta.id


def test_no_token_sees_no_board_and_no_controls(data: Path):
    shoe = shoe_with(data, "BPB")
    for token in (None, "ra_op_made-up"):
        at = open_app(shoe, token)
        assert entry_buttons(at) == []
        assert any("token" in i.value for i in at.info)
        assert not drawn_specs(at)


def test_a_viewer_sees_the_board_but_cannot_enter(data: Path):
    shoe = shoe_with(data, "BPB")
    at = open_app(shoe, tokens.issue(data, "viewer"))
    assert entry_buttons(at) == []
    assert drawn_specs(at)
    assert "token" not in at.query_params  # taken out of the address bar


def test_an_operator_enters_results(data: Path):
    shoe = shoe_with(data, "BPB")
    at = open_app(shoe, tokens.issue(data, "operator"))
    assert set(entry_buttons(at)) == {"btn_B", "btn_P", "btn_T", "btn_undo"}
    at.button(key="btn_T").click().run()
    assert db.open_store(data).shoes.load(shoe).rounds["winner"].to_list() == list("BPBT")


def test_on_this_machine_only_nobody_needs_a_token(data: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(access.HOST_ENV, "127.0.0.1")
    shoe = shoe_with(data, "B")
    assert set(entry_buttons(open_app(shoe))) == {"btn_B", "btn_P", "btn_T", "btn_undo"}


def test_the_entry_script_shows_no_stray_text(tmp_path: Path, monkeypatch) -> None:
    """app.py is Streamlit's script: a bare string in it would be printed on every page."""
    from roads_app.serve import APP_PATH

    monkeypatch.setenv(session.DATA_ENV, str(tmp_path))
    monkeypatch.setenv(access.HOST_ENV, "127.0.0.1")
    at = AppTest.from_file(str(APP_PATH), default_timeout=120).run()
    assert not at.exception
    assert not any("viewer sees" in m.value for m in at.markdown)


@pytest.mark.parametrize("action", ["btn_T", "btn_undo", "btn_new", "bets_bet_banker"])
def test_a_revoked_operator_token_changes_nothing(data: Path, action: str):
    """`roads-app token --revoke-all` while the tab is open: its next change is refused,
    said so, and the controls go; the saved shoe and its bets are as they were."""
    shoe = shoe_with(data, "BPB")
    at = open_app(shoe, tokens.issue(data, "operator"))
    if action == "btn_new":
        open_tab(at, "new")
    at.button(key="btn_T").click().run()  # the token holds: saved
    store = db.open_store(data)
    before = (store.shoes.load(shoe).rounds, store.bets.load(shoe, "bets"), store.shoes.list())
    assert before[0]["winner"].to_list() == list("BPBT")

    tokens.revoke_all(data, "operator")
    at.button(key=action).click().run()
    assert not at.exception, at.exception
    after = (store.shoes.load(shoe).rounds, store.bets.load(shoe, "bets"), store.shoes.list())
    assert after[0].equals(before[0]) and after[1].equals(before[1])
    assert after[2].height == before[2].height  # no new shoe either
    assert any("no longer allows changes" in e.value for e in at.error), at.error
    assert entry_buttons(at) == []
