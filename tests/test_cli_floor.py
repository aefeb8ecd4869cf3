"""`roads-app tables ...` on both databases: a table added, opened, dealt to, shuffled,
listed and its day shown; every bad input one line on stderr, exit 2, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roads_app.cli import main
from roads_app.game import rounds as game_rounds
from roads_app.store import db


def run(capsys: pytest.CaptureFixture[str], data: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--data", str(data)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_table_from_the_command_line(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add = ("tables", "add", "b07", "--name", "Table 7", "--rules", "asian-live")
    code, out, _ = run(capsys, tmp_path, *add, "--min", "10", "--max", "5000", "--position", "2")
    assert code == 0 and out.startswith("B07\tClosed\tTable 7")
    assert run(capsys, tmp_path, "tables", "open", "B07")[0] == 0
    floor = db.open_store(tmp_path).floor
    floor.append("B07", lambda r, d: game_rounds.add_winner(r, "B", decks=d))
    code, out, _ = run(capsys, tmp_path, "tables", "shuffle", "B07")
    assert code == 0 and "Shuffling" in out
    code, out, _ = run(
        capsys, tmp_path, "tables", "edit", "B07", "--tie-min", "10", "--tie-max", "500"
    )
    assert code == 0 and floor.get("B07").limits.tie is not None
    code, out, _ = run(capsys, tmp_path, "tables", "list", "--json")
    (table,) = json.loads(out)
    assert (table["code"], table["state"], table["shoe_number"]) == ("B07", "shuffling", 1)
    assert table["limits"]["main"] == {"min": 10.0, "max": 5000.0}
    code, out, _ = run(capsys, tmp_path, "tables", "history", "B07", "--json")
    assert json.loads(out)["shoes_dealt"] == 1 and json.loads(out)["banker"] == 1
    code, out, _ = run(capsys, tmp_path, "tables", "history", "B07")
    assert code == 0 and "1 shoes dealt" in out and "B 1" in out


BAD = [
    (
        ("tables", "add", "B07", "--name", "T", "--rules", "classic", "--min", "1", "--max", "9"),
        "taken",
    ),
    (
        ("tables", "add", "C 1", "--name", "T", "--rules", "classic", "--min", "1", "--max", "9"),
        "code",
    ),
    (
        ("tables", "add", "C1", "--name", "T", "--rules", "nope", "--min", "1", "--max", "9"),
        "no rules 'nope'",
    ),
    (
        ("tables", "add", "C1", "--name", "T", "--rules", "classic", "--min", "1", "--max", "1e9"),
        "outside",
    ),
    (("tables", "add", "C1", "--name", "T", "--rules", "classic", "--min", "1"), "--max"),
    (("tables", "shuffle", "NOPE"), "no table"),
    (("tables", "shuffle", "B07"), "already shuffling"),
    (("tables", "close", "B07"), None),  # allowed: then the rest refuse on a closed table
    (("tables", "shuffle", "B07"), "closed"),
    (("tables", "history", "B07", "--day", "monday"), "YYYY-MM-DD"),
    (("tables", "edit", "B07", "--max", "1e9"), "outside"),
]


def test_bad_input_is_one_line_exit_2_and_changes_nothing(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    add = ("tables", "add", "B07", "--name", "T", "--rules", "classic", "--min", "1", "--max", "9")
    run(capsys, tmp_path, *add)
    run(capsys, tmp_path, "tables", "open", "B07")
    run(capsys, tmp_path, "tables", "shuffle", "B07")
    store = db.open_store(tmp_path)
    for argv, why in BAD:
        before = store.floor.list()
        code, out, err = run(capsys, tmp_path, *argv)
        if why is None:
            assert code == 0
            continue
        assert (code, out) == (2, ""), argv
        assert err.count("\n") == 1 and why in err, (argv, err)
        assert store.floor.list() == before
