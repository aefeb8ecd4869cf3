"""Installed like real software: tables and samples as package data, user folders by platform.

The wheel itself is built and exercised outside the repository in `test_wheel.py`; these
tests check the lookups the wheel relies on, in the checkout's own install.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from roads_app.bets import tables
from roads_app.cli import main
from roads_app.errors import RulesError
from roads_app.store import location

ROOT = Path(__file__).resolve().parent.parent
SEED_TABLES = ("asian-live", "classic", "entwinetech", "winbox", "winbox-no-commission")
BUILTIN = tuple(sorted(p.stem for p in (ROOT / "rules").glob("*.toml")))

MINE = """\
name = "mine"
title = "Mine"
source = "made up for a test"
notes = []

[shoe]
decks = 6

[limits]
min_bet = 1
max_bet = 100

[bets.player]
payout = 1

[bets.banker]
payout = 0.9
"""

FAKE_CLASSIC = MINE.replace('"mine"', '"classic"').replace("0.9", "0.5")


@pytest.fixture
def user_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tables"
    folder.mkdir()
    monkeypatch.setenv(tables.TABLES_ENV, str(folder))
    return folder


def test_builtin_tables_are_package_data() -> None:
    import importlib.resources

    folder = importlib.resources.files("roads_app.rules")
    found = {p.name for p in folder.iterdir() if p.name.endswith(".toml")}
    assert found == {f"{n}.toml" for n in BUILTIN} and set(SEED_TABLES) <= set(BUILTIN)
    assert Path(str(folder)) == tables.RULES_DIR


def test_a_user_adds_a_table_by_dropping_a_file(user_tables: Path) -> None:
    assert tables.list_tables() == sorted(BUILTIN)
    (user_tables / "mine.toml").write_text(MINE)
    assert tables.list_tables() == sorted([*BUILTIN, "mine"])
    t = tables.load_table("mine")
    assert t.title == "Mine" and t.bets["banker"].payout == 0.9


def test_a_user_table_with_a_builtin_name_is_refused(user_tables: Path, capsys) -> None:
    (user_tables / "classic.toml").write_text(FAKE_CLASSIC)
    assert tables.list_tables().count("classic") == 1
    assert tables.load_table("classic").bets["banker"].payout == 0.95  # the built-in, kept
    with pytest.raises(RulesError, match="'classic' is the name of built-in rules"):
        tables.load_table(user_tables / "classic.toml")
    assert main(["rules"]) == 0
    out, err = capsys.readouterr()
    assert err == (
        f"note: {user_tables / 'classic.toml'}: not used: 'classic' is the name of "
        "built-in rules; rename the file\n"
    )
    assert [line.split()[0] for line in out.splitlines()] == sorted(BUILTIN)


def test_missing_table_says_where_user_tables_go(user_tables: Path) -> None:
    with pytest.raises(RulesError) as err:
        tables.load_table("nope")
    assert f"add your own as {user_tables}/<name>.toml" in str(err.value)


@pytest.mark.parametrize("where", ["before", "after"])
def test_rules_dir_option_picks_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, where: str
) -> None:
    monkeypatch.setenv(tables.TABLES_ENV, "unset-after-the-test")  # main() sets it
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "mine.toml").write_text(MINE)
    argv = ["--rules-dir", str(folder), "rules"] if where == "before" else ["rules", "mine"]
    if where == "after":
        argv += ["--rules-dir", str(folder)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert ("mine" in out.split()) if where == "before" else out.startswith("mine: Mine")


def test_user_tables_default_to_the_platform_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(tables.TABLES_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert tables.user_tables_dir() == tmp_path / "cfg" / "roads-app" / "tables"
    (tmp_path / "cfg" / "roads-app" / "tables").mkdir(parents=True)
    (tmp_path / "cfg" / "roads-app" / "tables" / "mine.toml").write_text(MINE)
    code = "from roads_app.bets import tables; print(tables.load_table('mine').title)"
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout == "Mine\n"


def test_data_defaults_to_the_platform_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.delenv(location.DATA_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "share" / "roads-app"
    assert location.default_data_dir() == home
    shoe = tmp_path / "one.csv"
    shoe.write_text("winner\nB\nP\nT\n")
    assert main(["import", str(shoe)]) == 0
    shoe_id = capsys.readouterr().out.split()[0]
    assert any(home.iterdir())  # saved in the platform's folder
    assert not (tmp_path / "data").exists()  # never the folder it was started from
    assert main(["export", shoe_id, "--format", "csv", "--out", "-"]) == 0  # found there
    assert capsys.readouterr().out.splitlines()[1].startswith("1,B,")
    assert main(["export", shoe_id, "--format", "csv", "--data", str(tmp_path / "x")]) == 2
    monkeypatch.setenv(location.DATA_ENV, str(tmp_path / "mine"))
    assert location.default_data_dir() == tmp_path / "mine"
    assert main(["import", str(shoe), "--data", str(tmp_path / "given")]) == 0
    assert any((tmp_path / "given").iterdir())


def test_pyproject_lists_every_subpackage() -> None:
    """The package list is written by hand (two folders are mapped in); a new subpackage
    that is not listed would be missing from the wheel."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "roads_app").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    mapped = set(setup["package-dir"])
    assert set(setup["packages"]) == on_disk | mapped
    assert setup["package-dir"] == {"roads_app.rules": "rules", "roads_app.sample_shoes": "data"}


def test_the_good_road_catalogue_is_package_data_and_not_a_table() -> None:
    import importlib.resources

    from roads_app.roads import good_roads

    shipped = importlib.resources.files("roads_app.rules") / "good_roads" / "default.toml"
    assert shipped.is_file()
    assert good_roads.load_catalogue(Path(str(shipped))).keys
    assert (
        "good_roads"
        in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
            "package-data"
        ]["roads_app.rules"][1]
    )
    assert not any("good" in t for t in tables.list_tables())
