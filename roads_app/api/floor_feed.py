"""What the API does at the floor's tables, without HTTP: every call one store transaction.

A round sent to a table (``POST /tables/{code}/rounds``) goes to its current shoe, or
starts the next one when the table is shuffling (`roads_app.store.floor.Floor.deal_in`),
in the same transaction as the round and its ``Idempotency-Key``'s answer, so two
feeders through two replicas are applied one after the other and a retry never deals a
hand twice. The rounds are entered by the same operations as a shoe's
(`roads_app.api.service.entered`), on the rounds read in that transaction (or those this
process last wrote, while the shoe's version says they are current).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from roads_app.api.models import RoundIn
from roads_app.api.service import Feed, NotFound, Refused, Reply, fingerprint, tags
from roads_app.errors import FloorError
from roads_app.game.floor import MOVE_TO, Move, TableState, check_table_code
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeCounts
from roads_app.roads.grids import big_road, big_road_cells
from roads_app.roads.names import Road
from roads_app.store import db
from roads_app.store.floor import FloorTable, codes_of

LAST_RESULTS = 12
"""Results a lobby summary carries (the newest last)."""

_NOT_FOUND = frozenset({"msg_table_unknown"})
_CONFLICT = frozenset(
    {
        "msg_table_already_open",
        "msg_table_opens_with_hand",
        "msg_table_already_closed",
        "msg_table_already_shuffling",
        "msg_table_closed",
    }
)


def refusal(e: FloorError) -> Exception:
    """A floor refusal as HTTP: an unknown table 404, a move its state does not allow
    (a round to a closed table, a shuffle sent twice) 409, anything else 422."""
    key = getattr(e.message, "key", None)
    if key in _NOT_FOUND:
        return NotFound(str(e))
    if key in _CONFLICT:
        return Refused(409, str(e))
    return e


def counts(rounds: pl.DataFrame) -> dict[str, int]:
    """A shoe's counts as a tile shows them: rounds, each winner, pairs (a pair not
    recorded counts as none). Plain sums, not `roads.stats.shoe_stats`: a lobby reads
    one summary per change of every table, and the full statistics cost ten times this.
    """
    wins = ShoeCounts.of(rounds)
    return {
        "rounds": rounds.height,
        **{w.word: wins[w] for w in Winner},
        "banker_pairs": int(rounds["banker_pair"].fill_null(False).sum()),
        "player_pairs": int(rounds["player_pair"].fill_null(False).sum()),
    }


@dataclass(frozen=True)
class Tile:
    """A table's lobby summary (`Tables.summary`) and what its next rounds are added to
    (`Tables.tile`): the shoe it was read from, at which version, its results and their
    round numbers."""

    summary: dict[str, Any]
    shoe: str | None
    version: int
    winners: list[str]
    numbers: list[int]


def _summary(
    table: FloorTable, tally: dict[str, int] | None, winners: list[str], cells: list[Any]
) -> dict[str, Any]:
    """A lobby tile's summary of ``table`` from its shoe's counts, results (letters) and
    big road cells: one shape, whether read whole or added to."""
    out = table.to_dict()
    if not winners:
        return {**out, "counts": None, "last": [], "good_roads": [], Road.BIG_ROAD.value: []}
    last = codes_of(table, 1)
    return {
        **out,
        "counts": tally,
        "last": winners[-LAST_RESULTS:],
        "last_round_code": last[0] if last else None,
        "good_roads": tags([{"winner": w} for w in winners]),
        Road.BIG_ROAD.value: cells,
    }


class Tables:
    """The API's operations on floor tables, over the `Feed`'s store."""

    def __init__(self, feed: Feed) -> None:
        self.feed = feed
        self.floor = feed.store.floor
        self._shoes: dict[str, str] = {}  # table code -> the shoe it last dealt here

    # --- reads

    def list(self) -> list[dict[str, Any]]:
        return [t.to_dict() for t in self.floor.list()]

    def get(self, code: str) -> dict[str, Any]:
        """A table and its current shoe's summary (`summary`)."""
        return self.summary(code)

    def summary(self, code: str) -> dict[str, Any]:
        """What a lobby tile shows of a table: its row, its current (or last) shoe's
        counts, last results, good roads and big road, read in one snapshot."""
        try:
            with self.feed.store.read() as c:
                table = self.floor.get_in(c, check_table_code(code))
                saved = self.feed.store.shoes.load_in(c, table.shoe) if table.shoe else None
        except FloorError as e:
            raise refusal(e) from None
        rounds = saved.rounds if saved is not None else None
        if rounds is None or not rounds.height:
            return _summary(table, None, [], [])
        big = big_road(rounds).select("col", "row", "round", "winner")
        cells = big.with_columns(big["winner"].cast(str)).rows()
        return _summary(table, counts(rounds), rounds["winner"].cast(str).to_list(), cells)

    def tile(self, code: str, kept: Tile | None = None) -> Tile:
        """`summary` kept for its next change: ``kept`` (this table's tile read before)
        with the rounds its shoe was dealt since added, when that is all that happened
        to the shoe (`Rounds.appended_in`); else read whole (another shoe, an undo, an
        edit, a gap in the shoe's history, no tile yet).

        Why: a lobby of a hundred tables dealt every 2 s rereads 50 summaries a second;
        read whole, each is the shoe's frame and its big road through the frames (6-12
        ms); added to, a round's rows, its counts and the big road's kernel alone."""
        store = self.feed.store
        try:
            with store.read() as c:
                table = self.floor.get_in(c, check_table_code(code))
                shoe = table.shoe
                added = None
                if shoe is not None and kept is not None and kept.shoe == shoe:
                    added = store.rounds.appended_in(c, shoe, kept.version, len(kept.winners))
                saved = store.shoes.load_in(c, shoe) if shoe and added is None else None
        except FloorError as e:
            raise refusal(e) from None
        if added is not None and kept is not None:
            version, new = added
            winners = kept.winners + new["winner"].cast(str).to_list()
            numbers = kept.numbers + new["round"].to_list()
            tally = counts(new)
            if kept.summary["counts"] is not None:
                tally = {k: v + kept.summary["counts"][k] for k, v in tally.items()}
            cells = big_road_cells(winners, numbers)
            return Tile(_summary(table, tally, winners, cells), shoe, version, winners, numbers)
        if saved is None:
            return Tile(_summary(table, None, [], []), shoe, 0, [], [])
        rounds = saved.rounds
        winners, numbers = rounds["winner"].cast(str).to_list(), rounds["round"].to_list()
        tally = counts(rounds) if winners else None
        cells = big_road_cells(winners, numbers)
        return Tile(_summary(table, tally, winners, cells), shoe, saved.version, winners, numbers)

    # --- writes

    def append(self, code: str, body: RoundIn, key: str | None, who: str | None = None) -> Reply:
        """Deal one round at a table (`Floor.deal_in`), entered as a shoe's round is."""
        code = self._code(code)
        store = self.feed.store
        made = self.feed.made_ahead(self._shoes.get(code), body)

        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            deal = self.floor.deal_in(c, code)
            saved = self.feed.saved_in(c, deal.shoe, deal.version)
            new = self.feed.entered_in(saved, body, made)
            version = store.rounds.append_in(c, deal.shoe, new.tail(1), None)
            self.feed.keep(db.Saved(new, saved.meta, version))
            self._shoes[code] = deal.shoe
            row = new.row(new.height - 1, named=True)  # a shoe's columns, as /shoes answers
            return 201, {
                "table": code,
                "shoe": deal.shoe,
                "shoe_number": deal.number,
                "started": deal.started,
                "version": version,
                "round": row,
                "round_code": deal.round_code(new.height),
            }

        fp = fingerprint("table-append", code, body.model_dump(exclude_none=True))
        return self._once(code, key, fp, do, who, dealing=True)

    def move(self, code: str, move: Move, key: str | None, who: str | None = None) -> Reply:
        """Open, close or shuffle a table, as its state allows."""
        code = self._code(code)

        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            return 200, self.floor.move_in(c, code, move).to_dict()

        return self._once(code, key, fingerprint("table-move", code, move.value), do, who)

    def set_state(self, code: str, state: str, key: str | None, who: str | None = None) -> Reply:
        """Put a table in a state by its name (`TableState`): the move that leads there."""
        return self.move(code, MOVE_TO[TableState.parse(state)], key, who)

    # --- helpers

    @staticmethod
    def _code(code: str) -> str:
        return check_table_code(code)

    def _once(
        self, code: str, key: str | None, fp: str, do: Any, who: str | None, dealing: bool = False
    ) -> Reply:
        """The change once per key, the writer's token asked again inside it (``who``:
        a revoke holds from its commit, `Feed._once`); ``dealing``: a hand (its first
        read is `Floor.deal_in`'s)."""
        last = self._shoes.get(code)
        ahead = self.floor.ahead(code, dealing=dealing)
        if last is not None:
            ahead += self.feed.store.shoes.ahead(last, version=False)  # the row has it
        try:
            return self.feed.once(key, fp, None, do, ahead=ahead, who=who)
        except FloorError as e:
            raise refusal(e) from None
