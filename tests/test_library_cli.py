"""`roads-app import` / `export` and the library steps behind them: round trips and refusals."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roads_app.cli import main
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.render import scorecard
from roads_app.shoefiles import files as shoe_files
from roads_app.store import db, library
from tests import storehelp as sh


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


def _import(capsys: pytest.CaptureFixture[str], file: Path, data: Path, *extra: str) -> str:
    assert main(["import", str(file), "--data", str(data), *extra]) == 0
    return capsys.readouterr().out.strip()


@pytest.mark.usefixtures("backend")
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32), decks=st.integers(1, 8), fmt=st.sampled_from(shoe_files.FORMATS))
def test_export_then_import_gives_back_the_same_shoe(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    seed: int,
    decks: int,
    fmt: str,
) -> None:
    data = tmp_path_factory.mktemp("data")
    dealt = deal_shoe(seed, ShoeOptions(decks=decks, cut=min(14, decks * 26)))
    meta = ShoeMeta.from_dict({**dealt.meta.to_dict(), "name": "Table 7 evening"})
    sh.save_shoe(dealt.rounds, meta, data)

    out = tmp_path_factory.mktemp("out") / f"shoe.{fmt}"
    assert main(["export", meta.id, "--format", fmt, "--data", str(data), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    new_id = _import(capsys, out, data)

    assert new_id != meta.id
    rounds, back = sh.load_shoe(new_id, data)
    assert rounds.equals(dealt.rounds)
    assert back.source == "imported"
    if fmt != "csv":  # CSV carries rounds only; JSON and Parquet carry the metadata too
        assert (back.name, back.decks, back.seed, back.burn_card, back.cut) == (
            "Table 7 evening",
            decks,
            seed,
            dealt.burn_card,
            meta.cut,
        )


@pytest.mark.parametrize("fmt", shoe_files.FORMATS)
def test_outcome_only_shoe_round_trips_with_its_nulls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    rounds = rounds_from_winners("BBPTPPBTTB")
    meta = ShoeMeta(name="by hand", source="hand")
    sh.save_shoe(rounds, meta, tmp_path)
    out = tmp_path / f"x.{fmt}"
    args = ["export", meta.id, "--format", fmt, "--data", str(tmp_path), "--out", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    back, _ = sh.load_shoe(_import(capsys, out, tmp_path, "--name", "again"), tmp_path)
    assert back.equals(rounds)
    assert back["player_points"].null_count() == 10


@pytest.mark.usefixtures("backend")
def test_import_prints_the_id_and_the_library_lists_it_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "evening.csv"
    f.write_text("winner\nB\nP\nP\nT\n")
    data = tmp_path / "data"
    new_id = _import(capsys, f, data, "--name", "Macau 3")
    shoes = sh.list_shoes(data)
    row = shoes.select("id", "name", "rounds", "source").row(0)
    assert row == (new_id, "Macau 3", 4, "imported")


BAD_FILES = [
    ("bad.csv", b"winner\nB\nX\n", "row 2: winner 'X' is not B (banker), P (player) or T (tie)"),
    ("bad.json", b"{not json", "not valid JSON"),
    ("bad.parquet", b"PAR1garbage", "not a readable Parquet file"),
    ("shoe.txt", b"B\nP\n", "unknown file type"),
    ("cards.csv", b"winner,player_cards,banker_cards\nP,9s Kd,5c 2h 3d\n", "row 1"),
    ("empty.csv", b"", "the file is empty"),
]


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES)
def test_bad_file_is_one_line_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, message: str
) -> None:
    data = tmp_path / "data"
    sh.save_shoe(rounds_from_winners("BP"), ShoeMeta(name="keep"), data)
    before = _snapshot(data)
    f = tmp_path / name
    f.write_bytes(content)
    assert main(["import", str(f), "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert message in err
    assert _snapshot(data) == before


def test_size_limit_is_checked_before_parsing(tmp_path: Path) -> None:
    big = b"winner\n" + b"B\n" * (shoe_files.MAX_IMPORT_BYTES // 2 + 1)
    with pytest.raises(shoe_files.StorageError, match="over the 2 MB limit"):
        library.import_upload(big, "big.csv", tmp_path)
    f = tmp_path / "big.csv"
    f.write_bytes(big)
    with pytest.raises(shoe_files.StorageError, match="over the 2 MB limit"):
        library.import_file(f, tmp_path)
    assert list(tmp_path.iterdir()) == [f]


@pytest.mark.parametrize("bad_id", ["../x", "a/b.parquet", "/etc/passwd.parquet"])
def test_export_refuses_path_like_ids(tmp_path: Path, bad_id: str) -> None:
    with pytest.raises(shoe_files.StorageError, match="not a plain name"):
        library.export_shoe(bad_id, "csv", tmp_path)
    assert isinstance(library.safe_load(bad_id, tmp_path), str)


@pytest.mark.usefixtures("backend")
def test_export_upto_cuts_the_shoe_after_that_round(tmp_path: Path) -> None:
    dealt = deal_shoe(11)
    sh.save_shoe(dealt.rounds, dealt.meta, tmp_path)
    data, name = library.export_shoe(dealt.meta.id, "parquet", tmp_path, upto=9)
    assert name.endswith(f"{dealt.meta.id}.parquet")
    back, _ = shoe_files.import_bytes(data, name)
    assert back.equals(dealt.rounds.head(9))


def test_board_png_is_a_picture_of_the_board(tmp_path: Path) -> None:
    from PIL import Image

    dealt = deal_shoe(5)
    sh.save_shoe(dealt.rounds, dealt.meta, tmp_path)
    out = tmp_path / "board.png"
    assert (
        main(
            ["export", dealt.meta.id, "--format", "png", "--data", str(tmp_path), "--out", str(out)]
        )
        == 0
    )
    with Image.open(out) as im:
        assert im.format == "PNG"
        full = np.asarray(im.convert("RGB"), dtype=np.int32)
    png = scorecard.board_png(dealt.rounds.head(0), title=dealt.meta.name)
    with Image.open(io.BytesIO(png)) as im:
        empty = np.asarray(im.convert("RGB"), dtype=np.int32)
    # the whole shoe at print size: at least twice the old 746x282 window of the board
    assert full.shape[1] >= 2 * 746 and full.shape[0] >= 2 * 282
    assert empty.shape[1] == full.shape[1]  # same page width whatever the shoe holds

    def coloured(px: np.ndarray) -> int:
        """Strongly red or blue pixels: the marks (the grid and paper are grey and white)."""
        return int((np.abs(px[..., 0] - px[..., 2]) > 120).sum())

    # a dealt shoe puts red and blue marks on the board; an empty board has none
    assert coloured(empty) == 0
    assert coloured(full) > 500


def test_board_png_is_drawn_in_the_language_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rounds = rounds_from_winners("BPBBT")
    meta = ShoeMeta(name="Table 8")
    sh.save_shoe(rounds, meta, tmp_path)
    drawn = {}
    for lang in ("zh", "en"):
        out = tmp_path / f"{lang}.png"
        args = ["export", meta.id, "--format", "png", "--lang", lang, "--out", str(out)]
        assert main([*args, "--data", str(tmp_path)]) == 0
        drawn[lang] = out.read_bytes()
    assert drawn["zh"] == scorecard.board_png(rounds, meta, lang="zh") != drawn["en"]
    capsys.readouterr()
    for bad, says in (
        (["--format", "png", "--lang", "<b>xx"], "--lang '<b>xx': use one of en, zh"),
        (["--format", "csv", "--lang", "zh"], "--lang goes with --format png"),
    ):
        assert main(["export", meta.id, *bad, "--data", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1


def test_simulate_saves_a_shoe_dealt_from_the_seed(tmp_path: Path) -> None:
    meta = library.simulate(42, tmp_path)
    rounds, back = sh.load_shoe(meta.id, tmp_path)
    assert rounds.equals(deal_shoe(42).rounds)
    assert (back.source, back.seed) == ("simulated", 42)


@pytest.mark.usefixtures("backend")
def test_the_wall_lists_every_live_shoe_newest_first(tmp_path: Path) -> None:
    """Every shoe being played (not 8 of them), newest first; an ended one leaves."""
    ids = []
    for i in range(12):
        m = ShoeMeta(name=f"t{i}", source="hand")
        sh.save_shoe(rounds_from_winners("BP" * i), m, tmp_path)
        ids.append(m.id)
    db.open_store(tmp_path).shoes.end(ids[3])
    library.simulate(1, tmp_path)  # simulated shoes are not in play at a table
    lobby = library.lobby_shoes(tmp_path)
    assert lobby["id"].to_list() == [i for i in ids[::-1] if i != ids[3]]


def test_board_png_figure_holds_every_column_of_the_shoe() -> None:
    """The exported board is the whole shoe: no road's first columns scrolled away."""
    from roads_app.render.board import BoardLook, board_figure
    from roads_app.roads.grids import all_roads

    dealt = deal_shoe(5)
    roads = all_roads(dealt.rounds)
    fig = board_figure(dealt.rounds, BoardLook(width_px=scorecard.PNG_WIDTH_PX))
    for i, (name, road) in enumerate(roads.items(), start=1):
        xr = fig.layout[f"xaxis{'' if i == 1 else i}"].range
        assert xr[0] == 0 and int(road["col"].max()) < xr[1], name
