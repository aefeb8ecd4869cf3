"""What a new database takes in when it is made: the old file store's shoes, or samples.

The old store kept a shoe as ``<id>.parquet`` (and its bets as ``<id>.bets.parquet``) in
the data folder. A new database imports them, in the one transaction that creates it,
leaving the files as they are; a brand-new dashboard with none gets the sample shoes.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from roads_app.bets.ledger import HISTORY_KINDS
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.shoefiles import files as shoe_files
from roads_app.store.bets import Bets
from roads_app.store.connection import Connection
from roads_app.store.shoes import Shoes

log = logging.getLogger(__name__)


def import_old_files(c: Connection, shoes: Shoes, bets: Bets) -> int:
    """The old file store's shoes and bets, copied in (files untouched); how many.

    Runs inside the transaction that creates the database (``c``), so a new database
    holds all of them or none.
    """
    database = shoes.db
    found = []
    for path in sorted(database.data_dir.glob("*.parquet")):
        if path.name.startswith(".") or path.name.count(".") > 1:
            continue  # temporary files and side files such as <id>.bets.parquet
        try:
            loaded = shoe_files.read_shoe_file(path)
        except RoadsAppError as e:
            log.warning("not imported into %s: %s", database.path.name, e)
            continue
        if loaded is None:
            continue  # a multi-shoe simulation file: stays a file
        found.append((path, *loaded))
    # The file named after its id is the shoe; a copy of it under another name (a
    # backup a person made) holds the same id inside and comes in as a shoe of its own.
    found.sort(key=lambda t: (t[0].stem != t[2].id, t[0].name))
    seen: set[str] = set()
    for path, rounds, meta in found:
        bets_from = path
        if meta.id in seen:
            copy = ShoeMeta()
            meta = ShoeMeta.from_dict(
                {**meta.to_dict(), "id": copy.id, "name": f"{meta.name} ({path.name})"[:100]}
            )
            log.warning("%s holds an id already imported: imported as %s", path.name, meta.id)
        seen.add(meta.id)
        when = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()
        shoes.insert(c, meta, rounds, "imported", f"from {path.name}", updated=when)
        for kind in HISTORY_KINDS:
            side = bets_from.with_name(f"{bets_from.stem}.{kind}.parquet")
            if side.exists():
                try:
                    old_bets = shoe_files.read_bets_file(side)
                except RoadsAppError as e:
                    log.warning("bets not imported: %s", e)
                    continue
                bets.put_in(c, meta.id, kind, old_bets)
    if seen:
        log.warning(
            "imported %d saved shoe(s) from the *.parquet files of %s into %s "
            "(the files were left as they are)",
            len(seen),
            database.data_dir,
            database.path.name,
        )
    return len(seen)


def insert_samples(c: Connection, shoes: Shoes) -> None:
    """The sample shoes, inside the caller's write transaction."""
    from roads_app.shoefiles.samples import sample_shoes  # dealing them is needed only here

    for rounds, meta in sample_shoes():
        shoes.insert(c, meta, rounds, "imported", "sample shoe")  # type: ignore[arg-type]
