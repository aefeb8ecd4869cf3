"""Shoe files: CSV / JSON / Parquet import and export, and the bulk multi-shoe files.

The library itself is the database (`roads_app.store.db`); files are for moving shoes
in and out, for the multi-shoe files `simulate` writes, and for reading the one-file-
per-shoe Parquet folders of earlier versions once, when the database is created.

Rules of the house:
* writes are atomic (temporary file in the same folder, fsync, rename), so a crash
  never leaves half a file and a failed write leaves the old file as it was;
* a shoe id is a plain name (letters, digits, ``-``, ``_``): no path ever leaves the
  data folder;
* every file read is checked (schema, card codes, drawing rules, deck counts) and any
  problem is a `StorageError` naming the file and, where it can, the row.

Shoe metadata (`ShoeMeta`) travels inside a Parquet file's key-value metadata.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from roads_app import safe_io
from roads_app.errors import StorageError, quote, shown_path
from roads_app.game.hand import Winner
from roads_app.game.rounds import (
    MULTI_SHOE_SCHEMA,
    ROUNDS_SCHEMA,
    ShoeCounts,
    ShoeMeta,
    is_shoe_id,
)
from roads_app.messages import Message
from roads_app.shoefiles import schemas, streaming
from roads_app.shoefiles.importing import (  # parsing and checking files lives there
    FORMAT_KEY,
    MAX_IMPORT_BYTES,
    META_KEY,
    import_bytes,
    import_path,
    meta_from_text,
    read_any,
    read_parquet_checked,
    validate_rounds,
)

__all__ = [
    "FORMAT_KEY",
    "MAX_IMPORT_BYTES",
    "META_KEY",
    "import_bytes",
    "import_path",
    "read_any",
    "validate_rounds",
]

DATA_DIR = Path("data")
FORMAT_VERSION = "1"
FORMATS: tuple[str, ...] = ("parquet", "csv", "json")
MAX_SAVED_BYTES = 4 * 1024 * 1024
"""Largest one-shoe Parquet file read back (one shoe is a few KB)."""

# --- names and atomic writes ---------------------------------------------------------


_NO_ROOM = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


def write_error(path: Path, e: BaseException) -> StorageError | None:
    """A failed write (ours, or a writer library's) as one line, or None for a bug.

    A full disk, a file over the system's size limit (``ulimit -f``), a folder where the
    file should go or a read-only place are the machine's state, not bugs. Arrow and
    Polars wrap the operating system's error in their own types, so their text is read
    for the errno's words too.
    """
    where = shown_path(path)
    code = e.errno if isinstance(e, OSError) else None
    text = str(e)
    if code in _NO_ROOM or "No space left" in text or "Disk quota" in text:
        return StorageError(f"{where}: the disk is full; nothing was written")
    if code == errno.EFBIG or "File too large" in text:
        return StorageError(
            f"{where}: the file would be over this system's file size limit; nothing was written"
        )
    if code == errno.EISDIR or isinstance(e, IsADirectoryError):
        return StorageError(f"{where}: is a folder; name a file to write")
    if isinstance(e, OSError) and not isinstance(e, StorageError):
        return StorageError(f"{where}: cannot be written ({e.strerror or _first_line(e)})")
    return None


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], None]) -> Path:
    """Write via a temporary file in the same folder, then rename over the target.

    The temporary file's name carries the writer's process id, so a file left by a
    killed writer is recognised (its process is gone) and removed by `sweep_temp_files`.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
        )
    except OSError as e:
        raise write_error(path, e) or e from None
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; a saved shoe is an ordinary file
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if not isinstance(e, StorageError) and (said := write_error(path, e)) is not None:
            raise said from None
        raise
    return path


_TEMP_RE = re.compile(r"^\..+\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")
_OLD_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]+\.tmp$")
STALE_TEMP_SECONDS = 3600.0
"""A temporary file without a writer's process id is left for an hour, then removed."""


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid < 2**22  # another user's process, or not a pid at all
    return True


def sweep_temp_files(folder: Path, name: str | None = None) -> list[Path]:
    """Remove temporary files left in ``folder`` by writes that were killed; returns them.

    Only our own pattern (``.<name>.<pid>.<random>.tmp``) whose process is gone, or an
    older-style ``.<name>.<random>.tmp`` untouched for an hour; ``name`` narrows it to one
    target file's temporaries.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.startswith(".") or not entry.name.endswith(".tmp"):
            continue
        if name is not None and not entry.name.startswith(f".{name}."):
            continue
        m = _TEMP_RE.match(entry.name)
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if m:
                stale = not _alive(int(m["pid"]))
            else:
                stale = bool(_OLD_TEMP_RE.match(entry.name)) and (
                    now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS
                )
            if stale:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def atomic_write_path(path: Path, write: Callable[[Path], None]) -> Path:
    """`atomic_write` for writers that open the file themselves (by its path)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
        )
    except OSError as e:
        raise write_error(path, e) or e from None
    os.close(fd)
    try:
        write(Path(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if not isinstance(e, StorageError) and (said := write_error(path, e)) is not None:
            raise said from None
        raise
    return path


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    return atomic_write(path, lambda fh: fh.write(data))


# --- reading one shoe file (the old file store's, for the migration) ----------------------


def read_shoe_file(path: Path) -> tuple[pl.DataFrame, ShoeMeta] | None:
    """One saved-shoe Parquet file (checked), or None for a multi-shoe simulation file."""
    path = Path(path)
    label = shown_path(path.name)
    # bounded, regular files only: a FIFO or device named *.parquet is refused, never opened
    data = safe_io.read_bounded(path, MAX_SAVED_BYTES, label)
    try:
        if MULTI_SHOE_SCHEMA.names()[0] in pl.read_parquet_schema(io.BytesIO(data)):
            return None
    except Exception:
        pass  # damaged: the checked read below says how, in one line
    frame, md = read_parquet_checked(data, label, 10_000, 64 * MAX_SAVED_BYTES)
    if META_KEY in md:
        meta = meta_from_text(md[META_KEY], label)
    else:
        meta = ShoeMeta(id=_safe_id(path.stem), name=_safe_id(path.stem), source="imported")
    return validate_rounds(frame, label, decks=meta.decks, burn_card=meta.burn_card), meta


def read_bets_file(path: Path) -> pl.DataFrame:
    """A ``<id>.bets.parquet`` file of the old file store, checked against the bets columns."""
    from roads_app.bets.ledger import BETS_SCHEMA, with_placement

    path = Path(path)
    label = shown_path(path.name)
    data = safe_io.read_bounded(path, MAX_SAVED_BYTES, label)
    frame, _ = read_parquet_checked(data, label, 100_000, 64 * MAX_SAVED_BYTES)
    missing = [c for c in BETS_SCHEMA.names() if c not in frame.columns and c != "placement"]
    if missing:
        columns = ", ".join(missing)
        raise StorageError(Message("msg_bets_lack_columns", label=label, columns=columns))
    try:
        return with_placement(frame)
    except Exception:
        raise StorageError(Message("msg_bets_column_type", label=label)) from None


def _safe_id(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_")[:64]
    return cleaned if is_shoe_id(cleaned) else ShoeMeta().id


# --- export -------------------------------------------------------------------------


def _cards_to_text(frame: pl.DataFrame) -> pl.DataFrame:
    """CSV has no lists: card lists become space-separated codes."""
    return frame.with_columns(pl.col(pl.List(pl.String)).list.join(" "))


def export_bytes(
    rounds: pl.DataFrame, meta: ShoeMeta, fmt: str, codes: list[str] | None = None
) -> bytes:
    """A shoe as CSV, JSON or Parquet bytes, in a form `import_bytes` reads back exactly.
    ``codes``: a floor table's shoe's round codes (`roads_app.game.floor.round_code`), a
    ``round_code`` column after ``round``; a shoe of no table (None) is written as before."""
    frame = rounds.select(ROUNDS_SCHEMA.names())
    if codes is not None:
        column = pl.Series(schemas.ROUND_CODE, codes, dtype=pl.String)
        frame = frame.insert_column(frame.columns.index("round") + 1, column)
    buf = io.BytesIO()
    if fmt == "parquet":
        md = {META_KEY: json.dumps(meta.to_dict()), FORMAT_KEY: FORMAT_VERSION}
        frame.write_parquet(buf, metadata=md)
    elif fmt == "csv":
        _cards_to_text(frame).write_csv(buf)
    elif fmt == "json":
        doc = {
            "format": f"roads-app/{FORMAT_VERSION}",
            "meta": meta.to_dict(),
            "rounds": frame.with_columns(pl.col("winner").cast(pl.String)).to_dicts(),
        }
        buf.write(json.dumps(doc, indent=1).encode())
    else:
        raise StorageError(Message("msg_export_format", fmt=quote(fmt), formats=", ".join(FORMATS)))
    return buf.getvalue()


# --- whole files: the CLI's simulate/show ---------------------------------------------


def check_out_path(path: Path) -> str:
    """The format an output file's name asks for (.parquet, .csv or .json); a folder of
    that name is refused before any work is done."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise StorageError(Message("msg_output_suffix", name=shown_path(Path(path).name)))
    try:
        is_dir = Path(path).is_dir()
    except OSError as e:  # a name too long, a loop of links
        raise write_error(Path(path), e) or e from None
    if is_dir:
        raise StorageError(Message("msg_output_folder", path=shown_path(path)))
    return fmt


class _ParquetSink:
    """Row group after row group into one Parquet file (Arrow's writer, no GIL held)."""

    def __init__(self, path: Path, meta: ShoeMeta | None = None) -> None:
        self.path = path
        self.writer: Any = None  # pyarrow.parquet.ParquetWriter, made on the first batch
        self.footer = {} if meta is None else {META_KEY: json.dumps(meta.to_dict())}

    def write(self, frame: Any) -> None:
        """A Polars frame or an Arrow record batch (`roads_app.sim.bulk.arrow_batch`)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = (
            frame.to_arrow() if isinstance(frame, pl.DataFrame) else pa.Table.from_batches([frame])
        )
        if self.writer is None:
            schema = table.schema.with_metadata({**(table.schema.metadata or {}), **self.footer})
            self.writer = pq.ParquetWriter(self.path, schema)
        self.writer.write_table(table, row_group_size=max(table.num_rows, 1))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class _TextSink:
    """CSV (header once, cards as space-separated codes) or one JSON array of rows."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.fh = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.fmt = fmt
        self.first = True

    def write(self, frame: Any) -> None:
        if not isinstance(frame, pl.DataFrame):  # Arrow columns: text goes through Polars
            frame = pl.from_arrow(frame)
        if self.fmt == "csv":
            _cards_to_text(frame).write_csv(self.fh, include_header=self.first)
        elif frame.height:
            rows = frame.with_columns(pl.col(pl.Enum).cast(pl.String)).write_json()
            self.fh.write((b"[" if self.first else b",") + rows[1:-1].encode())
        else:
            return
        self.first = False

    def close(self) -> None:
        if self.fmt == "json":
            self.fh.write(b"[]" if self.first else b"]")
        self.fh.close()


def write_batches(
    frames: Iterable[Any], path: Path, meta: ShoeMeta | None = None
) -> tuple[Path, int]:
    """Write rounds frames (one or many shoes each) one after another into one file.

    A frame is a Polars frame or an Arrow record batch of the same schema (Parquet is
    written from Arrow either way: `roads_app.sim.bulk.arrow_batches` skips Polars).

    Memory stays that of two batches whatever the total: a batch is written (in a
    second thread, so the next one is built meanwhile) and dropped. Parquet gets a row
    group per batch; CSV and JSON are the bytes the frames joined would give (the
    CSV header once, one JSON array). Atomic as `atomic_write`: a failure leaves no
    file. ``meta``: what every shoe of the file shares (its decks, above all), kept in
    the Parquet footer as a one-shoe file keeps its own; CSV and JSON rows have no place
    for it. Returns (path, rows).
    """
    fmt = check_out_path(path)
    rows = 0
    sweep_temp_files(Path(path).parent, Path(path).name)  # left by a killed earlier run

    def write(tmp: Path) -> None:
        nonlocal rows
        sink: _ParquetSink | _TextSink = (
            _ParquetSink(tmp, meta) if fmt == "parquet" else _TextSink(tmp, fmt)
        )
        pending: Future[None] | None = None
        try:
            with ThreadPoolExecutor(max_workers=1) as pool:
                for frame in frames:
                    if pending is not None:
                        pending.result()  # at most one batch waiting: memory stays flat
                    pending = pool.submit(sink.write, frame)
                    rows += len(frame)
                if pending is not None:
                    pending.result()
                if rows == 0 and fmt == "parquet":
                    sink.write(MULTI_SHOE_SCHEMA.to_frame())
        finally:
            sink.close()

    return atomic_write_path(path, write), rows


def _counts(frame: pl.DataFrame | pl.LazyFrame) -> tuple[dict[str, int], ShoeCounts]:
    """Rounds, shoes and rounds with cards of a frame, and its winners' counts (streamed)."""
    lf = frame.lazy()
    names = lf.collect_schema().names()
    multi = "shoe" in names
    cards = pl.col("player_cards").is_not_null().sum() if "player_cards" in names else pl.lit(0)
    row = (
        lf.select(
            n=pl.len(),
            shoes=pl.col("shoe").n_unique() if multi else pl.lit(1),
            with_cards=cards,
            **ShoeCounts.exprs(pl.col("winner").cast(pl.String)),
        )
        .collect(engine="streaming")
        .row(0, named=True)
    )
    return {k: int(row[k] or 0) for k in _SIZES}, ShoeCounts.of_row(row)


_SIZES = ("n", "shoes", "with_cards")


def summary(frame: pl.DataFrame | pl.LazyFrame) -> str:
    """A few lines a person can read: shoes, rounds, B/P/T shares, hands per shoe.

    A lazy frame is summed by Polars' streaming engine, never held whole.
    """
    return _summary_text(*_counts(frame))


def _summary_text(row: dict[str, int], wins: ShoeCounts) -> str:
    n, shoes = row["n"], row["shoes"]
    parts = [f"{w} {wins[w]} ({wins[w] / n:.2%})" if n else f"{w} 0" for w in Winner]
    return (
        f"{shoes} shoe(s), {n} rounds ({n / max(shoes, 1):.1f} per shoe); "
        + ", ".join(parts)
        + f"; {row['with_cards']} rounds with cards"
    )


def show_summary(path: Path) -> str:
    """`summary` of a file, every shoe checked as `import` checks it.

    A file of many shoes (any number) is streamed a batch of whole shoes at a time
    (`streaming.ShoeFile`), so memory is a batch's; a one-shoe file is read as `import`
    reads it (2 MB).
    """
    path = Path(path)
    many = streaming.open_shoe_file(path)
    if many is None:
        return summary(read_any(path))
    total: dict[str, int] = dict.fromkeys(_SIZES, 0)
    wins = ShoeCounts()
    for batch in many.batches():
        sizes, batch_wins = _counts(batch.frame)  # whole shoes, each once (no repeats)
        for key, value in sizes.items():
            total[key] += value
        wins += batch_wins
    return _summary_text(total, wins)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
