"""The hostile requests and server command lines (`tests/hostile/api_requests.py`),
against a real ``roads-app api`` process over real HTTP and as real subprocesses.

Each request must get its status with one short line, no server path, no more than a
short quote of what it sent, and leave every shoe as it was; each command line must
end in one line and exit status 2 before any server starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from roads_app.cli import main
from roads_app.store import tokens
from tests.api_server import ApiServer, free_port
from tests.hostile.api_requests import (
    BAD_FEED_ARGS,
    BAD_REQUESTS,
    BAD_SERVER_ARGS,
    NAT,
    BadRequest,
)

DETAIL_MAX = 300


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("hostile-api") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def shoes(server: ApiServer) -> dict[str, str]:
    """The shoes the requests aim at, and the operator token (key ``token``)."""
    token = tokens.issue(server.data_dir, "operator")
    with server.client(token) as op:
        cards = op.post("/shoes", json={"name": "by cards"}).json()["id"]
        assert op.post(f"/shoes/{cards}/rounds", json=NAT).status_code == 201
        deck1 = op.post("/shoes", json={"name": "1 deck", "decks": 1}).json()["id"]
        for _ in range(13):
            assert op.post(f"/shoes/{deck1}/rounds", json={"winner": "B"}).status_code == 201
        empty = op.post("/shoes", json={"name": "empty"}).json()["id"]
    return {"cards": cards, "deck1": deck1, "open": empty, "token": token}


def library(server: ApiServer) -> list[dict]:
    with server.client() as c:
        listed = c.get("/shoes").json()
        return [c.get(f"/shoes/{s['id']}").json() for s in listed]


def check_detail(detail: object, server_dir: Path, payload: str = "") -> str:
    """One line, short, no server path, no long echo of what was sent."""
    assert isinstance(detail, str) and detail, detail
    assert "\n" not in detail and "\r" not in detail and len(detail) <= DETAIL_MAX, detail
    assert str(server_dir) not in detail and str(server_dir.parent) not in detail, detail
    assert "Traceback" not in detail and "bug in roads-app" not in detail, detail
    if payload:
        assert payload not in detail, detail
    return detail


def send(server: ApiServer, case: BadRequest, shoes: dict[str, str]) -> httpx.Response:
    path = case.path
    for name in ("cards", "deck1", "open"):
        path = path.replace(f"{{{name}}}", shoes[name])
    headers = {"Content-Type": "application/json", **case.headers}
    if case.token:
        headers.setdefault("Authorization", f"Bearer {shoes['token']}")
    with httpx.Client(base_url=server.url, timeout=60) as c:
        return c.request(case.method, path, content=case.body, headers=headers)


def test_every_hostile_request_is_refused_in_one_line_and_changes_nothing(
    server: ApiServer, shoes: dict[str, str]
) -> None:
    before = library(server)
    wrong = []
    for case in BAD_REQUESTS:
        r = send(server, case, shoes)
        if r.status_code != case.status:
            wrong.append((case.name, r.status_code, r.text[:300]))
            continue
        check_detail(r.json().get("detail"), server.data_dir, case.payload)
    assert not wrong, wrong
    assert library(server) == before
    assert len(BAD_REQUESTS) >= 50


def test_no_server_path_when_the_database_is_busy(server: ApiServer, shoes: dict) -> None:
    """A 503 named the database's full path; another program holds the write lock."""
    import sqlite3

    holder = sqlite3.connect(server.data_dir / "roads.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with server.client(shoes["token"]) as op:
            r = op.post(f"/shoes/{shoes['cards']}/rounds", json=NAT)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert r.status_code == 503, r.text
    assert "busy" in check_detail(r.json()["detail"], server.data_dir)


def test_no_server_path_for_a_broken_user_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken table of the user's own came back with its full path in a 422."""
    tables = tmp_path / "secret-folder" / "tables"
    tables.mkdir(parents=True)
    (tables / "broken.toml").write_text("[shoe\nthis is not TOML")
    monkeypatch.setenv("ROADS_APP_RULES", str(tables))  # the server process inherits it
    server = ApiServer(tmp_path / "data").start()
    try:
        token = tokens.issue(server.data_dir, "operator")
        with server.client(token) as op:
            r = op.post("/shoes", json={"name": "x", "table": "broken"})
    finally:
        server.stop()
    assert r.status_code == 422, r.text
    detail = check_detail(r.json()["detail"], server.data_dir)
    assert "secret-folder" not in detail and "broken.toml" in detail, detail


# --- command lines that start a server -------------------------------------------------------


@contextlib.contextmanager
def taken(port: int | None = None) -> Iterator[int]:
    """A port held by a listening socket (or left as it is if someone else holds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port or 0))
            s.listen(1)
        except OSError:  # taken already, by another program: just as good
            yield port or 0
            return
        yield s.getsockname()[1]


def run_cli(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``roads-app ARGV`` as a person runs it; a server that does start is stopped (a
    hang guard, not a time limit: a refusal takes a second or two)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "roads_app", *argv],
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise AssertionError(f"roads-app {argv} started a server: {err[-500:]}") from None
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


@pytest.mark.parametrize("argv", BAD_SERVER_ARGS, ids=lambda a: " ".join(a)[:60])
def test_a_server_that_cannot_start_says_so_in_one_line(argv: list[str], tmp_path: Path) -> None:
    from roads_app.cli.api import DEFAULT_API_PORT

    api = argv[0] == "api"
    # the dashboard's lines run with the API's default port taken (a note would come
    # first); the API's own lines get a free port unless the line names one
    with taken() as busy, taken(None if api else DEFAULT_API_PORT):
        free = free_port()
        args = [a.replace("{busy}", str(busy)).replace("{free}", str(free)) for a in argv]
        if api and "--port" not in args:
            args += ["--port", str(free)]
        if "--data" not in args:
            args += ["--data", str(tmp_path / "data")]
        r = run_cli(args if api else [*args, "--headless"], tmp_path)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, (r.returncode, r.stderr)
    assert lines[0].startswith("error: ") and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("argv", BAD_FEED_ARGS, ids=lambda a: repr(a[-1]))
def test_a_feed_address_that_is_no_address_is_one_line(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "--api" in err, err
    assert "bug in roads-app" not in err, err
