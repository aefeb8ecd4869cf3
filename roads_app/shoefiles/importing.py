"""Reading shoe files from outside (CSV, JSON, Parquet): exact, bounded, or refused.

Every file goes through the same steps, so the CLI, the dashboard's upload and the
saved-shoe loader refuse the same things with the same one-line `StorageError`:

1. bounded bytes: a regular file of at most the limit (`roads_app.safe_io`), and for
   Parquet the footer's row count and uncompressed size checked *before* decoding;
2. the shape: JSON nesting depth capped before parsing; every round validated by one
   schema (`schemas.RoundIn`, strict for JSON/Parquet, lax text-to-value for CSV) and
   the metadata by `ShoeMeta`'s; unknown fields and columns refused;
3. the game: no more rounds than the shoe's decks can hold (a round uses at least
   4 cards), each round rebuilt by the entry form's own functions (`round_by_cards`,
   `round_by_points`, `round_by_winner`) and every value the file gives must equal the
   rebuilt one, then the shoe's card composition.

Nothing here writes; the caller saves what comes back.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from roads_app import safe_io
from roads_app.errors import RoadsAppError, StorageError, quote, shown_path
from roads_app.game.rounds import (
    CARDS_PER_ROUND_MIN,
    FLAGS,
    MOST_ROUNDS,
    NAME_MAX,
    ROUNDS_SCHEMA,
    ShoeMeta,
    check_name,
    check_shoe,
    max_rounds,
    round_by_cards,
    round_by_points,
    round_by_winner,
)
from roads_app.messages import Message
from roads_app.shoefiles import schemas

META_KEY = "roads_app.meta"
FORMAT_KEY = "roads_app.format"

MAX_IMPORT_BYTES = 2 * 1024 * 1024
"""Largest file `import` reads (a full 8-deck shoe with cards is under 20 KB as CSV)."""
MAX_IMPORT_UNPACKED = 16 * 1024 * 1024
"""Largest uncompressed size a Parquet footer may declare for an imported shoe."""
MAX_COLUMNS = 16
SHOE_COLUMN = "shoe"
"""The column a multi-shoe file (``roads-app simulate``) numbers its shoes by."""


# --- entry points --------------------------------------------------------------------


def import_path(path: str | Path, name: str | None = None) -> tuple[pl.DataFrame, ShoeMeta]:
    """A shoe file named by a person: read bounded (regular files only), then `import_bytes`."""
    path = Path(path)
    data = safe_io.read_bounded(path, MAX_IMPORT_BYTES)
    return import_bytes(data, path.name, name=name)


def import_bytes(
    data: bytes, filename: str, name: str | None = None
) -> tuple[pl.DataFrame, ShoeMeta]:
    """Parse and check an uploaded shoe (CSV, JSON or Parquet); a fresh id is given."""
    label = _label(filename)
    if len(data) > MAX_IMPORT_BYTES:
        raise safe_io.over_limit(label, len(data), MAX_IMPORT_BYTES)
    if not data:
        raise StorageError(Message("msg_file_empty", label=label))
    fmt = Path(str(filename)).suffix.lower().lstrip(".")
    meta_in: ShoeMeta | None = None
    if fmt == "parquet":
        frame, kv = read_parquet_checked(data, label, MOST_ROUNDS, MAX_IMPORT_UNPACKED)
        if SHOE_COLUMN in frame.columns:
            raise StorageError(Message("msg_file_several_shoes", label=label))
        if META_KEY in kv:
            meta_in = meta_from_text(kv[META_KEY], label)
        rows, lax, unit = _frame_rows(frame, label), False, "row"
    elif fmt == "csv":
        rows, lax, unit = _csv_rows(data, label), True, "row"
    elif fmt == "json":
        rows, meta_dict = _json_rows(data, label)
        if meta_dict is not None:
            meta_in = _meta(meta_dict, label)
        lax, unit = False, "round"
    else:
        raise StorageError(Message("msg_file_type", label=label, type=quote(fmt)))
    decks = meta_in.decks if meta_in else 8
    burn = meta_in.burn_card if meta_in else None
    rounds = rounds_from_rows(rows, label, decks=decks, burn_card=burn, lax=lax, unit=unit)
    return rounds, shoe_meta(meta_in, filename, name)


def shoe_meta(meta_in: ShoeMeta | None, filename: str, name: str | None) -> ShoeMeta:
    """An imported shoe's metadata: the file's (checked), a fresh id, source "imported"."""
    try:
        shoe_name = check_name(name) if name is not None else None
    except RoadsAppError as e:
        raise StorageError(Message("msg_at", where="--name", what=e.message)) from None
    kept = meta_in.to_dict() if meta_in else {}
    for k in ("id", "source", "name"):
        kept.pop(k, None)
    if meta_in is None:
        kept.pop("created", None)
    return ShoeMeta(
        name=shoe_name or (meta_in.name if meta_in and meta_in.name else _name_from(filename)),
        source="imported",
        **kept,
    )


def read_any(path: str | Path) -> pl.DataFrame:
    """The rounds of a one-shoe file for display, read and checked as `import_path` does
    (`files.show_summary` streams a file of many shoes instead)."""
    return import_path(path)[0]


def validate_rounds(
    frame: pl.DataFrame, label: str, *, decks: int = 8, burn_card: str | None = None
) -> pl.DataFrame:
    """A decoded frame (a saved shoe, a Parquet upload) through the same checks as an import."""
    rows = _frame_rows(frame, label)
    return rounds_from_rows(rows, label, decks=decks, burn_card=burn_card, lax=False, unit="row")


def meta_from_text(text: str, label: str) -> ShoeMeta:
    """Shoe metadata stored as JSON text (Parquet key-value metadata), checked by its schema."""
    what = Message("msg_file_meta", label=label)
    safe_io.check_depth(text, what)
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except StorageError as e:
        raise StorageError(Message("msg_at", where=what, what=e.message)) from None
    except (ValueError, RecursionError) as e:
        raise StorageError(
            Message("msg_meta_not_json", label=label, error=_first_line(e))
        ) from None
    return _meta(doc, label)


# --- rounds --------------------------------------------------------------------------


def rounds_from_rows(
    rows: list[dict[str, Any]],
    label: str,
    *,
    decks: int,
    burn_card: str | None,
    lax: bool,
    unit: str,
) -> pl.DataFrame:
    """Rows of a file → the rounds frame, or the first thing wrong, named by row and field."""
    most = max_rounds(decks)
    if len(rows) > most:
        raise StorageError(
            Message(
                "msg_file_shoe_rounds",
                label=label,
                count=len(rows),
                decks=decks,
                most=most,
                cards=CARDS_PER_ROUND_MIN,
            )
        )
    built: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        where = _place(label, unit, i + 1)
        r = schemas.round_in(row, where, lax=lax)
        if r.round is not None and r.round != i + 1:
            raise StorageError(
                Message("msg_round_number_is", where=where, given=r.round, round=i + 1)
            )
        try:
            built.append(_entry_round(r))
        except RoadsAppError as e:
            raise StorageError(Message("msg_at", where=where, what=e.message)) from None
        built[-1]["round"] = i + 1
    frame = (
        pl.DataFrame(built, schema=ROUNDS_SCHEMA, orient="row")
        if built
        else (ROUNDS_SCHEMA.to_frame())
    )
    try:  # the one rule of what a shoe holds, as for a round entered by hand or the API
        check_shoe(frame, decks, also_seen=[burn_card] if burn_card else [])
    except RoadsAppError as e:
        raise StorageError(Message("msg_at", where=label, what=e.message)) from None
    return frame


def _entry_round(r: schemas.RoundIn) -> dict[str, Any]:
    """Rebuild the round as the entry form would, and refuse any value it contradicts."""
    flags = {k: getattr(r, k) for k in FLAGS}
    if r.player_cards is not None or r.banker_cards is not None:
        if r.player_cards is None or r.banker_cards is None:
            raise StorageError(Message("msg_cards_one_hand"))
        out = round_by_cards(r.player_cards, r.banker_cards)
        basis = Message("msg_basis_cards")
    elif r.player_points is not None or r.banker_points is not None:
        if r.player_points is None or r.banker_points is None:
            raise StorageError(Message("msg_points_one_hand"))
        out = round_by_points(r.player_points, r.banker_points, winner=r.winner, **flags)
        basis = Message("msg_basis_points")
    else:
        return round_by_winner(r.winner, **flags)
    given = r.model_dump(exclude={"round", schemas.ROUND_CODE})
    given["winner"] = round_by_winner(r.winner)["winner"]
    for key, value in given.items():
        if value is not None and value != out[key]:
            if key.endswith("_cards"):
                raise StorageError(
                    Message(
                        "msg_cards_not_canonical",
                        field=key,
                        given=" ".join(value),
                        codes=" ".join(out[key]),
                    )
                )
            raise StorageError(
                Message("msg_value_contradicts", field=key, value=value, basis=basis, says=out[key])
            )
    return out


def plain_round(values: dict[str, Any]) -> str | None:
    """The winner's letter of a round without cards as a one-shoe file gives it (the
    values present; None for absent), or None when `rounds_from_rows` refuses it: the
    row-by-row check itself, asked once per distinct round of a file of many shoes."""
    try:
        r = schemas.round_in({k: v for k, v in values.items() if v is not None}, "")
        return str(_entry_round(r)["winner"])
    except RoadsAppError:
        return None


def check_columns(columns: list[str], label: str, *, shoes: bool = False) -> None:
    """A winner column and nothing unknown (``shoe`` too where a file of shoes is read)."""
    if "winner" not in columns:
        raise StorageError(Message("msg_file_no_winner", label=label, column="'winner'"))
    known = (*schemas.FIELDS, SHOE_COLUMN) if shoes else schemas.FIELDS
    unknown = [c for c in columns if c not in known]
    if unknown == [SHOE_COLUMN]:
        raise StorageError(Message("msg_file_shoe_column", label=label, column="'shoe'"))
    if unknown:
        raise StorageError(
            Message(
                "msg_unknown_columns",
                label=label,
                columns=", ".join(quote(c, 30) for c in unknown[:5]),
                known=", ".join(known),
            )
        )


def _frame_rows(frame: pl.DataFrame, label: str) -> list[dict[str, Any]]:
    check_columns(frame.columns, label)
    if frame.height > MOST_ROUNDS:
        raise StorageError(
            Message("msg_rounds_one_shoe", label=label, count=f"{frame.height:,}", most=MOST_ROUNDS)
        )
    if isinstance(frame.schema["winner"], pl.Enum | pl.Categorical):
        frame = frame.with_columns(pl.col("winner").cast(pl.String))
    return [{k: v for k, v in row.items() if v is not None} for row in frame.to_dicts()]


# --- CSV -----------------------------------------------------------------------------


def _csv_rows(data: bytes, label: str) -> list[dict[str, Any]]:
    """The rows of a one-shoe CSV file."""
    return _csv_table(data, label, MOST_ROUNDS)[1]


def _csv_table(data: bytes, label: str, max_rows: int) -> tuple[list[str], list[dict[str, Any]]]:
    """A CSV file's header and rows (empty cells left out); a ``shoe`` column is kept
    when ``max_rows`` allows more than one shoe."""
    shoes = max_rows > MOST_ROUNDS
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise StorageError(Message("msg_csv_not_utf8", label=label, byte=e.start)) from None
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise StorageError(Message("msg_file_no_rows", label=label))
    if len(lines) > max_rows + 1:
        count = f"{len(lines) - 1:,}"
        if shoes:
            why = _shoes_of_most(max_rows)
            over = Message(
                "msg_rows_over_why", label=label, count=count, most=f"{max_rows:,}", why=why
            )
        else:
            over = Message("msg_rows_over", label=label, count=count, most=MOST_ROUNDS)
        raise StorageError(over)
    if all("," not in ln for ln in lines):  # the simplest form: one column of B/P/T
        first = lines[0].lower()
        if first in (*schemas.FIELDS, SHOE_COLUMN) and first != "winner":
            check_columns([first], label)  # a header, but of another column
        body = lines[1:] if first in ("winner", "result") else lines
        return ["winner"], [{"winner": w} for w in body]
    try:
        table = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as e:
        raise StorageError(
            Message("msg_csv_unreadable", label=label, error=_first_line(e))
        ) from None
    table = [row for row in table if any(cell.strip() for cell in row)]
    if not table:
        raise StorageError(Message("msg_file_no_rows", label=label))
    header = [h.strip() for h in table[0]]
    if "result" in header and "winner" not in header:
        header[header.index("result")] = "winner"
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise StorageError(Message("msg_column_twice", label=label, column=quote(twice[0], 30)))
    check_columns(header, label, shoes=shoes)
    rows: list[dict[str, Any]] = []
    for i, cells in enumerate(table[1:]):
        if len(cells) != len(header):
            raise StorageError(
                Message(
                    "msg_row_cells", label=label, row=i + 1, cells=len(cells), header=len(header)
                )
            )
        row = {k: v.strip() for k, v in zip(header, cells, strict=True) if v.strip() != ""}
        for side in ("player_cards", "banker_cards"):
            if side in row:
                row[side] = row[side].split(" ")  # as export writes them: one space apart
        rows.append(row)
    return header, rows


# --- JSON ----------------------------------------------------------------------------


def _no_constant(name: str) -> None:
    raise StorageError(Message("msg_json_constant", name=name))


def _json_rows(
    data: bytes, label: str, max_rows: int | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """A JSON shoe's rounds as rows, and its ``meta`` object; at most ``max_rows``
    (one shoe's worth unless a file of several shoes is read)."""
    most = MOST_ROUNDS if max_rows is None else max_rows
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise StorageError(Message("msg_json_not_utf8", label=label, byte=e.start)) from None
    safe_io.check_depth(text, label)
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except StorageError as e:
        raise StorageError(Message("msg_at", where=label, what=e.message)) from None
    except (ValueError, RecursionError) as e:
        raise StorageError(Message("msg_json_invalid", label=label, error=_first_line(e))) from None
    doc = schemas.document(raw, label)
    if not isinstance(doc.rounds, str | list):
        raise StorageError(
            Message(
                "msg_json_rounds_type",
                label=label,
                field="rounds",
                type=type(doc.rounds).__name__,
                example='"BPPT"',
            )
        )
    if isinstance(doc.rounds, str):
        return [{"winner": ch} for ch in doc.rounds if not ch.isspace()], doc.meta
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(doc.rounds):
        if isinstance(item, str):
            rows.append({"winner": item})
        elif isinstance(item, dict):
            rows.append(item)
        else:
            raise StorageError(
                Message(
                    "msg_json_round_type",
                    label=label,
                    round=i + 1,
                    type=type(item).__name__,
                    example='{"winner": "B"}',
                )
            )
        if len(rows) > most:
            if most > MOST_ROUNDS:
                raise StorageError(
                    Message(
                        "msg_json_file_rounds",
                        label=label,
                        most=f"{most:,}",
                        why=_shoes_of_most(most),
                    )
                )
            raise StorageError(Message("msg_json_shoe_rounds", label=label, most=most))
    return rows, doc.meta


# --- files of many shoes (what `simulate` writes) ---------------------------------------


@dataclass(frozen=True)
class ShoeParts:
    """A file of several shoes taken apart in one pass: each shoe's rows by shoe number,
    in file order. Each shoe is then checked like a file of its own (`shoe`)."""

    filename: str
    parts: dict[int, list[dict[str, Any]] | pl.DataFrame]
    meta: ShoeMeta | None
    lax: bool
    unit: str

    @property
    def numbers(self) -> list[int]:
        return list(self.parts)

    def shoe(self, k: int, name: str | None = None) -> tuple[pl.DataFrame, ShoeMeta]:
        """Shoe ``k`` checked as `import_bytes` checks a file; errors say which shoe."""
        where = Message("msg_file_shoe", label=_label(self.filename), shoe=k)
        part = self.parts[k]
        rows = _frame_rows(part, where) if isinstance(part, pl.DataFrame) else part
        decks = self.meta.decks if self.meta else 8
        burn = self.meta.burn_card if self.meta else None
        rounds = rounds_from_rows(
            rows, where, decks=decks, burn_card=burn, lax=self.lax, unit=self.unit
        )
        return rounds, shoe_meta(self.meta, self.filename, name)


# --- names and metadata --------------------------------------------------------------


def _meta(doc: object, label: str) -> ShoeMeta:
    try:
        return ShoeMeta.from_dict(doc)
    except RoadsAppError as e:
        raise StorageError(Message("msg_at", where=label, what=e.message)) from None


def _place(label: str, unit: str, number: int) -> Message:
    """Where in a file: ``label: row 3`` (a table's row) or ``label: round 3`` (JSON)."""
    if unit == "row":
        return Message("msg_file_row", label=label, row=number)
    return Message("msg_file_round", label=label, round=number)


def _shoes_of_most(rows: int) -> Message:
    """A limit of ``rows`` rows said as whole shoes: "1,000 shoes of at most 208 rounds"."""
    return Message("msg_shoes_of_most", shoes=f"{rows // MOST_ROUNDS:,}", most=MOST_ROUNDS)


def _label(filename: str) -> str:
    """The file's own name as messages show it (`shown_path`: escaped, one short line)."""
    return shown_path(Path(str(filename)).name or "upload")


def _name_from(filename: str) -> str:
    """A shoe name from a file name: the stem, with what the name rule refuses dropped."""
    stem = (
        "".join(
            ch
            for ch in Path(str(filename)).stem
            if unicodedata.category(ch) not in ("Cc", "Cs", "Zl", "Zp")
        )
        .strip()[:NAME_MAX]
        .strip()
    )
    return stem or "imported shoe"


# --- Parquet -------------------------------------------------------------------------


def parquet_footer(
    source: bytes | Path, label: str, max_rows: int, max_unpacked: int, why: str = ""
) -> Any:
    """A Parquet file's footer (pyarrow's FileMetaData), refused unless its row count,
    column count and declared uncompressed size are within the limits: read before any
    page is decoded, so a 100 KB file that unpacks to gigabytes costs nothing."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        md = pq.read_metadata(pa.BufferReader(source) if isinstance(source, bytes) else source)
    except Exception as e:  # pyarrow raises several types for a damaged footer
        raise StorageError(
            Message("msg_parquet_footer", label=label, error=_first_line(e))
        ) from None
    if md.num_rows > max_rows:
        count, most = f"{md.num_rows:,}", f"{max_rows:,}"
        raise StorageError(
            Message("msg_rows_over_why", label=label, count=count, most=most, why=why)
            if why
            else Message("msg_rows_over", label=label, count=count, most=most)
        )
    if md.num_columns > MAX_COLUMNS:
        raise StorageError(Message("msg_parquet_columns", label=label, count=md.num_columns))
    unpacked = 0
    for g in range(md.num_row_groups):
        group = md.row_group(g)
        by_columns = sum(group.column(c).total_uncompressed_size for c in range(group.num_columns))
        unpacked += max(group.total_byte_size, by_columns)
    if unpacked > max_unpacked:
        raise StorageError(
            Message(
                "msg_parquet_unpacks",
                label=label,
                size=f"{unpacked / 2**20:.0f}",
                most=f"{max_unpacked / 2**20:.0f}",
            )
        )
    return md


def read_parquet_checked(
    data: bytes, label: str, max_rows: int, max_unpacked: int
) -> tuple[pl.DataFrame, dict[str, str]]:
    """Decode a Parquet file only after its footer says it is small enough."""
    md = parquet_footer(data, label, max_rows, max_unpacked)
    kv = {
        k.decode("utf-8", errors="replace"): v.decode("utf-8", errors="replace")
        for k, v in (md.metadata or {}).items()
    }
    try:
        frame = pl.read_parquet(io.BytesIO(data))
    except Exception as e:  # polars raises several types for damaged pages
        raise StorageError(
            Message("msg_parquet_unreadable", label=label, error=_first_line(e))
        ) from None
    if frame.height != md.num_rows:
        raise StorageError(
            Message("msg_parquet_rows_differ", label=label, footer=md.num_rows, rows=frame.height)
        )
    return frame, kv


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
