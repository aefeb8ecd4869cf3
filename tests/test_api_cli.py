"""The live-feed commands' refusals and the API started beside the dashboard (in-process)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from roads_app.api.server import api_command
from roads_app.cli import api as cli_api
from roads_app.cli import main
from roads_app.errors import RoadsAppError


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        s.listen(1)
        yield s.getsockname()[1]


def test_a_busy_api_port_asked_for_is_refused(busy_port: int, tmp_path: Path):
    with (
        pytest.raises(RoadsAppError, match="already in use"),
        cli_api.api_beside(tmp_path / "d", busy_port),
    ):
        pass


def test_the_default_api_port_taken_is_a_note_not_a_failure(tmp_path: Path, capsys):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:  # make sure 8502 is taken (by us, or by whoever already has it)
            s.bind(("", cli_api.DEFAULT_API_PORT))
            s.listen(1)
        except OSError:
            pass
        ran = []
        with cli_api.api_beside(tmp_path / "d", None):
            ran.append(True)
    assert ran == [True]
    assert "API is not started" in capsys.readouterr().err


def test_api_port_zero_starts_nothing(tmp_path: Path):
    with cli_api.api_beside(tmp_path / "d", 0):
        assert not (tmp_path / "d").exists()


def test_the_dashboard_starts_the_api_with_the_sample_shoes_rule():
    cmd = api_command(Path("/x"), 8600, "0.0.0.0")
    assert cmd[1:3] == ["-m", "roads_app.api.server"] and "--samples" in cmd
    assert cmd[cmd.index("--port") + 1] == "8600" and cmd[cmd.index("--host") + 1] == "0.0.0.0"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["api", "--port", "70000"], "out of range"),
        (["feed", "--shoe", "x", "--simulate", "--seed", "-1"], "seed"),
        (["feed", "--shoe", "x", "--simulate", "--seed", "1", "--every", "-1"], "out of range"),
        (["feed", "--shoe", "x", "--seed", "1"], "--simulate"),
        (
            ["feed", "--shoe", "x", "--simulate", "--seed", "1", "--api", "http://127.0.0.1:9"],
            "cannot reach",
        ),
    ],
)
def test_feed_and_api_refusals_are_one_line(argv: list[str], says: str, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err, err


def test_the_dashboard_tells_its_pages_where_it_listens():
    from roads_app.ui import access

    assert cli_api.HOST_ENV == access.HOST_ENV


def test_a_screen_key_is_the_last_word_and_kept_as_a_hash(tmp_path: Path, capsys):
    """``token --screen [--table CODE]`` prints a new screen key as its output's last
    word (a key each time); only its hash is kept, with the table; ``--screen
    --revoke-all`` revokes them. A bad table code, or ``--table`` without ``--screen``,
    is one line and exit 2, and no key is made."""
    from roads_app.store import db, tokens

    data = str(tmp_path / "d")
    keys = []
    for more in ([], ["--table", "T7"]):
        assert main(["token", "--screen", "--data", data, *more]) == 0
        keys.append(capsys.readouterr().out.split()[-1])
    store = db.open_store(data)
    found = [store.tokens.key(tokens.hash_token(k)) for k in keys]
    assert [(k.role, k.table) for k in found if k] == [("screen", None), ("screen", "T7")]
    rows = store.con.execute("SELECT hash FROM screen_keys").fetchall()
    assert len(rows) == 2 and not {k for k in keys} & {r[0] for r in rows}
    for argv in (["--screen", "--table", "no way"], ["--table", "T7"]):
        assert main(["token", "--data", data, *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and "--table" in err, err
    assert main(["token", "--screen", "--revoke-all", "--data", data]) == 0
    assert all(store.tokens.role(tokens.hash_token(k)) is None for k in keys)
    assert store.con.execute("SELECT count(*) FROM screen_keys").fetchone()[0] == 2
