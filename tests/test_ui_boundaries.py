"""The dashboard's boundaries: a bug is a short message with the log pointer, names are
text, and the server listens on this machine only unless --host says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from roads_app import serve
from roads_app.cli import build_parser
from roads_app.ui.words import md_text


def _buggy_page() -> None:
    import streamlit as st

    from roads_app.ui.guard import guarded
    from roads_app.ui.words import md_text

    st.markdown(f"### {md_text('<b>x</b> **y** [l](http://h) :red[z]')}")

    @guarded
    def page() -> None:
        st.write("before the bug")
        _ = {}["missing key"]  # a genuine slip, the kind of bug the guard is for

    page()


def test_a_bug_in_a_page_is_a_short_message_with_the_log_pointer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROADS_APP_LOG_DIR", str(tmp_path))
    at = AppTest.from_function(_buggy_page, default_timeout=60).run()
    assert not at.exception
    [error] = at.error
    assert "bug in roads\\-app \\(KeyError" in error.value
    logs = list(tmp_path.glob("bug-*.log"))
    assert len(logs) == 1 and "missing key" in logs[0].read_text()
    assert md_text(str(logs[0])) in error.value  # the path, shown as text


def test_names_are_escaped_so_markdown_shows_them_literally() -> None:
    at = AppTest.from_function(_buggy_page, default_timeout=60).run()
    heading = at.markdown[0].value
    for raw in ("<b>", "**y**", "[l](http://h)", ":red["):
        assert raw not in heading
    assert "\\<b\\>x\\<\\/b\\>" in heading  # shown as the characters typed


def test_the_dashboard_listens_on_this_machine_unless_told() -> None:
    args = build_parser().parse_args([])
    assert args.host == "127.0.0.1"
    cmd = serve.streamlit_command(8600, True)
    assert cmd[cmd.index("--server.address") + 1] == "127.0.0.1"
    cmd = serve.streamlit_command(8600, True, build_parser().parse_args(["--host", "0.0.0.0"]).host)
    assert cmd[cmd.index("--server.address") + 1] == "0.0.0.0"
