"""The library of saved shoes as a person uses it: import, export, simulate, the lobby.

Thin steps over `roads_app.store.files` (parsing) and `roads_app.store.db` (the library
database) that the CLI (`roads-app import/export`) and the dashboard's library page
share, so both refuse the same files with the same one-line `StorageError` and nothing
in the library changes when an import is refused.

The board PNG is the dashboard's own board figure rendered by Plotly's renderer
(kaleido, driving the system Chromium), not a second drawing of it.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from roads_app.errors import RoadsAppError, StorageError
from roads_app.game.rounds import ShoeMeta
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.store import db
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
        return board_png(rounds, title=meta.name or meta.id), export_name(meta, fmt)
    return storage.export_bytes(rounds, meta, fmt), export_name(meta, fmt)


def board_png(rounds: pl.DataFrame, title: str = "") -> bytes:
    """The scoreboard as a PNG: the dashboard's own board figure, rendered by kaleido.

    The shoe's name, when given, is written above the board.
    """
    try:
        import plotly.io as pio
        from PIL import Image, ImageDraw

        from roads_app.render.board import board_figure
    except ImportError as e:  # pragma: no cover - depends on the install
        raise StorageError(f"PNG export needs {e.name}: pip install kaleido pillow") from None
    try:
        png = pio.to_image(board_figure(rounds), format="png")
    except Exception as e:  # kaleido or Chromium missing / failing
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise StorageError(f"cannot draw the board as PNG: {first}") from None
    if not title:
        return png
    with Image.open(io.BytesIO(png)) as im:
        board = im.convert("RGB")
    pad, head = 10, 26
    sheet = Image.new("RGB", (board.width + 2 * pad, board.height + head + 2 * pad), "white")
    ImageDraw.Draw(sheet).text((pad, pad), title[:80], fill="black")
    sheet.paste(board, (pad, pad + head))
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue()


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


def counts(rounds: pl.DataFrame) -> dict[str, int]:
    """Banker / Player / Tie wins and pairs so far: the line under each lobby board.

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> counts(rounds_from_winners("BBPT"))
    {'B': 2, 'P': 1, 'T': 1, 'player_pair': 0, 'banker_pair': 0, 'rounds': 4}
    """
    row = rounds.select(
        B=(pl.col("winner") == "B").sum(),
        P=(pl.col("winner") == "P").sum(),
        T=(pl.col("winner") == "T").sum(),
        player_pair=pl.col("player_pair").fill_null(False).sum(),
        banker_pair=pl.col("banker_pair").fill_null(False).sum(),
        rounds=pl.len(),
    ).row(0, named=True)
    return {k: int(v or 0) for k, v in row.items()}


def safe_load(shoe_id: str, data_dir: Path) -> tuple[pl.DataFrame, ShoeMeta] | str:
    """Load a shoe or say in one line why it cannot be (for pages that show, not raise)."""
    try:
        saved = db.open_store(data_dir).load(storage.check_shoe_id(shoe_id))  # never a path
        return saved.rounds, saved.meta
    except RoadsAppError as e:
        return str(e)
