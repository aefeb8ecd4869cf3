"""The library of saved shoes as a person uses it: import, export, simulate, the lobby.

Thin steps over `roads_app.store.files` (parsing) and `roads_app.store.db` (the library
database) that the CLI (`roads-app import/export`) and the dashboard's library page
share, so both refuse the same files with the same one-line `StorageError` and nothing
in the library changes when an import is refused.

The board PNG is drawn by `render.scorecard.board_png`, which the caller hands to
`export_shoe`: the store keeps the shoes and never imports the drawing.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl

from roads_app import safe_io
from roads_app.errors import RoadsAppError, StorageError, quote, shown_path
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeMeta
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.messages import Message
from roads_app.roads import stats
from roads_app.store import db, importing
from roads_app.store import files as storage

EXPORT_FORMATS: tuple[str, ...] = ("csv", "json", "parquet", "png")
"""What a shoe can be exported as: the three data formats and the board as a picture."""

MIME: dict[str, str] = {
    "csv": "text/csv",
    "json": "application/json",
    "parquet": "application/vnd.apache.parquet",
    "png": "image/png",
}




def import_upload(
    data: bytes, filename: str, data_dir: Path, name: str | None = None
) -> ShoeMeta:
    """Check an uploaded file and add it to the library; returns its metadata (fresh id).

    The size limit is checked before any parsing; a refused file leaves ``data_dir`` as it was.
    """
    if len(data) > storage.MAX_IMPORT_BYTES:
        raise safe_io.over_limit(shown_path(Path(filename).name), len(data),
                                 storage.MAX_IMPORT_BYTES)  # fmt: skip
    rounds, meta = storage.import_bytes(data, filename, name=name)
    db.open_store(data_dir).shoes.create(meta, rounds, action="imported")
    return meta


def import_file(path: Path, data_dir: Path, name: str | None = None) -> ShoeMeta:
    """`roads-app import FILE`: the same checks as an upload, on a bounded read.

    Only a regular file is read, and at most the limit plus one byte of it, so
    ``/dev/zero``, a FIFO or a file that grows while it is read are refused in one line.
    """
    rounds, meta = storage.import_path(Path(path), name=name)
    db.open_store(data_dir).shoes.create(meta, rounds, action="imported")
    return meta


# --- files of many shoes: what `simulate` writes, taken apart for the other commands -------

SHOE_COLUMN = importing.SHOE_COLUMN
MAX_IMPORT_SHOES = importing.MAX_IMPORT_SHOES

MAX_READ_BYTES = 50 * storage.MAX_IMPORT_BYTES
"""Largest Parquet file `read_shoe` reads for the odds (only the picked shoe is decoded)."""
MAX_TEXT_READ_BYTES = 8 * storage.MAX_IMPORT_BYTES
"""Largest CSV or JSON file of many shoes `read_shoe` and `read_shoes` read (16 MB: JSON
has no scanner, so the file is parsed whole; about 900 simulated shoes as JSON)."""


def _read_bytes(path: Path, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit``: a device, FIFO or folder is refused first."""
    return safe_io.read_bounded(Path(path), limit)


def _check_pick(shoe: int | None, numbers: list[int], label: str, option: str) -> None:
    if shoe is not None and shoe not in numbers:
        held = (
            Message("msg_held_range", first=numbers[0], last=numbers[-1])
            if len(numbers) > 1 else Message("msg_held_one")
        )  # fmt: skip
        if numbers != list(range(numbers[0], numbers[-1] + 1)):
            shown = ", ".join(map(str, numbers[:10])) + (", ..." if len(numbers) > 10 else "")
            held = (
                Message("msg_held_list", count=f"{len(numbers):,}", shown=shown)
                if len(numbers) > 1 else Message("msg_held_shoe", shown=shown)
            )  # fmt: skip
        raise StorageError(
            Message("msg_pick_not_in_file", label=label, option=option, shoe=shoe, held=held)
        )


def import_shoes(
    path: Path, data_dir: Path, name: str | None = None, shoe: int | None = None
) -> list[ShoeMeta]:
    """`roads-app import FILE [--shoe K]`: every shoe of the file, or shoe K, each a new id.

    At most `MAX_IMPORT_SHOES` shoes a file, refused before any is checked (``--shoe K``
    takes one shoe of a bigger file, decoding only that shoe). Every shoe is checked
    first, then all are added in one transaction: a bad shoe, a full disk or a killed
    process adds nothing.
    """
    path = Path(path)
    data = _read_bytes(path, storage.MAX_IMPORT_BYTES)

    def name_of(k: int) -> str:
        return f"{name or path.stem} shoe {k}"[:100].strip()

    if shoe is not None:
        shoes = [_pick_shoe(data, path, shoe, "--shoe", name, name_of)]
    else:
        parts = importing.split_shoes(data, path.name)
        if parts is None:
            return [import_upload(data, path.name, data_dir, name=name)]
        shoes = [parts.shoe(k, name_of(k)) for k in parts.numbers]
    db.open_store(data_dir).shoes.create_many(shoes, action="imported")
    return [meta for _rounds, meta in shoes]


def read_shoe(path: Path, shoe: int | None = None) -> tuple[pl.DataFrame, ShoeMeta]:
    """One shoe from any file the commands write: a saved or exported shoe, or shoe K of a
    `simulate` file (K may be left out when the file holds a single shoe).

    A Parquet file's shoe numbers are read alone (one column) and only the picked shoe is
    decoded, so a file of 200,000 shoes says "pick one" at once.
    """
    path = Path(path)
    parquet = path.suffix.lower() == ".parquet"
    data = _read_bytes(path, MAX_READ_BYTES if parquet else MAX_TEXT_READ_BYTES)
    return _pick_shoe(
        data, path, shoe, "--shoe-index", None, lambda k: f"{path.stem} shoe {k}"[:100].strip()
    )


def _pick_shoe(
    data: bytes,
    path: Path,
    shoe: int | None,
    option: str,
    name: str | None,
    name_of: Callable[[int], str],
) -> tuple[pl.DataFrame, ShoeMeta]:
    """Shoe ``shoe`` of a file's bytes (``None``: the file must hold one shoe); only that
    shoe is checked. A file without a shoe column is one shoe, named ``name``."""
    label = shown_path(path.name)
    if path.suffix.lower() == ".parquet":
        md = importing.parquet_footer(
            data, label, importing.MAX_SHOW_ROWS, importing.MAX_SHOW_UNPACKED
        )
        if SHOE_COLUMN in md.schema.to_arrow_schema().names:
            kv = {k.decode(errors="replace"): v.decode(errors="replace")
                  for k, v in (md.metadata or {}).items()}  # fmt: skip
            meta = (
                importing.meta_from_text(kv[importing.META_KEY], label)
                if importing.META_KEY in kv else None
            )  # fmt: skip
            return _parquet_shoe(data, path, _picker(shoe, label, option), meta, name_of)
        parts = None
    else:
        # only the picked shoe is checked, so the file's shoe count needs no cap of its own
        parts = importing.split_shoes(data, path.name, max_shoes=len(data))
    if parts is None:
        _check_pick(shoe, [1], label, option)
        return storage.import_bytes(data, path.name, name=name)  # keeps decks, burn card
    k = _picker(shoe, label, option)(parts.numbers)
    return parts.shoe(k, name_of(k))


def _picker(shoe: int | None, label: str, option: str) -> Callable[[list[int]], int]:
    """Which shoe of a file's shoe numbers: ``shoe``, or the only one there is."""

    def pick(numbers: list[int]) -> int:
        if shoe is None and len(numbers) > 1:
            raise StorageError(Message("msg_pick_one", label=label, count=f"{len(numbers):,}",
                                       option=option, first=numbers[0], last=numbers[-1]))
        _check_pick(shoe, numbers, label, option)
        return numbers[0] if shoe is None else shoe

    return pick


def _parquet_shoe(
    data: bytes,
    path: Path,
    pick: Callable[[list[int]], int],
    meta: ShoeMeta | None,
    name_of: Callable[[int], str],
) -> tuple[pl.DataFrame, ShoeMeta]:
    """Shoe K of a Parquet file of many shoes: the shoe column first, then that shoe only."""
    label = shown_path(path.name)
    try:
        column = pl.read_parquet(io.BytesIO(data), columns=[SHOE_COLUMN])[SHOE_COLUMN]
    except Exception:  # damaged pages: the checked reader says how, in one line
        importing.read_parquet_checked(
            data, label, importing.MAX_SHOW_ROWS, importing.MAX_SHOW_UNPACKED
        )
        raise
    k = pick(importing.shoe_numbers(column, label))
    rows = int((column == k).sum())
    if rows > importing.max_rounds(8):
        where = Message("msg_file_shoe", label=label, shoe=k)
        raise StorageError(Message("msg_rounds_one_shoe", label=where, count=f"{rows:,}",
                                   most=importing.max_rounds(8)))
    try:
        frame = pl.scan_parquet(io.BytesIO(data)).filter(pl.col(SHOE_COLUMN) == k).collect()
    except Exception as e:  # polars raises several types for damaged pages
        raise StorageError(
            Message("msg_parquet_unreadable", label=label, error=_first_line(e))
        ) from None
    parts = importing.ShoeParts(path.name, {k: frame.drop(SHOE_COLUMN)}, meta, False, "row")
    return parts.shoe(k, name_of(k))


def read_shoes(path: Path) -> pl.DataFrame:
    """Every shoe of a file, checked, as one frame with a ``shoe`` column (`roads-app show`
    of a JSON file: at most `MAX_IMPORT_SHOES` shoes, each checked)."""
    path = Path(path)
    data = _read_bytes(path, MAX_TEXT_READ_BYTES)
    parts = importing.split_shoes(data, path.name)
    if parts is None:
        rounds, _meta = storage.import_bytes(data, path.name)
        return rounds.select(pl.lit(1, dtype=pl.Int32).alias(SHOE_COLUMN), pl.all())
    frames = [
        parts.shoe(k)[0].select(pl.lit(k, dtype=pl.Int32).alias(SHOE_COLUMN), pl.all())
        for k in parts.numbers
    ]
    return pl.concat(frames)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__


def check_format(fmt: str) -> str:
    if fmt not in EXPORT_FORMATS:
        raise StorageError(
            Message("msg_export_format", fmt=quote(fmt), formats=", ".join(EXPORT_FORMATS))
        )
    return fmt


def export_name(meta: ShoeMeta, fmt: str) -> str:
    """A file name a person recognises: the shoe's name made safe, then its id."""
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in meta.name.strip())
    stem = "-".join(part for part in stem.split("-") if part)[:40]
    return f"{stem + '_' if stem else ''}{meta.id}.{check_format(fmt)}"


Drawer = Callable[[pl.DataFrame, ShoeMeta], bytes]
"""Draws a shoe as a picture (the PNG): the caller passes `render.scorecard.board_png`,
so the store never imports the drawing."""


def export_shoe(
    shoe_id: str, fmt: str, data_dir: Path, upto: int | None = None, draw: Drawer | None = None
) -> tuple[bytes, str]:
    """A saved shoe as file bytes and a file name; ``upto`` cuts it after that round;
    ``draw`` makes the ``png`` format's bytes."""
    check_format(fmt)
    if fmt == "png" and draw is None:  # a bug in the caller, not the person's input
        raise TypeError("export_shoe(..., 'png') needs draw=render.scorecard.board_png")
    saved = db.open_store(data_dir).shoes.load(storage.check_shoe_id(shoe_id))
    rounds, meta = saved.rounds, saved.meta
    if upto is not None:
        rounds = rounds.head(max(0, upto))
    if fmt == "png":
        return draw(rounds, meta), export_name(meta, fmt)  # type: ignore[misc]
    return storage.export_bytes(rounds, meta, fmt), export_name(meta, fmt)


Dealer = Callable[[int, ShoeOptions], tuple[pl.DataFrame, ShoeMeta]]
"""Deals shoe 0 of a seed: (rounds, meta). The dashboard passes the compiled engine's
(`roads_app.sim.bulk.deal_one`); the plain `deal_shoe` is the default and the reference."""


def _plain_deal(seed: int, options: ShoeOptions) -> tuple[pl.DataFrame, ShoeMeta]:
    dealt = deal_shoe(seed, options)
    return dealt.rounds, dealt.meta


def simulate(
    seed: int,
    data_dir: Path,
    table: Any | None = None,
    name: str | None = None,
    deal: Dealer | None = None,
) -> ShoeMeta:
    """Deal a shoe from a seed with the table's shoe options and save it (source
    simulated), ended: it was dealt to the cut card's last hand."""
    options = table.shoe if table is not None else ShoeOptions()
    rounds, dealt_meta = (deal or _plain_deal)(seed, options)
    meta = ShoeMeta.from_dict(
        {
            **dealt_meta.to_dict(),
            "id": ShoeMeta().id,
            "rules": table.name if table is not None else dealt_meta.rules,
            "name": name or dealt_meta.name,
        }
    )
    db.open_store(data_dir).shoes.create(meta, rounds, ended=True)
    return meta


def saved_rounds(data_dir: Path) -> tuple[list[str], Iterator[pl.DataFrame]]:
    """The ids of the saved shoes of ``data_dir`` (the trash left out) and their rounds
    frames, each read when it is reached: what a backtest of saved shoes runs over
    (`sim.backtest.Saved`), so the engine never opens the store."""
    store = db.open_store(Path(data_dir))
    ids = store.shoes.list()["id"].to_list()
    return ids, (store.shoes.load(shoe_id).rounds for shoe_id in ids)


def lobby_shoes(data_dir: Path, limit: int | None = None) -> pl.DataFrame:
    """Every live shoe (being played by hand or fed through the API, not ended), most
    recently changed first: the wall of live tables. The shipped sample shoes are no
    table being played (as `session.last_shoe` leaves them out too)."""
    shoes = db.open_store(data_dir).shoes.list(source=WALL_SOURCE, live=True)
    shoes = shoes.filter(pl.Series([on_the_wall(i, WALL_SOURCE, False) for i in shoes["id"]],
                                   dtype=pl.Boolean))  # fmt: skip
    return shoes if limit is None else shoes.head(limit)


WALL_SOURCE = "hand"
"""The shoes of tables being played (by hand or fed through the API) are ``hand`` shoes."""


def on_the_wall(shoe_id: str, source: str, ended: bool) -> bool:
    """Whether a shoe not in the trash belongs on the wall of live tables: the one rule,
    for `lobby_shoes` and for the wall's follower (which sees the watcher's rows).

    >>> on_the_wall("abc", "hand", False), on_the_wall("sample-1", "hand", False)
    (True, False)
    >>> on_the_wall("abc", "hand", True), on_the_wall("abc", "simulated", False)
    (False, False)
    """
    return source == WALL_SOURCE and not ended and not shoe_id.startswith("sample")


def counts(rounds: pl.DataFrame) -> dict[str, Any]:
    """Banker / Player / Tie wins and pairs so far: the line under each lobby board.

    Pairs come with the rounds that recorded them (`stats.flag_counts`), so a shoe
    that never recorded pairs does not read as a shoe without any.

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> c = counts(rounds_from_winners("BBPT"))
    >>> c["B"], c["P"], c["T"], c["rounds"], c["flags"]["player_pair"].recorded
    (2, 1, 1, 4, 0)
    """
    row = rounds.select(
        B=(pl.col("winner") == Winner.BANKER).sum(),
        P=(pl.col("winner") == Winner.PLAYER).sum(),
        T=(pl.col("winner") == Winner.TIE).sum(),
        rounds=pl.len(),
    ).row(0, named=True)
    return {**{k: int(v or 0) for k, v in row.items()}, "flags": stats.flag_counts(rounds)}


def safe_load(shoe_id: str, data_dir: Path) -> tuple[pl.DataFrame, ShoeMeta] | str:
    """Load a shoe or say in one line why it cannot be (for pages that show, not raise):
    the error's `Message`, so a page can say it in its own language."""
    try:
        saved = db.open_store(data_dir).shoes.load(storage.check_shoe_id(shoe_id))  # never a path
        return saved.rounds, saved.meta
    except RoadsAppError as e:
        return e.message
