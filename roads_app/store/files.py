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
import io
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

from roads_app.errors import RoadsAppError, StorageError
from roads_app.game import cards as C
from roads_app.game.drawing import check_hand
from roads_app.game.rounds import (
    MULTI_SHOE_SCHEMA,
    ROUNDS_SCHEMA,
    WINNERS,
    ShoeMeta,
    check_composition,
    derive_from_cards,
    winner_from_points,
)

DATA_DIR = Path("data")
META_KEY = "roads_app.meta"
FORMAT_KEY = "roads_app.format"
FORMAT_VERSION = "1"
FORMATS: tuple[str, ...] = ("parquet", "csv", "json")
MAX_IMPORT_BYTES = 2 * 1024 * 1024
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")

# --- names and atomic writes ---------------------------------------------------------


def check_shoe_id(shoe_id: str) -> str:
    """A shoe id is a plain name; anything path-like is refused, never resolved."""
    if not isinstance(shoe_id, str) or not _ID_RE.match(shoe_id):
        raise StorageError(
            f"shoe id {shoe_id!r} is not a plain name "
            "(letters, digits, '-' and '_', at most 64, no paths)"
        )
    return shoe_id


def atomic_write(path: Path, write: Callable[[io.BufferedWriter], None]) -> Path:
    """Write via a temporary file in the same folder, then rename over the target."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; a saved shoe is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def atomic_write_path(path: Path, write: Callable[[Path], None]) -> Path:
    """`atomic_write` for writers that open the file themselves (by its path)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    return atomic_write(path, lambda fh: fh.write(data))


# --- reading one shoe file (the old file store's, for the migration) ----------------------


def _read_parquet(source: Path | bytes, label: str) -> tuple[pl.DataFrame, dict[str, str]]:
    try:
        if isinstance(source, bytes):
            frame = pl.read_parquet(io.BytesIO(source))
            md = pl.read_parquet_metadata(io.BytesIO(source))
        else:
            frame = pl.read_parquet(source)
            md = pl.read_parquet_metadata(source)
    except FileNotFoundError:
        raise StorageError(f"{label}: no such file") from None
    except Exception as e:  # polars raises several types for damaged files
        raise StorageError(
            f"{label}: not a readable Parquet file (truncated, corrupt or another format: "
            f"{_first_line(e)})"
        ) from None
    return frame, md


def read_shoe_file(path: Path) -> tuple[pl.DataFrame, ShoeMeta] | None:
    """One saved-shoe Parquet file (checked), or None for a multi-shoe simulation file."""
    path = Path(path)
    frame, md = _read_parquet(path, path.name)
    if MULTI_SHOE_SCHEMA.names()[0] in frame.columns:
        return None
    meta = _meta_from(md.get(META_KEY), path.name, default_id=path.stem)
    return validate_rounds(frame, path.name, decks=meta.decks, burn_card=meta.burn_card), meta


def read_bets_file(path: Path) -> pl.DataFrame:
    """A ``<id>.bets.parquet`` file of the old file store, checked against the bets columns."""
    from roads_app.bets.ledger import BETS_SCHEMA

    path = Path(path)
    frame, _ = _read_parquet(path, path.name)
    missing = [c for c in BETS_SCHEMA.names() if c not in frame.columns]
    if missing:
        raise StorageError(f"{path.name}: bet history lacks column(s) {', '.join(missing)}")
    try:
        return frame.select(BETS_SCHEMA.names()).cast(BETS_SCHEMA)  # type: ignore[arg-type]
    except Exception:
        raise StorageError(f"{path.name}: bet history has a column of the wrong type") from None


def _meta_from(text: str | None, label: str, default_id: str) -> ShoeMeta:
    if text is None:
        return ShoeMeta(id=_safe_id(default_id), name=default_id, source="imported")
    try:
        return ShoeMeta.from_dict(json.loads(text))
    except (ValueError, TypeError, RoadsAppError) as e:
        raise StorageError(f"{label}: shoe metadata is damaged ({_first_line(e)})") from None


def _safe_id(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_")[:64]
    return cleaned if cleaned and _ID_RE.match(cleaned) else ShoeMeta().id


# --- checking a frame that came from a file -----------------------------------------


def validate_rounds(
    frame: pl.DataFrame, label: str, *, decks: int = 8, burn_card: str | None = None
) -> pl.DataFrame:
    """Bring a frame into `ROUNDS_SCHEMA` and check every round; StorageError on a problem."""
    try:
        return _validate(frame, decks, burn_card)
    except RoadsAppError as e:
        raise StorageError(f"{label}: {e}") from None


def _validate(frame: pl.DataFrame, decks: int, burn_card: str | None) -> pl.DataFrame:
    cols = set(frame.columns)
    if "winner" not in cols:
        raise StorageError(
            f"no 'winner' column (found: {', '.join(frame.columns) or 'none'}); "
            "a shoe file needs at least one column of B/P/T"
        )
    extra = cols - set(ROUNDS_SCHEMA.names())
    if extra:
        raise StorageError(f"unknown column(s) {', '.join(sorted(extra))}")
    out = frame
    for name, dtype in ROUNDS_SCHEMA.items():
        if name not in cols:
            out = out.with_columns(pl.lit(None, dtype=dtype).alias(name))
    winners = out["winner"].cast(pl.String).str.strip_chars().str.to_uppercase()
    bad = winners.is_null() | ~winners.is_in(list(WINNERS))
    if bad.any():
        i = int(bad.arg_max())  # type: ignore[arg-type]
        raise StorageError(f"row {i + 1}: winner {out['winner'][i]!r} is not B, P or T")
    out = out.with_columns(winner=winners)
    for name, dtype in ROUNDS_SCHEMA.items():
        try:
            out = out.with_columns(pl.col(name).cast(dtype, strict=True))
        except Exception:
            raise StorageError(f"column {name!r} does not hold {dtype} values") from None
    out = out.select(ROUNDS_SCHEMA.names())
    n = out.height
    if n and out["round"].null_count() < n:
        expect = pl.int_range(1, n + 1, eager=True, dtype=pl.Int32)
        wrong = out["round"].ne_missing(expect)
        if wrong.any():
            i = int(wrong.arg_max())  # type: ignore[arg-type]
            raise StorageError(f"row {i + 1}: round number {out['round'][i]} should be {i + 1}")
    out = out.with_columns(pl.int_range(1, n + 1, dtype=pl.Int32).alias("round"))
    for side in ("player", "banker"):
        pts = out[f"{side}_points"]
        oob = pts.is_not_null() & ((pts < 0) | (pts > 9))
        if oob.any():
            i = int(oob.arg_max())  # type: ignore[arg-type]
            raise StorageError(f"row {i + 1}: {side} points {pts[i]} out of range 0-9")
    _check_cards(out)
    derived = derive_from_cards(out)
    _check_agrees(out, derived)
    check_composition(out, decks, [burn_card] if burn_card else [])
    return derived


def _check_cards(out: pl.DataFrame) -> None:
    """Card codes and the drawing rules, row by row (rows with cards only)."""
    rows = out.select("round", "player_cards", "banker_cards").filter(
        pl.col("player_cards").is_not_null() | pl.col("banker_cards").is_not_null()
    )
    for r, pc, bc in rows.iter_rows():
        if pc is None or bc is None:
            raise StorageError(f"row {r}: cards given for one hand only")
        try:
            hand = check_hand(C.parse_cards(pc), C.parse_cards(bc))
        except RoadsAppError as e:
            raise StorageError(f"row {r}: {e}") from None
        if list(hand.player_cards) != pc or list(hand.banker_cards) != bc:
            raise StorageError(f"row {r}: card codes are not canonical ({pc} / {bc})")


def _check_agrees(given: pl.DataFrame, derived: pl.DataFrame) -> None:
    """Where a file gives both cards and other fields, they must agree; points with winner."""
    for name in ROUNDS_SCHEMA.names()[1:8]:
        g, d = given[name], derived[name]
        clash = g.is_not_null() & d.is_not_null() & (g.cast(pl.String) != d.cast(pl.String))
        if clash.any():
            i = int(clash.arg_max())  # type: ignore[arg-type]
            raise StorageError(f"row {i + 1}: {name} is {g[i]} but the cards/points say {d[i]}")
    pts = derived.filter(
        pl.col("player_points").is_not_null() & pl.col("banker_points").is_not_null()
    )
    bad = pts.with_columns(expect=winner_from_points()).filter(pl.col("winner") != pl.col("expect"))
    if bad.height:
        r = bad.row(0, named=True)
        raise StorageError(
            f"row {r['round']}: winner {r['winner']} disagrees with points "
            f"player {r['player_points']}, banker {r['banker_points']}"
        )


# --- import and export -----------------------------------------------------------------


def _cards_to_text(frame: pl.DataFrame) -> pl.DataFrame:
    """CSV has no lists: card lists become space-separated codes."""
    return frame.with_columns(pl.col(pl.List(pl.String)).list.join(" "))


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


def import_bytes(
    data: bytes, filename: str, name: str | None = None
) -> tuple[pl.DataFrame, ShoeMeta]:
    """Parse and check an uploaded shoe (CSV, JSON or Parquet); a fresh id is given."""
    label = Path(filename).name or "upload"
    if len(data) > MAX_IMPORT_BYTES:
        raise StorageError(
            f"{label}: {len(data) / 1e6:.1f} MB is over the {MAX_IMPORT_BYTES // 2**20} MB limit"
        )
    if not data:
        raise StorageError(f"{label}: the file is empty")
    fmt = Path(label).suffix.lower().lstrip(".")
    meta_in: dict[str, Any] = {}
    if fmt == "parquet":
        frame, md = _read_parquet(data, label)
        if "shoe" in frame.columns:
            raise StorageError(f"{label}: holds several shoes; import one shoe at a time")
        if md.get(META_KEY):
            meta_in = _meta_from(md[META_KEY], label, label).to_dict()
    elif fmt == "csv":
        frame = _parse_csv(data, label)
    elif fmt == "json":
        frame, meta_in = _parse_json(data, label)
    else:
        raise StorageError(f"{label}: unknown file type {fmt!r}: import .csv, .json or .parquet")
    decks = int(meta_in.get("decks") or 8)
    burn = meta_in.get("burn_card")
    try:
        rounds = validate_rounds(frame, label, decks=decks, burn_card=burn)
        keep = {
            k: meta_in[k]
            for k in ("decks", "seed", "rules", "notes", "burn_card", "cut", "created")
            if meta_in.get(k) is not None
        }
        meta = ShoeMeta(
            name=(name or meta_in.get("name") or Path(label).stem)[:100], source="imported", **keep
        )
    except StorageError:
        raise
    except RoadsAppError as e:
        raise StorageError(f"{label}: {e}") from None
    return rounds, meta


def _parse_csv(data: bytes, label: str) -> pl.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise StorageError(f"{label}: not a text CSV file (not UTF-8)") from None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise StorageError(f"{label}: the file has no rows")
    if all("," not in ln for ln in lines):  # the simplest form: one column of B/P/T
        body = lines[1:] if lines[0].lower() in ("winner", "result") else lines
        return pl.DataFrame({"winner": body})
    try:
        frame = pl.read_csv(io.BytesIO(data), infer_schema=False)
    except Exception as e:
        raise StorageError(f"{label}: not a readable CSV file ({_first_line(e)})") from None
    if "result" in frame.columns and "winner" not in frame.columns:
        frame = frame.rename({"result": "winner"})
    casts: list[pl.Expr] = []
    for col in frame.columns:
        if col in ("player_cards", "banker_cards"):
            casts.append(pl.col(col).str.split(" ").alias(col))
        elif col in ("player_pair", "banker_pair", "player_natural", "banker_natural"):
            casts.append(
                pl.col(col)
                .str.to_lowercase()
                .replace_strict(
                    {"true": True, "false": False, "1": True, "0": False},
                    default=None,
                    return_dtype=pl.Boolean,
                )
            )
            if (
                frame[col].is_not_null()
                & ~frame[col].str.to_lowercase().is_in(["true", "false", "1", "0"])
            ).any():
                raise StorageError(f"{label}: column {col!r} holds values other than true/false")
        elif col in ("round", "player_points", "banker_points"):
            bad = frame[col].is_not_null() & ~frame[col].str.strip_chars().str.contains(r"^-?\d+$")
            if bad.any():
                i = int(bad.arg_max())  # type: ignore[arg-type]
                raise StorageError(f"{label}: row {i + 1}: {col} {frame[col][i]!r} is not a number")
            casts.append(pl.col(col).str.strip_chars().cast(pl.Int64))
    return frame.with_columns(casts)


def _parse_json(data: bytes, label: str) -> tuple[pl.DataFrame, dict[str, Any]]:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise StorageError(f"{label}: not valid JSON ({_first_line(e)})") from None
    meta: dict[str, Any] = {}
    if isinstance(doc, dict):
        meta = doc.get("meta") or {}
        if not isinstance(meta, dict):
            raise StorageError(f"{label}: 'meta' is not an object")
        doc = doc.get("rounds")
    if isinstance(doc, str):
        return pl.DataFrame({"winner": [c for c in doc if not c.isspace()]}), meta
    if not isinstance(doc, list):
        raise StorageError(f"{label}: expected a list of rounds (or an object with 'rounds')")
    if all(isinstance(x, str) for x in doc):
        return pl.DataFrame({"winner": doc}, schema={"winner": pl.String}), meta
    if not all(isinstance(x, dict) for x in doc):
        raise StorageError(f'{label}: every round must be an object like {{"winner": "B"}}')
    keys = set().union(*(x.keys() for x in doc)) if doc else {"winner"}
    unknown = keys - set(ROUNDS_SCHEMA.names())
    if unknown:
        raise StorageError(f"{label}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        frame = pl.DataFrame(
            doc,
            schema={k: v for k, v in ROUNDS_SCHEMA.items() if k in keys} | {"winner": pl.String},
            strict=False,
        )
    except Exception as e:
        raise StorageError(f"{label}: rounds do not fit the schema ({_first_line(e)})") from None
    return frame, meta


# --- whole files: the CLI's simulate/show ---------------------------------------------


def write_frame(frame: pl.DataFrame, path: Path) -> Path:
    """Write a rounds frame (one or many shoes) as .parquet, .csv or .json, atomically."""
    return write_batches([frame], path)[0]


def check_out_path(path: Path) -> str:
    """The format an output file's name asks for (.parquet, .csv or .json)."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise StorageError(f"{Path(path).name}: output must end in .parquet, .csv or .json")
    return fmt


class _ParquetSink:
    """Row group after row group into one Parquet file (Arrow's writer, no GIL held)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer: Any = None  # pyarrow.parquet.ParquetWriter, made on the first batch

    def write(self, frame: pl.DataFrame) -> None:
        import pyarrow.parquet as pq

        table = frame.to_arrow()
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, table.schema)
        self.writer.write_table(table, row_group_size=max(frame.height, 1))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class _TextSink:
    """CSV (header once, cards as space-separated codes) or one JSON array of rows."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.fh = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.fmt = fmt
        self.first = True

    def write(self, frame: pl.DataFrame) -> None:
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


def write_batches(frames: Iterable[pl.DataFrame], path: Path) -> tuple[Path, int]:
    """Write rounds frames (one or many shoes each) one after another into one file.

    Memory stays that of two batches whatever the total: a batch is written (in a
    second thread, so the next one is built meanwhile) and dropped. Parquet gets a row
    group per batch; CSV and JSON are the bytes the frames joined would give (the
    CSV header once, one JSON array). Atomic as `atomic_write`: a failure leaves no
    file. Returns (path, rows).
    """
    fmt = check_out_path(path)
    rows = 0

    def write(tmp: Path) -> None:
        nonlocal rows
        sink: _ParquetSink | _TextSink = (
            _ParquetSink(tmp) if fmt == "parquet" else _TextSink(tmp, fmt)
        )
        pending: Future[None] | None = None
        try:
            with ThreadPoolExecutor(max_workers=1) as pool:
                for frame in frames:
                    if pending is not None:
                        pending.result()  # at most one batch waiting: memory stays flat
                    pending = pool.submit(sink.write, frame)
                    rows += frame.height
                if pending is not None:
                    pending.result()
                if rows == 0 and fmt == "parquet":
                    sink.write(MULTI_SHOE_SCHEMA.to_frame())
        finally:
            sink.close()

    return atomic_write_path(path, write), rows


def read_any(path: Path) -> pl.DataFrame:
    """Read a shoe file or a multi-shoe simulation file for display (checked)."""
    path = Path(path)
    if not path.exists():
        raise StorageError(f"{path}: no such file")
    if path.suffix.lower() == ".parquet":
        frame, md = _read_parquet(path, path.name)
        if "shoe" in frame.columns:
            missing = set(MULTI_SHOE_SCHEMA.names()) - set(frame.columns)
            if missing:
                raise StorageError(f"{path.name}: missing column(s) {', '.join(sorted(missing))}")
            return frame.select(MULTI_SHOE_SCHEMA.names())
        meta = _meta_from(md.get(META_KEY), path.name, path.stem)
        return validate_rounds(frame, path.name, decks=meta.decks)
    if path.stat().st_size > 50 * MAX_IMPORT_BYTES:
        raise StorageError(f"{path.name}: too large to show")
    return import_bytes(path.read_bytes(), path.name)[0]


def summary(frame: pl.DataFrame | pl.LazyFrame) -> str:
    """A few lines a person can read: shoes, rounds, B/P/T shares, hands per shoe.

    A lazy frame is summed by Polars' streaming engine, never held whole.
    """
    lf = frame.lazy()
    multi = "shoe" in lf.collect_schema().names()
    row = (
        lf.select(
            n=pl.len(),
            shoes=pl.col("shoe").n_unique() if multi else pl.lit(1),
            with_cards=pl.col("player_cards").is_not_null().sum(),
            **{w: (pl.col("winner").cast(pl.String) == w).sum() for w in WINNERS},
        )
        .collect(engine="streaming")
        .row(0, named=True)
    )
    n, shoes = row["n"], row["shoes"]
    parts = [f"{w} {row[w]} ({row[w] / n:.2%})" if n else f"{w} 0" for w in WINNERS]
    return (
        f"{shoes} shoe(s), {n} rounds ({n / max(shoes, 1):.1f} per shoe); "
        + ", ".join(parts)
        + f"; {row['with_cards']} rounds with cards"
    )


def show_summary(path: Path) -> str:
    """`summary` of a file; a multi-shoe Parquet or CSV file (any size) is scanned, not
    loaded (a multi-shoe JSON file is still refused as one shoe: JSON has no scanner)."""
    path = Path(path)
    if path.suffix.lower() == ".parquet" and path.exists():
        try:
            names = pl.read_parquet_schema(path)
        except Exception:
            names = {}  # damaged: read_any says how, in one line
        if "shoe" in names:
            missing = set(MULTI_SHOE_SCHEMA.names()) - set(names)
            if missing:
                raise StorageError(f"{path.name}: missing column(s) {', '.join(sorted(missing))}")
            return summary(pl.scan_parquet(path))
    if path.suffix.lower() == ".csv" and path.exists():
        with open(path, "rb") as fh:
            header = fh.readline().decode("utf-8-sig", errors="replace").strip().split(",")
        if "shoe" in header:  # a `simulate` CSV: scanned as text, never loaded whole
            return summary(pl.scan_csv(path, infer_schema=False))
    return summary(read_any(path))


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
