"""The library of saved shoes as a person uses it: import, export, simulate, the lobby.

Thin steps over `roads_app.store.files` (parsing) and `roads_app.store.db` (the library
database) that the CLI (`roads-app import/export`) and the dashboard's library page
share, so both refuse the same files with the same one-line `StorageError` and nothing
in the library changes when an import is refused.

The board PNG is a scorecard: the dashboard's own board figure, not a second drawing
of it, under a header of name, table, date and counts (`render.scorecard`), rendered by
Plotly's renderer (kaleido, driving the system Chromium).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from roads_app import safe_io
from roads_app.errors import RoadsAppError, StorageError
from roads_app.game.rounds import ShoeMeta
from roads_app.game.shoe import ShoeOptions, deal_shoe
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

LOBBY_SIZE = 8
"""Shoes the lobby shows at most (the tables a multi-table player follows)."""



def import_upload(
    data: bytes, filename: str, data_dir: Path, name: str | None = None
) -> ShoeMeta:
    """Check an uploaded file and add it to the library; returns its metadata (fresh id).

    The size limit is checked before any parsing; a refused file leaves ``data_dir`` as it was.
    """
    if len(data) > storage.MAX_IMPORT_BYTES:
        raise StorageError(
            f"{Path(filename).name}: {len(data) / 2**20:.1f} MB is over the "
            f"{storage.MAX_IMPORT_BYTES // 2**20} MB limit"
        )
    rounds, meta = storage.import_bytes(data, filename, name=name)
    db.open_store(data_dir).create_shoe(meta, rounds, action="imported")
    return meta


def import_file(path: Path, data_dir: Path, name: str | None = None) -> ShoeMeta:
    """`roads-app import FILE`: the same checks as an upload, on a bounded read.

    Only a regular file is read, and at most the limit plus one byte of it, so
    ``/dev/zero``, a FIFO or a file that grows while it is read are refused in one line.
    """
    rounds, meta = storage.import_path(Path(path), name=name)
    db.open_store(data_dir).create_shoe(meta, rounds, action="imported")
    return meta


# --- files of many shoes: what `simulate` writes, taken apart for the other commands -------

SHOE_COLUMN = "shoe"
"""The column a multi-shoe file (``roads-app simulate``) numbers its shoes by."""

MAX_READ_BYTES = 50 * storage.MAX_IMPORT_BYTES
"""Largest file `read_shoe` reads for the odds or a summary (an import stays at 2 MB)."""


def split_shoes(data: bytes, filename: str) -> dict[int, bytes]:
    """A multi-shoe file as one file per shoe (same format, without the shoe column), by
    shoe number in file order; ``{}`` for a one-shoe file.

    Only the shoe numbers are looked at here: each part is then read and checked by
    `storage.import_bytes` exactly like a file of one shoe, so a damaged file gets the
    same message either way. A file that cannot be taken apart is left whole for it.
    """
    label = Path(filename).name
    fmt = Path(label).suffix.lower().lstrip(".")
    try:
        if fmt == "parquet":
            frame, _ = importing.read_parquet_checked(
                data, label, importing.MAX_SHOW_ROWS, importing.MAX_SHOW_UNPACKED
            )
            if SHOE_COLUMN not in frame.columns:
                return {}
            numbers = frame[SHOE_COLUMN].cast(pl.String).to_list()
            parts = _parts(numbers, label)
            return {k: _parquet_bytes(frame[rows].drop(SHOE_COLUMN)) for k, rows in parts.items()}
        if fmt == "csv":
            frame = pl.read_csv(io.BytesIO(data), infer_schema=False)
            if SHOE_COLUMN not in frame.columns:
                return {}
            parts = _parts(frame[SHOE_COLUMN].to_list(), label)
            return {k: _csv_bytes(frame[rows].drop(SHOE_COLUMN)) for k, rows in parts.items()}
        if fmt == "json":
            return _split_json(data, label)
    except StorageError:
        raise
    except Exception:
        return {}  # not readable as a table: the one-shoe reader says what is wrong
    return {}


def _parts(numbers: list[object], label: str) -> dict[int, list[int]]:
    """Row positions per shoe number, shoes in the order they first appear."""
    parts: dict[int, list[int]] = {}
    for i, v in enumerate(numbers):
        text = "" if v is None else str(v).strip()
        if not text.isdigit() or int(text) < 1:
            raise StorageError(f"{label}: row {i + 1}: shoe {v!r} is not a shoe number (1, 2, ...)")
        parts.setdefault(int(text), []).append(i)
    return parts


def _parquet_bytes(frame: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.write_parquet(buf)
    return buf.getvalue()


def _csv_bytes(frame: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.write_csv(buf)
    return buf.getvalue()


def _split_json(data: bytes, label: str) -> dict[int, bytes]:
    doc = json.loads(data)
    rows = doc.get("rounds") if isinstance(doc, dict) else doc
    if not isinstance(rows, list) or not any(
        isinstance(r, dict) and SHOE_COLUMN in r for r in rows
    ):
        return {}
    if not all(isinstance(r, dict) for r in rows):
        return {}  # the one-shoe reader explains the mixed list
    parts = _parts([r.get(SHOE_COLUMN) for r in rows], label)
    out: dict[int, bytes] = {}
    for k, idx in parts.items():
        shoe_rows = [{c: v for c, v in rows[i].items() if c != SHOE_COLUMN} for i in idx]
        body: object = {**doc, "rounds": shoe_rows} if isinstance(doc, dict) else shoe_rows
        out[k] = json.dumps(body).encode()
    return out


def _read_bytes(path: Path, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit``: a device, FIFO or folder is refused first."""
    return safe_io.read_bounded(Path(path), limit, str(path))


def _check_pick(shoe: int | None, numbers: list[int], label: str, option: str) -> None:
    if shoe is not None and shoe not in numbers:
        held = f"shoes {numbers[0]} to {numbers[-1]}" if len(numbers) > 1 else "one shoe"
        if numbers != list(range(numbers[0], numbers[-1] + 1)):
            held = "shoes " + ", ".join(map(str, numbers))
        raise StorageError(f"{label}: {option} {shoe}: the file holds {held}")


def _one_shoe(
    data: bytes, label: str, k: int, name: str | None
) -> tuple[pl.DataFrame, ShoeMeta]:
    """One part of a multi-shoe file read as a file of its own; errors name the shoe."""
    try:
        return storage.import_bytes(data, label, name=name)
    except StorageError as e:
        text = str(e)
        if text.startswith(f"{label}: "):
            text = f"{label}, shoe {k}: {text[len(label) + 2:]}"
        raise StorageError(text) from None


def import_shoes(
    path: Path, data_dir: Path, name: str | None = None, shoe: int | None = None
) -> list[ShoeMeta]:
    """`roads-app import FILE [--shoe K]`: every shoe of the file, or shoe K, each a new id.

    A file of one shoe is imported as `import_file` does. Every shoe is checked before the
    first is saved, so a file with one bad shoe adds nothing.
    """
    path = Path(path)
    data = _read_bytes(path, storage.MAX_IMPORT_BYTES)
    parts = split_shoes(data, path.name)
    if not parts:
        _check_pick(shoe, [1], path.name, "--shoe")
        return [import_upload(data, path.name, data_dir, name=name)]
    _check_pick(shoe, list(parts), path.name, "--shoe")
    picked = {shoe: parts[shoe]} if shoe is not None else parts
    names = {k: f"{name or path.stem} shoe {k}"[:100] for k in picked}
    for k, part in picked.items():  # check them all first: a bad shoe adds nothing
        _one_shoe(part, path.name, k, names[k])
    # then add each the way any one-shoe file is added (one path into the library)
    return [import_upload(part, path.name, data_dir, name=names[k]) for k, part in picked.items()]


def read_shoe(path: Path, shoe: int | None = None) -> tuple[pl.DataFrame, ShoeMeta]:
    """One shoe from any file the commands write: a saved or exported shoe, or shoe K of a
    `simulate` file (K may be left out when the file holds a single shoe)."""
    path = Path(path)
    data = _read_bytes(path, MAX_READ_BYTES)
    parts = split_shoes(data, path.name)
    if not parts:
        _check_pick(shoe, [1], path.name, "--shoe-index")
        return storage.import_bytes(data, path.name)  # keeps decks, burn card, rules
    numbers = list(parts)
    if shoe is None and len(numbers) > 1:
        raise StorageError(
            f"{path.name}: holds {len(numbers)} shoes; pick one with --shoe-index K "
            f"({numbers[0]} to {numbers[-1]})"
        )
    _check_pick(shoe, numbers, path.name, "--shoe-index")
    k = numbers[0] if shoe is None else shoe
    return _one_shoe(parts[k], path.name, k, f"{path.stem} shoe {k}")


def read_shoes(path: Path) -> pl.DataFrame:
    """Every shoe of a file, checked, as one frame with a ``shoe`` column (`roads-app show`)."""
    path = Path(path)
    data = _read_bytes(path, MAX_READ_BYTES)
    parts = split_shoes(data, path.name)
    if not parts:
        rounds, _meta = read_shoe(path)
        return rounds.select(pl.lit(1, dtype=pl.Int32).alias(SHOE_COLUMN), pl.all())
    frames = [
        _one_shoe(part, path.name, k, None)[0].select(
            pl.lit(k, dtype=pl.Int32).alias(SHOE_COLUMN), pl.all()
        )
        for k, part in parts.items()
    ]
    return pl.concat(frames)


def check_format(fmt: str) -> str:
    if fmt not in EXPORT_FORMATS:
        raise StorageError(f"export format {fmt!r} is not one of {', '.join(EXPORT_FORMATS)}")
    return fmt


def export_name(meta: ShoeMeta, fmt: str) -> str:
    """A file name a person recognises: the shoe's name made safe, then its id."""
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in meta.name.strip())
    stem = "-".join(part for part in stem.split("-") if part)[:40]
    return f"{stem + '_' if stem else ''}{meta.id}.{check_format(fmt)}"


def export_shoe(
    shoe_id: str, fmt: str, data_dir: Path, upto: int | None = None
) -> tuple[bytes, str]:
    """A saved shoe as file bytes and a file name; ``upto`` cuts it after that round."""
    check_format(fmt)
    saved = db.open_store(data_dir).load(storage.check_shoe_id(shoe_id))
    rounds, meta = saved.rounds, saved.meta
    if upto is not None:
        rounds = rounds.head(max(0, upto))
    if fmt == "png":
        return board_png(rounds, meta=meta), export_name(meta, fmt)
    return storage.export_bytes(rounds, meta, fmt), export_name(meta, fmt)


PNG_WIDTH_PX = 1400
PNG_SCALE = 2


def board_png(rounds: pl.DataFrame, title: str = "", meta: ShoeMeta | None = None) -> bytes:
    """The scorecard as a PNG: the dashboard's own board figure under a header of the
    shoe's name, table, decks, date and counts (`render.scorecard`), rendered by kaleido.

    ``title`` names a shoe given without its ``meta``.
    """
    try:
        import plotly.io as pio

        from roads_app.render.scorecard import scorecard_figure
    except ImportError as e:  # pragma: no cover - depends on the install
        raise StorageError(f"PNG export needs {e.name}: pip install kaleido") from None
    if meta is None and title:
        meta = ShoeMeta(name=title[:80].strip())
    table_title = None
    if meta is not None:
        from roads_app.bets.tables import load_table

        try:
            table_title = load_table(meta.rules).title
        except RoadsAppError:
            table_title = None  # its rules file is gone: the table's name is said instead
    fig = scorecard_figure(rounds, meta, table_title, width_px=PNG_WIDTH_PX)
    try:
        # The whole shoe laid out for a 1400 px page and drawn at twice that: a
        # print-worthy sheet, every road whole, the same figure the dashboard shows.
        return pio.to_image(fig, format="png", scale=PNG_SCALE)
    except Exception as e:  # kaleido or Chromium missing / failing
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise StorageError(f"cannot draw the board as PNG: {first}") from None


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
    """Deal a shoe from a seed with the table's shoe options and save it (source simulated)."""
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
    db.open_store(data_dir).create_shoe(meta, rounds)
    return meta


def lobby_shoes(data_dir: Path, limit: int = LOBBY_SIZE) -> pl.DataFrame:
    """The shoes being entered by hand, most recently changed first (readable ones only)."""
    return db.open_store(data_dir).list_shoes(source="hand", limit=limit)


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
        B=(pl.col("winner") == "B").sum(),
        P=(pl.col("winner") == "P").sum(),
        T=(pl.col("winner") == "T").sum(),
        rounds=pl.len(),
    ).row(0, named=True)
    return {**{k: int(v or 0) for k, v in row.items()}, "flags": stats.flag_counts(rounds)}


def safe_load(shoe_id: str, data_dir: Path) -> tuple[pl.DataFrame, ShoeMeta] | str:
    """Load a shoe or say in one line why it cannot be (for pages that show, not raise):
    the error's `Message`, so a page can say it in its own language."""
    try:
        saved = db.open_store(data_dir).load(storage.check_shoe_id(shoe_id))  # never a path
        return saved.rounds, saved.meta
    except RoadsAppError as e:
        return e.message
