"""Saved shoes: one Parquet file per shoe in a data folder, plus CSV / JSON import-export.

Rules of the house:
* writes are atomic (temporary file in the same folder, fsync, rename), so a crash
  never leaves half a file and a failed write leaves the old file as it was;
* a shoe id is a plain name (letters, digits, ``-``, ``_``): no path ever leaves the
  data folder;
* every file read is checked (schema, card codes, drawing rules, deck counts) and any
  problem is a `StorageError` naming the file and, where it can, the row.

Shoe metadata (`ShoeMeta`) travels inside the Parquet file's key-value metadata.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from roads_app import safe_io
from roads_app.errors import RoadsAppError, StorageError
from roads_app.game.rounds import (
    ID_PATTERN,
    MULTI_SHOE_SCHEMA,
    ROUNDS_SCHEMA,
    WINNERS,
    ShoeMeta,
    check_name,
)
from roads_app.store.importing import (  # parsing and checking files lives there
    FORMAT_KEY,
    MAX_IMPORT_BYTES,
    META_KEY,
    import_bytes,
    import_path,
    max_rounds,
    meta_from_text,
    read_any,
    read_parquet_checked,
    validate_rounds,
)

__all__ = [
    "FORMAT_KEY", "MAX_IMPORT_BYTES", "META_KEY", "import_bytes", "import_path",
    "read_any", "validate_rounds",
]  # fmt: skip

DATA_DIR = Path("data")
FORMAT_VERSION = "1"
FORMATS: tuple[str, ...] = ("parquet", "csv", "json")
MAX_SAVED_BYTES = 4 * 1024 * 1024
"""Largest saved shoe file read back (one shoe is a few KB)."""
_ID_RE = re.compile(ID_PATTERN)

WRITE_LOCK = threading.RLock()
"""Held by every read-modify-write of a saved shoe (rename here, checked saves in the
dashboard): the dashboard's tabs are threads of one server process."""


# --- names and atomic writes ---------------------------------------------------------


def check_shoe_id(shoe_id: str) -> str:
    """A shoe id is a plain name; anything path-like is refused, never resolved."""
    if not isinstance(shoe_id, str) or not _ID_RE.match(shoe_id):
        raise StorageError(
            f"shoe id {shoe_id!r} is not a plain name "
            "(letters, digits, '-' and '_', at most 64, no paths)"
        )
    return shoe_id


def shoe_path(shoe_id: str, data_dir: Path = DATA_DIR) -> Path:
    return Path(data_dir) / f"{check_shoe_id(shoe_id)}.parquet"


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
        raise StorageError(f"{path}: cannot be written ({e.strerror})") from None
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
        if isinstance(e, OSError) and not isinstance(e, StorageError):
            raise StorageError(f"{path}: cannot be written ({e.strerror or e})") from None
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


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    return atomic_write(path, lambda fh: fh.write(data))


# --- saving and loading one shoe -------------------------------------------------------


def save_shoe(rounds: pl.DataFrame, meta: ShoeMeta, data_dir: Path = DATA_DIR) -> Path:
    """Save a shoe as ``<data_dir>/<id>.parquet`` atomically; returns the path."""
    frame = rounds.select(ROUNDS_SCHEMA.names()).cast(dict(ROUNDS_SCHEMA))
    path = shoe_path(meta.id, data_dir)
    md = {META_KEY: json.dumps(meta.to_dict()), FORMAT_KEY: FORMAT_VERSION}
    return atomic_write(path, lambda fh: frame.write_parquet(fh, metadata=md))


def load_shoe(shoe: str | Path, data_dir: Path = DATA_DIR) -> tuple[pl.DataFrame, ShoeMeta]:
    """Load a saved shoe by id (in ``data_dir``) or by path; checked on the way in."""
    path = Path(shoe) if isinstance(shoe, Path) or str(shoe).endswith(".parquet") else None
    if path is None:
        path = shoe_path(str(shoe), data_dir)
    label = path.name
    if not path.exists():
        raise StorageError(f"{label}: no saved shoe with that id in {data_dir}")
    data = safe_io.read_bounded(path, MAX_SAVED_BYTES, label)
    frame, kv = read_parquet_checked(data, label, 10_000, 64 * MAX_SAVED_BYTES)
    if META_KEY in kv:
        meta = meta_from_text(kv[META_KEY], label)
    else:
        meta = ShoeMeta(id=_safe_id(path.stem), name=_safe_id(path.stem), source="imported")
    return validate_rounds(frame, label, decks=meta.decks, burn_card=meta.burn_card), meta


def _safe_id(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_")[:64]
    return cleaned if cleaned and _ID_RE.match(cleaned) else ShoeMeta().id


def list_shoes(data_dir: Path = DATA_DIR) -> pl.DataFrame:
    """One row per saved shoe file, newest first; unreadable files show their error."""
    rows: list[dict[str, Any]] = []
    for path in sorted(Path(data_dir).glob("*.parquet")):
        if path.name.startswith(".") or path.name.count(".") > 1:
            continue  # temporary files and side files such as <id>.bets.parquet
        row: dict[str, Any] = {
            "id": _printable(path.stem),
            "name": _printable(path.stem),
            "created": None,
            "rounds": None,
            "source": None,
            "rules": None,
            "decks": None,
            "modified": 0.0,
            "error": None,
        }
        try:
            row["modified"] = path.stat().st_mtime
            if not path.is_file():
                raise StorageError("not a regular file (a dangling link, a folder?)")
            if not _ID_RE.match(path.stem):
                raise StorageError("the file name is not a shoe id (letters, digits, - and _)")
            md = pl.read_parquet_metadata(path)
            text = md.get(META_KEY)
            meta = meta_from_text(text, path.name) if text is not None else ShoeMeta(
                name=path.stem, source="imported"
            )
            if MULTI_SHOE_SCHEMA.names()[0] in pl.read_parquet_schema(path):
                continue  # a multi-shoe simulation file, not a saved shoe
            n = pl.scan_parquet(path).select(pl.len()).collect().item()
            if n > max_rounds(meta.decks):
                raise StorageError(
                    f"{n} rounds cannot come from a {meta.decks}-deck shoe "
                    f"(at most {max_rounds(meta.decks)})"
                )
            row.update(
                id=_printable(path.stem),
                name=meta.name or path.stem,
                created=meta.created,
                rounds=n,
                source=meta.source,
                rules=meta.rules,
                decks=meta.decks,
            )
        except Exception as e:  # one broken file is a broken row, never a broken listing
            row["error"] = f"{_printable(path.name)}: {_first_line(e)}"
        rows.append(row)
    schema = {
        "id": pl.String,
        "name": pl.String,
        "created": pl.String,
        "rounds": pl.Int64,
        "source": pl.String,
        "rules": pl.String,
        "decks": pl.Int64,
        "modified": pl.Float64,
        "error": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").sort("modified", descending=True)


def delete_shoe(shoe_id: str, data_dir: Path = DATA_DIR) -> None:
    path = shoe_path(shoe_id, data_dir)
    if not path.exists():
        raise StorageError(f"{path.name}: no saved shoe with that id")
    path.unlink()


def rename_shoe(shoe_id: str, name: str, data_dir: Path = DATA_DIR) -> ShoeMeta:
    try:
        name = check_name(name)
    except RoadsAppError as e:
        raise StorageError(str(e)) from None
    with WRITE_LOCK:  # read-modify-write: no result saved by a tab may slip in between
        rounds, meta = load_shoe(shoe_id, data_dir)
        new = ShoeMeta.from_dict({**meta.to_dict(), "name": name})
        save_shoe(rounds, new, data_dir)
    return new


# --- import and export -----------------------------------------------------------------


def _cards_to_text(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(
        pl.col("player_cards").list.join(" "), pl.col("banker_cards").list.join(" ")
    )


def export_bytes(rounds: pl.DataFrame, meta: ShoeMeta, fmt: str) -> bytes:
    """A shoe as CSV, JSON or Parquet bytes, in a form `import_bytes` reads back exactly."""
    frame = rounds.select(ROUNDS_SCHEMA.names())
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
        raise StorageError(f"export format {fmt!r} is not one of {', '.join(FORMATS)}")
    return buf.getvalue()


# --- whole files: the CLI's simulate/show ---------------------------------------------


def write_frame(frame: pl.DataFrame, path: Path) -> Path:
    """Write a rounds frame (one or many shoes) as .parquet, .csv or .json, atomically."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt in ("parquet", "csv", "json"):
        sweep_temp_files(Path(path).parent, Path(path).name)  # left by a killed earlier run
    if fmt == "parquet":
        return atomic_write(path, lambda fh: frame.write_parquet(fh))
    if fmt == "csv":
        return atomic_write(path, lambda fh: _cards_to_text(frame).write_csv(fh))
    if fmt == "json":
        return atomic_write(
            path, lambda fh: frame.with_columns(pl.col("winner").cast(pl.String)).write_json(fh)
        )
    raise StorageError(f"{Path(path).name}: output must end in .parquet, .csv or .json")


def summary(frame: pl.DataFrame) -> str:
    """A few lines a person can read: shoes, rounds, B/P/T shares, hands per shoe."""
    n = frame.height
    shoes = frame["shoe"].n_unique() if "shoe" in frame.columns else 1
    counts = dict(frame.group_by("winner").len().iter_rows())
    parts = [
        f"{w} {counts.get(w, 0)} ({counts.get(w, 0) / n:.2%})" if n else f"{w} 0" for w in WINNERS
    ]
    with_cards = frame["player_cards"].is_not_null().sum()
    return (
        f"{shoes} shoe(s), {n} rounds ({n / shoes:.1f} per shoe); "
        + ", ".join(parts)
        + f"; {with_cards} rounds with cards"
    )


def _printable(text: str) -> str:
    """A file name as text that can be shown and stored (lone surrogates escaped)."""
    return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
