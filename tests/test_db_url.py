"""``--db URL`` and ``ROADS_APP_DB``: the library on a real PostgreSQL server, and every way
a URL can be wrong as one line, exit 2, nothing written, the password never printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from roads_app.cli import main
from roads_app.errors import report_bug
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db
from roads_app.store.connection import SCHEMA_VERSION
from tests import pgserver
from tests.pgserver import PASSWORD, PgServer

REPO = Path(__file__).resolve().parents[1]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_refusal(code: int, out: str, err: str) -> str:
    assert code == 2, (code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert PASSWORD not in out + err
    return err


def tables(url: str) -> list[tuple[str, int]]:
    """Every table of the database with its row count: what "nothing written" compares."""
    with psycopg.connect(url) as con:
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' ORDER BY 1"
            ).fetchall()
        ]
        return [
            (n, con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0])  # type: ignore[index]
            for n in names
        ]


def test_the_library_goes_to_the_server_named_by_db_or_the_environment(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROADS_APP_DB", raising=False)
    d = ["--data", str(tmp_path)]
    db.open_store(tmp_path, url=pg_url).shoes.create(ShoeMeta(id="t1"), rounds_from_winners("B"))
    assert run(capsys, "shoes", "add", "t1", "PT", *d, "--db", pg_url)[0] == 0
    assert run(capsys, "--db", pg_url, "shoes", "add", "t1", "B", *d)[0] == 0
    monkeypatch.setenv("ROADS_APP_DB", pg_url)
    code, out, err = run(capsys, "shoes", "list", "--json", *d)
    assert code == 0 and PASSWORD not in out + err
    assert [(r["id"], r["rounds"]) for r in json.loads(out)] == [("t1", 4)]
    assert not (tmp_path / "roads.db").exists()  # nothing went to the SQLite file
    monkeypatch.delenv("ROADS_APP_DB")
    code, out, _ = run(capsys, "shoes", "list", "--json", *d)  # without either: SQLite
    assert code == 0 and json.loads(out) == [] and (tmp_path / "roads.db").exists()


def test_the_command_in_its_own_process_reads_the_url_from_the_environment(
    pg_url: str, tmp_path: Path
) -> None:
    db.open_store(tmp_path, url=pg_url).shoes.create(ShoeMeta(id="p1"))
    env = {**os.environ, "ROADS_APP_DB": pg_url}
    for args in (["shoes", "add", "p1", "BPB"], ["shoes", "list", "--json"]):
        r = subprocess.run(
            [sys.executable, "-m", "roads_app", *args, "--data", str(tmp_path)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        assert PASSWORD not in r.stdout + r.stderr
    assert [(s["id"], s["rounds"]) for s in json.loads(r.stdout)] == [("p1", 3)]
    assert not (tmp_path / "roads.db").exists()


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("port", "the port is not a number"),
        ("scheme", "the scheme must be postgresql"),
        ("no-name", "no database name"),
        ("no-host", "no host"),
        ("unreachable", "cannot reach the database server"),
        ("password", "wrong user or password"),
        ("no-database", "no such database"),
    ],
)
def test_a_bad_url_is_one_line_exit_2_nothing_written_no_password(
    pg_server: PgServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    says: str,
) -> None:
    monkeypatch.delenv("ROADS_APP_DB", raising=False)
    good = pg_server.new_database()
    before = tables(good)
    url = {
        "port": good.replace(f":{pg_server.port}/", ":99999/"),
        "scheme": good.replace("postgresql://", "mysql://"),
        "no-name": good.rsplit("/", 1)[0] + "/",
        "no-host": f"postgresql://roads:{PASSWORD}@:{pg_server.port}/x",
        "unreachable": good.replace(f":{pg_server.port}/", f":{pgserver.free_port()}/"),
        "password": good.replace(PASSWORD, PASSWORD + "-wrong"),
        "no-database": good.rsplit("/", 1)[0] + "/nosuch",
    }[case]
    assert PASSWORD in url
    for args in (["--db", url], []):  # the option, then the environment
        if not args:
            monkeypatch.setenv("ROADS_APP_DB", url)
        err = one_line_refusal(
            *run(capsys, "shoes", "add", "t1", "B", "--data", str(tmp_path), *args)
        )
        assert says in err, err
        assert str(pg_server.port) in err or case in ("port", "unreachable", "no-host")
    assert not (tmp_path / "roads.db").exists()
    assert tables(good) == before  # the server's database was not touched either


def test_a_database_of_another_program_is_refused_and_left_alone(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with psycopg.connect(pg_url) as con:
        con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("INSERT INTO customers VALUES (1, 'Ada')")
        con.execute("CREATE TABLE schema_migrations (version INTEGER)")  # another tool's
    before = tables(pg_url)
    err = one_line_refusal(
        *run(capsys, "shoes", "add", "t1", "B", "--data", str(tmp_path), "--db", pg_url)
    )
    assert "PostgreSQL database of another program" in err and "--db" in err
    assert tables(pg_url) == before


def test_a_database_migrated_further_than_this_version_is_refused_and_left_alone(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = db.Store(tmp_path, url=pg_url)
    store.shoes.create(ShoeMeta(id="t1"), rounds_from_winners("BP"))
    store.close()
    with psycopg.connect(pg_url) as con:
        con.execute(
            "INSERT INTO schema_migrations VALUES (%s, 'from the future', 'x')",
            (SCHEMA_VERSION + 1,),
        )
    before = tables(pg_url)
    err = one_line_refusal(
        *run(capsys, "shoes", "add", "t1", "B", "--data", str(tmp_path), "--db", pg_url)
    )
    assert f"schema {SCHEMA_VERSION + 1}, this one knows {SCHEMA_VERSION}" in err
    assert tables(pg_url) == before


def test_help_and_bug_logs_show_the_url_without_its_password(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**os.environ, "ROADS_APP_DB": pg_url}
    shown = pg_url.replace(f":{PASSWORD}@", "@")
    for args in (["--help"], ["shoes", "list", "--help"], ["api", "--help"]):
        r = subprocess.run(
            [sys.executable, "-m", "roads_app", *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        assert PASSWORD not in r.stdout + r.stderr
        assert shown in " ".join(r.stdout.split()).replace("- ", "-"), r.stdout
    monkeypatch.setenv("ROADS_APP_DB", pg_url)
    line = report_bug(RuntimeError(f"could not use {pg_url}"))  # a bug quoting the URL
    log = Path(line.rsplit(" ", 1)[1]).read_text()
    assert PASSWORD not in line and PASSWORD not in log
    assert "could not use" in log


def test_every_command_takes_db() -> None:
    """`--db` after any command or subcommand (whichever opens the library)."""
    import argparse

    from roads_app.cli import build_parser

    def leaves(p: argparse.ArgumentParser, name: str) -> list[tuple[str, argparse.ArgumentParser]]:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return [(name, p)]
        out = [(name, p)]
        for a in subs:
            for child_name, child in a.choices.items():
                out += leaves(child, f"{name} {child_name}")
        return out

    every = leaves(build_parser(), "roads-app")
    assert len(every) > 20
    lacking = [n for n, p in every if "--db" not in p._option_string_actions]
    assert not lacking, lacking


def test_a_password_given_in_the_query_is_never_shown(
    pg_server: PgServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """libpq takes the password as a query parameter too (``?password=``, its key
    %-escaped or not, with or without a database path): it is kept out of every
    message, ``--help`` and bug log as the user part's is."""
    monkeypatch.delenv("ROADS_APP_DB", raising=False)
    good = pg_server.new_database()
    host = f"postgresql://roads@127.0.0.1:{pg_server.port}"
    name = good.rsplit("/", 1)[1]
    works = f"{host}/{name}?sslmode=disable&pass%77ord={PASSWORD}"
    code, out, err = run(capsys, "shoes", "list", "--json", "--data", str(tmp_path), "--db", works)
    assert code == 0 and json.loads(out) == [] and PASSWORD not in out + err, err
    refused = {
        f"{host}?password={PASSWORD}": "no database name",
        f"{host}:x/{name}?password={PASSWORD}": "the port is not a number",
        f"{host}/{name}?password={PASSWORD}#at": "a '#' part",
        f"password={PASSWORD} host=127.0.0.1 dbname={name}": "the scheme must be postgresql",
    }
    for url, says in refused.items():
        err = one_line_refusal(*run(capsys, "shoes", "list", "--data", str(tmp_path), "--db", url))
        assert says in err, err
    monkeypatch.setenv("ROADS_APP_DB", works)
    line = report_bug(RuntimeError(f"could not use {works}"))
    log = Path(line.rsplit(" ", 1)[1]).read_text()
    assert PASSWORD not in line + log and "could not use" in log
    r = subprocess.run(
        [sys.executable, "-m", "roads_app", "shoes", "list", "--help"],
        cwd=REPO,
        env={**os.environ, "ROADS_APP_DB": f"{host}/{name}?password={PASSWORD}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and PASSWORD not in r.stdout + r.stderr, r.stdout
    assert f"{host}/{name}" in " ".join(r.stdout.split()).replace("- ", "-"), r.stdout
