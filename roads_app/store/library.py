"""The library of saved shoes as a person uses it: import, export, simulate, the lobby.

Thin steps over `roads_app.shoefiles.files` (parsing) and `roads_app.store.db` (the library
database) that the CLI (`roads-app import/export`) and the dashboard's library page
share, so both refuse the same files with the same one-line `StorageError` and nothing
in the library changes when an import is refused.

The board PNG is drawn by `render.scorecard.board_png`, which the caller hands to
`export_shoe`: the store keeps the shoes and never imports the drawing.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from roads_app import safe_io
from roads_app.errors import RoadsAppError, StorageError, quote, shown_path
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeCounts, ShoeMeta, check_shoe_id
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.messages import Message
from roads_app.roads import stats
from roads_app.shoefiles import files as shoe_files
from roads_app.shoefiles import importing, streaming
from roads_app.shoefiles.samples import is_sample
from roads_app.store import db
from roads_app.store.connection import stage_frame, staging_error
from roads_app.store.frames import ROUND_COLS, sql_frame
from roads_app.store.shoes import FileBatch, file_batch

EXPORT_FORMATS: tuple[str, ...] = ("csv", "json", "parquet", "png")
"""What a shoe can be exported as: the three data formats and the board as a picture."""

MIME: dict[str, str] = {
    "csv": "text/csv",
    "json": "application/json",
    "parquet": "application/vnd.apache.parquet",
    "png": "image/png",
}


def import_upload(data: bytes, filename: str, data_dir: Path, name: str | None = None) -> ShoeMeta:
    """Check an uploaded file and add it to the library; returns its metadata (fresh id).

    The size limit is checked before any parsing; a refused file leaves ``data_dir`` as it was.
    """
    if len(data) > shoe_files.MAX_IMPORT_BYTES:
        raise safe_io.over_limit(
            shown_path(Path(filename).name), len(data), shoe_files.MAX_IMPORT_BYTES
        )
    rounds, meta = shoe_files.import_bytes(data, filename, name=name)
    db.open_store(data_dir).shoes.create(meta, rounds, action="imported")
    return meta


def import_file(path: Path, data_dir: Path, name: str | None = None) -> ShoeMeta:
    """`roads-app import FILE`: the same checks as an upload, on a bounded read.

    Only a regular file is read, and at most the limit plus one byte of it, so
    ``/dev/zero``, a FIFO or a file that grows while it is read are refused in one line.
    """
    rounds, meta = shoe_files.import_path(Path(path), name=name)
    db.open_store(data_dir).shoes.create(meta, rounds, action="imported")
    return meta


# --- files of many shoes: what `simulate` writes, taken apart for the other commands -------

SHOE_COLUMN = importing.SHOE_COLUMN


def _check_pick(shoe: int | None, numbers: list[int], label: str, option: str) -> None:
    if shoe is not None and shoe not in numbers:
        held = (
            Message("msg_held_range", first=numbers[0], last=numbers[-1])
            if len(numbers) > 1
            else Message("msg_held_one")
        )
        if numbers != list(range(numbers[0], numbers[-1] + 1)):
            shown = ", ".join(map(str, numbers[:10])) + (", ..." if len(numbers) > 10 else "")
            held = (
                Message("msg_held_list", count=f"{len(numbers):,}", shown=shown)
                if len(numbers) > 1
                else Message("msg_held_shoe", shown=shown)
            )
        raise StorageError(
            Message("msg_pick_not_in_file", label=label, option=option, shoe=shoe, held=held)
        )


Committed = Callable[[list[str]], object]
"""Told each batch's new shoes' ids as soon as their transaction is committed."""


@dataclass(frozen=True)
class Imported:
    """What an import added (the new ids, in file order) and how many of the file's
    shoes were in the library already (an import run again, after a kill, say)."""

    ids: list[str]
    already: int = 0


def file_digest(path: Path) -> str:
    """The file's bytes, digested: which file a shoe came from."""
    with path.open("rb") as f:
        return hashlib.file_digest(f, "blake2b").hexdigest()[:32]


def origins(rows: pl.DataFrame, meta: ShoeMeta | None, source: str) -> list[str]:
    """Each shoe of a batch known by where it came from: a digest of the file it came
    from (``source``, `file_digest`), its number in the file, its rounds (``rows``: the
    batch in the library's form, `frames.sql_frame`, its ``shoe`` column first) and the
    file's metadata. The same file imported again gives the same digests, so an import
    adds only the shoes the library does not hold yet; another file's shoes are never
    taken for this one's, whatever their rounds (two files of one-round shoes share many
    a shoe number and round by chance)."""
    head = source + (
        ""
        if meta is None
        else json.dumps(
            {k: v for k, v in meta.to_dict().items() if k not in ("id", "name")}, sort_keys=True
        )
    )
    text = (
        rows.select(
            SHOE_COLUMN,
            row=pl.concat_str(
                [pl.col(c).cast(pl.String).fill_null("") for c in ROUND_COLS[1:]], separator=","
            ),
        )
        .group_by(SHOE_COLUMN, maintain_order=True)
        .agg(pl.col("row").str.join("\n"))
    )
    return [
        hashlib.blake2b(f"{head}\n{k}\n{rows}".encode(), digest_size=16).hexdigest()
        for k, rows in text.iter_rows()
    ]


def shoe_names(base: str, numbers: pl.Series) -> pl.Series:
    """Each shoe's name in the library, ``"<base> shoe <k>"`` (at most 100 characters,
    trimmed), for a batch's shoe numbers at once: a name that cannot reach 100 characters
    (the longest number has 19 digits) is the trimmed head and the number as a column;
    a longer base is cut a name at a time."""
    head = f"{base} shoe "
    if len(head) + 19 <= _NAME_MOST:  # ends with a digit: only its head can be trimmed
        text = numbers.cast(pl.String).to_frame("k")
        return text.select(pl.concat_str(pl.lit(head.lstrip()), "k").alias("name")).to_series()
    return pl.Series([f"{head}{k}"[:_NAME_MOST].strip() for k in numbers], dtype=pl.String)


_NAME_MOST = 100
"""Characters a shoe imported from a file of many is named with at most."""


def import_shoes(
    path: Path,
    data_dir: Path,
    name: str | None = None,
    shoe: int | None = None,
    *,
    committed: Committed | None = None,
    progress: streaming.Progress | None = None,
) -> Imported:
    """`roads-app import FILE [--shoe K]`: every shoe of the file, or shoe K, each a new id.

    A file of many shoes (any number) streams in (`streaming.ShoeFile.batches`): a batch
    of whole shoes is checked, then added in one transaction, then the next is read, so
    memory is that of a batch. A bad shoe or a failure stops the import there: the
    batches before it are in the library (``committed`` was told of each), the rest is
    not, and the error says which shoes went in. A shoe of the file the library holds
    already (`origins`) is not added again: an import stopped half-way (a kill, a full
    disk) is finished by running it again. ``progress`` is told how much of the file
    and how many shoes each batch took (`streaming.ShoeFile.batches`).
    """
    path = Path(path)
    base = name or path.stem
    many = streaming.open_shoe_file(path)
    if many is None:
        if shoe is not None:
            _check_pick(shoe, [1], shown_path(path.name), "--shoe")
        meta = import_file(path, data_dir, name=name)
        if committed is not None:
            committed([meta.id])
        return Imported([meta.id])
    store = db.open_store(data_dir)
    source = file_digest(path)
    try:
        staging = tempfile.TemporaryDirectory(prefix="roads-app-import-")
    except OSError as e:
        raise staging_error(e) from None
    with staging as tmp:
        numbered = itertools.count()

        def ready(batch: streaming.Checked) -> tuple[FileBatch, Path | None]:
            """A batch in the library's form with its new ids and, for SQLite, its rounds
            staged: on the make-ahead thread, while the last batch is written."""
            rows = sql_frame(batch.frame)  # the library's form, once for digests and rows
            names = shoe_names(base, batch.numbers)
            made = file_batch(rows, names, origins(rows, many.meta, source), batch.reach)
            if store.url is not None:
                return made, None
            staged_at = Path(tmp) / f"batch-{next(numbered)}.db"
            stage_frame(made.rounds, staged_at)
            return made, staged_at

        batches: Iterator[tuple[FileBatch, Path | None]]
        if shoe is not None:
            rounds = many.shoe(shoe)
            if rounds is None:
                _check_pick(shoe, many.numbers(), many.label, "--shoe")
                raise AssertionError("unreachable: shoe not in the file")  # pragma: no cover
            one = rounds.select(pl.lit(shoe, dtype=pl.Int64).alias(SHOE_COLUMN), pl.all())
            batches = (ready(b) for b in [streaming.Checked(one)])
        else:
            batches = many.made(ready, progress, ahead=True)
        added: list[str] = []
        already = 0
        last = 0
        shared: ShoeMeta | None = None
        try:
            with contextlib.closing(batches):  # the threads ahead done before tmp goes
                for batch, staged_at in batches:
                    if shared is None:  # the metadata and the name rule, checked once
                        first = batch.shoes["name"].first()
                        shared = importing.shoe_meta(many.meta, path.name, first)
                    ids = store.shoes.add_from_file(batch, shared, staged_at)
                    new = [i for i in ids if i is not None]
                    added.extend(new)
                    already += len(ids) - len(new)
                    last = int(batch.shoes["shoe"].last())
                    if committed is not None:
                        committed(new)
        except RoadsAppError as e:
            if not added:
                raise
            raise StorageError(
                Message("msg_import_stopped", what=e.message, count=f"{len(added):,}", last=last)
            ) from None
    return Imported(added, already)


def import_any_upload(
    data: bytes,
    filename: str,
    data_dir: Path,
    name: str | None = None,
    progress: Callable[[float, int], object] | None = None,
) -> Imported:
    """An uploaded file of one shoe (`import_upload`) or of many (a ``shoe`` column):
    those are put in a private temporary folder under their own name and streamed in as
    `import_shoes` does, ``progress`` told the share of the file read and the shoes so
    far after each batch. The size limit is checked before anything is written."""

    if len(data) > shoe_files.MAX_IMPORT_BYTES:
        raise safe_io.over_limit(
            shown_path(Path(filename).name), len(data), shoe_files.MAX_IMPORT_BYTES
        )
    own = Path(str(filename)).name
    with tempfile.TemporaryDirectory(prefix="roads-app-upload-") as tmp:
        if not own or "\0" in own or len(own.encode()) > 200:
            own = "upload" + Path(str(filename)).suffix[:12]
        path = Path(tmp) / own
        path.write_bytes(data)
        many = streaming.open_shoe_file(path)
        if many is None:
            return Imported([import_upload(data, filename, data_dir, name).id])
        read, shoes = 0, 0

        def told(more: int, batch: int) -> None:
            nonlocal read, shoes
            read, shoes = read + more, shoes + batch
            if progress is not None:
                progress(min(read / max(many.total, 1), 1.0), shoes)

        return import_shoes(path, data_dir, name, progress=told)


def read_shoe(path: Path, shoe: int | None = None) -> tuple[pl.DataFrame, ShoeMeta]:
    """One shoe from any file the commands write: a saved or exported shoe, or shoe K of a
    `simulate` file of any size (K may be left out when the file holds a single shoe).

    A file of many shoes is streamed (`streaming.ShoeFile`) and only the picked shoe is
    checked; without K its shoe numbers are read (for Parquet, the shoe column alone).
    """
    path = Path(path)
    many = streaming.open_shoe_file(path)
    label = shown_path(path.name)
    if many is None:
        _check_pick(shoe, [1], label, "--shoe-index")
        return shoe_files.import_path(path)  # keeps decks, burn card
    k = shoe
    if k is None:
        k = _picker(None, label, "--shoe-index")(many.numbers())
    rounds = many.shoe(k)
    if rounds is None:
        _check_pick(k, many.numbers(), label, "--shoe-index")
        raise AssertionError("unreachable: the shoe is not in the file")  # pragma: no cover
    return rounds, importing.shoe_meta(many.meta, path.name, f"{path.stem} shoe {k}"[:100].strip())


def iter_shoes(path: Path, rows: int | None = None) -> Iterator[pl.DataFrame]:
    """Every shoe of a file, checked, a batch of whole shoes at a time, each batch one
    frame with a ``shoe`` column (`roads-app show`, `good-roads FILE`): any number of
    shoes, in a batch's memory; ``rows``: a batch's rows, when not `streaming.BATCH_ROWS`."""
    path = Path(path)
    many = streaming.open_shoe_file(path)
    if many is None:
        rounds, _meta = shoe_files.import_path(path)
        yield rounds.select(pl.lit(1, dtype=pl.Int32).alias(SHOE_COLUMN), pl.all())
        return
    if rows is not None:
        many.batch_rows = rows
    for batch in many.batches():
        yield batch.frame.with_columns(pl.col(SHOE_COLUMN).cast(pl.Int32))


def _picker(shoe: int | None, label: str, option: str) -> Callable[[list[int]], int]:
    """Which shoe of a file's shoe numbers: ``shoe``, or the only one there is."""

    def pick(numbers: list[int]) -> int:
        if shoe is None and len(numbers) > 1:
            raise StorageError(
                Message(
                    "msg_pick_one",
                    label=label,
                    count=f"{len(numbers):,}",
                    option=option,
                    first=numbers[0],
                    last=numbers[-1],
                )
            )
        _check_pick(shoe, numbers, label, option)
        return numbers[0] if shoe is None else shoe

    return pick


def read_shoes(path: Path) -> pl.DataFrame:
    """Every shoe of a file, checked, as one frame with a ``shoe`` column (`iter_shoes`
    joined: for a file whose shoes fit in memory)."""
    return pl.concat(list(iter_shoes(path)))


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
    store = db.open_store(data_dir)
    saved = store.shoes.load(check_shoe_id(shoe_id))
    rounds, meta = saved.rounds, saved.meta
    if upto is not None:
        rounds = rounds.head(max(0, upto))
    if fmt == "png":
        return draw(rounds, meta), export_name(meta, fmt)  # type: ignore[misc]
    place = store.floor.place_of(meta.id)
    codes = None if place is None else place.codes(rounds.height)
    return shoe_files.export_bytes(rounds, meta, fmt, codes), export_name(meta, fmt)


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
    shoes = shoes.filter(
        pl.Series([on_the_wall(i, WALL_SOURCE, False) for i in shoes["id"]], dtype=pl.Boolean)
    )
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
    return source == WALL_SOURCE and not ended and not is_sample(shoe_id)


def counts(rounds: pl.DataFrame) -> dict[str, Any]:
    """Banker / Player / Tie wins and pairs so far: the line under each lobby board.

    Pairs come with the rounds that recorded them (`stats.flag_counts`), so a shoe
    that never recorded pairs does not read as a shoe without any.

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> c = counts(rounds_from_winners("BBPT"))
    >>> c["B"], c["P"], c["T"], c["rounds"], c["flags"]["player_pair"].recorded
    (2, 1, 1, 4, 0)
    """
    wins = ShoeCounts.of(rounds)
    return {
        **{w.value: wins[w] for w in Winner},
        "rounds": rounds.height,
        "flags": stats.flag_counts(rounds),
    }


def safe_load(shoe_id: str, data_dir: Path) -> tuple[pl.DataFrame, ShoeMeta] | str:
    """Load a shoe or say in one line why it cannot be (for pages that show, not raise):
    the error's `Message`, so a page can say it in its own language."""
    try:
        saved = db.open_store(data_dir).shoes.load(check_shoe_id(shoe_id))  # never a path
        return saved.rounds, saved.meta
    except RoadsAppError as e:
        return e.message
