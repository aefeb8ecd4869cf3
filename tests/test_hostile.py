"""The hostile corpus through the import function and the command line.

Every file of `tests/hostile/make_corpus.py` must be refused by `import_bytes` with a
one-line `RoadsAppError` naming the file, and by ``roads-app import`` / ``show`` with
one line on stderr, exit status 2 and the data folder unchanged. The command line
runs in-process (`main([...])`) for speed; a sample runs as real subprocesses to prove
the exit status and stderr path end to end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from roads_app.cli import main
from roads_app.cli.args import print_json
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta, check_name, rounds_from_winners
from roads_app.shoefiles import files as shoe_files
from roads_app.store import db
from tests.hostile.make_corpus import BAD_ARGS, BAD_NAMES, cases

CASES = cases()


def snapshot(folder: Path) -> list[tuple]:
    """The library as the database holds it (every shoe, its version), plus other files."""
    store = db.open_store(folder)
    shoes = [
        *store.shoes.list().drop("modified").rows(),
        *store.shoes.list(trash=True).drop("modified").rows(),
    ]
    others = sorted(p.name for p in folder.iterdir() if not p.name.startswith("roads.db"))
    return [*shoes, *others]


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err, err
    assert "bug in roads-app" not in err, err  # the bug path is a failure here
    assert len(lines[0]) < 400, lines[0][:400]  # a short quote, never the payload
    return lines[0]


def test_the_corpus_is_large_and_covers_every_family() -> None:
    assert len(CASES) >= 300
    families = Counter(c.family for c in CASES)
    assert set(families) >= {
        "meta-json",
        "meta-parquet",
        "depth",
        "csv-value",
        "json-round",
        "json-number",
        "parquet-type",
        "size",
        "count",
        "bomb",
        "shape",
        "json-shape",
        "csv-shape",
        "echo",
    }


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_import_function_refuses_in_one_line_naming_the_file(case) -> None:
    with pytest.raises(RoadsAppError) as e:
        shoe_files.import_bytes(case.data, case.filename)
    message = str(e.value)
    assert "\n" not in message and case.filename in message
    if case.family == "depth":  # refused before the recursive parser runs, not by it
        assert "nested more than 64 levels deep" in message
    if case.family == "bomb" and case.filename.endswith(".parquet"):  # from the footer
        assert "over the limit" in message or "unpacks to" in message or "columns" in message


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    for c in CASES:
        (folder / c.filename).write_bytes(c.data)
    return folder


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    keep = ShoeMeta(id="keep", name="keep")
    db.open_store(folder).shoes.create(keep, rounds_from_winners("BPPT"))
    return folder


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_cli_refuses_each_file_in_one_line_and_changes_nothing(
    case, corpus_dir: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(data)
    path = str(corpus_dir / case.filename)
    assert main(["import", path, "--data", str(data)]) == 2
    one_error_line(capsys.readouterr().err)
    assert main(["show", path]) == 2
    one_error_line(capsys.readouterr().err)
    assert snapshot(data) == before


@pytest.mark.parametrize("argv", BAD_ARGS, ids=lambda a: " ".join(a)[:60])
def test_bad_command_lines_are_one_line_and_exit_2(
    argv: list[str], data: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(data.parent)
    before = snapshot(data)
    extra = ["--data", str(data)] if argv[0] in ("import", "export", "odds") else []
    assert main([*argv, *extra]) == 2
    one_error_line(capsys.readouterr().err)
    assert snapshot(data) == before
    assert sorted(p.name for p in data.parent.iterdir()) == ["data"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=repr)
def test_one_name_rule_for_import_rename_and_new_shoes(
    name: str, data: Path, tmp_path: Path, capsys
) -> None:
    good = tmp_path / "good.csv"
    good.write_text("winner\nB\nP\n")
    before = snapshot(data)
    assert main(["import", str(good), "--data", str(data), "--name", name]) == 2
    one_error_line(capsys.readouterr().err)
    with pytest.raises(RoadsAppError):
        db.open_store(data).shoes.rename("keep", name)
    if name:  # an empty name is a shoe not named yet; any other bad name is refused
        with pytest.raises(RoadsAppError):
            ShoeMeta(name=name)
    with pytest.raises(RoadsAppError):
        check_name(name)
    assert snapshot(data) == before


def test_a_sample_as_real_subprocesses(corpus_dir: Path, data: Path) -> None:
    picks = [c for c in CASES if c.family in ("depth", "bomb", "meta-parquet")][::7][:6]
    assert len(picks) >= 4
    before = snapshot(data)
    for c in picks:
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "roads_app",
                "import",
                str(corpus_dir / c.filename),
                "--data",
                str(data),
            ],
            capture_output=True,
            text=True,
            cwd=data.parent,
        )
        assert r.returncode == 2, (c.id, r.stderr)
        assert c.filename in one_error_line(r.stderr)
    assert snapshot(data) == before


# --- files that are not files --------------------------------------------------------------


def test_dev_zero_and_a_fifo_are_refused_without_reading_or_hanging(
    tmp_path: Path, data: Path
) -> None:
    fifo = tmp_path / "f.csv"
    os.mkfifo(fifo)
    for target in ("/dev/zero", str(fifo)):
        r = subprocess.run(
            [sys.executable, "-m", "roads_app", "import", target, "--data", str(data)],
            capture_output=True,
            text=True,
            timeout=120,  # a hang guard, not a speed limit
        )
        assert r.returncode == 2
        assert "not a regular file" in one_error_line(r.stderr)


def test_a_file_that_grows_past_the_limit_is_cut_at_limit_plus_one(tmp_path: Path) -> None:
    from roads_app import safe_io

    f = tmp_path / "a.csv"
    f.write_bytes(b"x" * 1000)
    assert len(safe_io.read_bounded(f, 1000)) == 1000
    with pytest.raises(RoadsAppError, match="over the"):
        safe_io.read_bounded(f, 999)


def test_hostile_files_in_an_old_shoe_folder_are_skipped_by_the_migration(
    tmp_path: Path, capsys
) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "gone.parquet").symlink_to(folder / "nowhere.parquet")
    os.mkfifo(folder / "fifo.parquet")
    bad = rounds_from_winners("BP")
    for sid, meta_text in (
        ("m1", "null"),
        ("m2", "[1,2]"),
        ("m3", '"hi"'),
        ("m4", json.dumps({"name": ["a"]})),
        ("m5", json.dumps({**ShoeMeta().to_dict(), "rules": "/etc/passwd"})),
    ):
        bad.write_parquet(folder / f"{sid}.parquet", metadata={shoe_files.META_KEY: meta_text})
    good = ShoeMeta(id="good", name="good")
    bad.write_parquet(
        folder / "good.parquet", metadata={shoe_files.META_KEY: json.dumps(good.to_dict())}
    )
    assert main(["shoes", "list", "--data", str(folder), "--json"]) == 0
    out = capsys.readouterr()
    assert "bug in roads-app" not in out.err and "Traceback" not in out.err
    assert [r["id"] for r in json.loads(out.out)] == ["good"]  # the hostile ones skipped
    assert main(["odds", "--shoe", "m5", "--data", str(folder)]) == 2
    assert "passwd" not in one_error_line(capsys.readouterr().err)  # never opened


# --- bugs are not user errors ----------------------------------------------------------------


def test_a_bug_is_one_line_exit_1_with_the_traceback_in_a_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from roads_app.cli import files as file_commands

    def broken(args: object) -> int:
        return {}["no such key"]  # a real KeyError: the kind of slip a bug is

    monkeypatch.setenv("ROADS_APP_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setattr(file_commands, "_cmd_show", broken)
    assert main(["show", "whatever.csv"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bug in roads-app (KeyError" in err
    log = Path(err.rsplit(" ", 1)[1])
    assert log.parent == tmp_path / "logs"
    text = log.read_text()
    assert "Traceback" in text and "no such key" in text and "broken" in text


def test_json_output_is_strict(capsys) -> None:
    assert main(["odds", "--json"]) == 0
    out = capsys.readouterr().out

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in JSON output")

    assert json.loads(out, parse_constant=refuse)
    with pytest.raises(ValueError):
        print_json({"ev": float("nan")})  # reaches the bug path, never prints NaN


# --- temporary files of killed writes --------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from roads_app.shoefiles.files import atomic_write

def write(fh):
    fh.write(b"half a file")
    fh.flush()
    print("written", flush=True)
    sys.stdin.readline()  # wait here until killed

atomic_write(Path(sys.argv[1]), write)
"""


def test_a_killed_writer_leaves_a_temp_file_that_the_next_start_removes(data: Path, capsys) -> None:
    target = data / "shoe.parquet"
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "written"
    temps = [p for p in data.iterdir() if p.name.endswith(".tmp")]
    assert len(temps) == 1 and f".{child.pid}." in temps[0].name
    mine = data / f".other.parquet.{os.getpid()}.abcdefgh.tmp"  # a live writer's: kept
    mine.write_bytes(b"in progress")
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert temps[0].exists()  # the kill left it behind
    assert main(["export", "keep", "--format", "csv", "--data", str(data), "--out", "-"]) == 0
    capsys.readouterr()
    assert not temps[0].exists() and mine.exists() and not target.exists()
    mine.unlink()
