"""The floor's tables in the library: added, edited, listed, opened and closed, shuffled,
dealt to shoe after shoe, and their day read back.

A floor table (``B07``, "Table 7") deals a shoe, shuffles, and deals the next, twenty or
more a day; every screen and feed follows the table rather than one shoe. The vocabulary
(the code rule, the states and the moves between them, the limits, a round's code) is
`roads_app.game.floor`'s; here it is kept, one transaction per change:

* a table's row (``floor_tables``) holds its code, name, rules, limits, floor position,
  state, current shoe and a version bumped by each change of the table itself;
* each of its shoes is an ordinary shoe (``shoes``) that names its table, the day it
  started and its number of that day (``floor_table``, ``floor_day``, ``floor_number``);
  shoes of no table (entered by hand, imported) are as before;
* a change of a table is written to the history under ``table:<code>``
  (`roads_app.store.watch.TABLE_KEY`), which also tells the change feed (`History.log`):
  a display or the lobby following the table wakes as for a shoe's change.

Every change takes the store's one write lock (`Database.write`), so two feeders on one
table, through any number of API replicas, are applied one after the other: the second
sees the shoe the first started and deals into it.

(``Table`` in `roads_app.bets.tables` is a payout rule set, a floor table's *rules*.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

import polars as pl

from roads_app.bets.tables import list_tables, load_table
from roads_app.errors import FloorError, RoundError, quote
from roads_app.game.floor import (
    MOVE_TO,
    FloorLimits,
    Move,
    TableState,
    check_table_code,
    round_code,
    shoe_code,
)
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeMeta, check_name, empty_rounds
from roads_app.messages import Message
from roads_app.store.connection import Connection, Database, now
from roads_app.store.history import History
from roads_app.store.rounds import Rounds
from roads_app.store.shoes import Shoes
from roads_app.store.watch import TABLE_KEY

_COLUMNS = (
    "code, name, rules, main_min, main_max, tie_min, tie_max, pair_min, pair_max, position, "
    "state, shoe, version, created, updated"
)
_JOINED = (
    "SELECT "
    + ", ".join(f"t.{c.strip()}" for c in _COLUMNS.split(","))
    + ", s.floor_day, s.floor_number, s.rounds, s.ended, s.deleted, s.version FROM floor_tables t "
    "LEFT JOIN shoes s ON s.id = t.shoe AND s.floor_table = t.code"
)
"""A table's row and its current shoe's, in one read (a feeder reads it every hand)."""
_ROW = f"{_JOINED} WHERE t.code = ?"
_DEALING = (
    "SELECT t.state, s.id, s.floor_day, s.floor_number, s.version FROM floor_tables t "
    "LEFT JOIN shoes s ON s.id = t.shoe AND s.floor_table = t.code "
    "AND s.ended IS NULL AND s.deleted IS NULL WHERE t.code = ?"
)
"""What a hand dealt at a table reads first: the table's state and its shoe, when that
shoe is still being played (`Floor.deal_in`): five columns of `_ROW`'s 21, and no
table built, for what a feeder does every hand."""

Enter = Callable[[pl.DataFrame, int], pl.DataFrame]
"""Given a shoe's rounds and its decks, the rounds with the new ones added (the entry
operations of `roads_app.game.rounds`: by winner, points or cards, checked)."""


@dataclass(frozen=True)
class FloorTable:
    """A floor table as the library holds it, with its current shoe's place in the day.

    ``shoe`` is the table's current shoe, or its last one while it is shuffling or
    closed (the screens show that shoe's final counts between shoes); None before its
    first. ``shoe_number`` and ``shoe_day`` are that shoe's number of the day and the
    day it started; ``shoe_rounds`` its rounds; ``shoe_ended`` whether it has ended;
    ``shoe_version`` its version (a feeder's next hand checks its kept rounds by it).
    """

    code: str
    name: str
    rules: str
    limits: FloorLimits
    position: int
    state: TableState
    shoe: str | None
    version: int
    created: str
    updated: str
    shoe_number: int | None = None
    shoe_day: str | None = None
    shoe_rounds: int = 0
    shoe_ended: bool = False
    shoe_version: int | None = None

    @property
    def place(self) -> ShoePlace | None:
        """Its current (or last) shoe's place in the day; None before its first shoe."""
        if self.shoe_day is None or self.shoe_number is None:
            return None
        return ShoePlace(self.code, self.shoe_day, self.shoe_number)

    def to_dict(self) -> dict[str, Any]:
        """As JSON (the API, ``tables list --json``)."""
        return {
            "code": self.code,
            "name": self.name,
            "rules": self.rules,
            "limits": self.limits.to_dict(),
            "position": self.position,
            "state": self.state.value,
            "shoe": self.shoe,
            "shoe_number": self.shoe_number,
            "shoe_day": self.shoe_day,
            "round_count": self.shoe_rounds,
            "shoe_ended": self.shoe_ended,
            "version": self.version,
        }


@dataclass(frozen=True)
class Dealt:
    """What `Floor.append` did: the shoe dealt into (started now when ``started``), its
    number of the day, the shoe's version and round count after, the new rounds' codes."""

    table: FloorTable
    shoe: str
    started: bool
    version: int
    rounds: pl.DataFrame
    codes: list[str]


_IDS_A_READ = 500
"""Shoe ids asked about in one statement (`Floor.tables_of`): far below either
database's limit of parameters."""


@dataclass(frozen=True)
class ShoePlace:
    """Where a shoe of a floor table was dealt: the table, the day it started, its number
    of that day (what its rounds' codes are made of, `round_code`)."""

    table: str
    day: str
    number: int

    def codes(self, upto: int, first: int = 1) -> list[str]:
        """The codes of its rounds ``first`` to ``upto``."""
        day = date.fromisoformat(self.day)
        return [round_code(self.table, day, self.number, n) for n in range(first, upto + 1)]


@dataclass(frozen=True, slots=True)
class Dealing:
    """The shoe a table's next hand goes to (`Floor.deal_in`): its id and version, the
    table, the day it started and its number of that day, and whether this hand started
    it (after a shuffle)."""

    shoe: str
    version: int
    table: str
    day: str
    number: int
    started: bool

    def round_code(self, round_no: int) -> str:
        """The code of its round ``round_no`` (`round_code`)."""
        return round_code(self.table, date.fromisoformat(self.day), self.number, round_no)


@dataclass(frozen=True)
class ShoeOfDay:
    """One shoe of a table's day: its number, when it started and ended, its counts."""

    id: str
    number: int
    started: str
    ended: str | None
    hands: int
    banker: int
    player: int
    tie: int
    banker_pairs: int
    player_pairs: int


@dataclass(frozen=True)
class TableDay:
    """A table's day, what a pit manager watches: its shoes (each with its scorecard's
    counts), hands, hands per hour (over the time from its first hand to its last; None
    before two hands) and the day's Banker/Player/Tie and pairs."""

    code: str
    day: str
    shoes: list[ShoeOfDay]
    hands: int
    hands_per_hour: float | None
    banker: int
    player: int
    tie: int
    banker_pairs: int
    player_pairs: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "day": self.day,
            "shoes_dealt": len(self.shoes),
            "hands": self.hands,
            "hands_per_hour": self.hands_per_hour,
            **{w.word: getattr(self, w.word) for w in Winner},
            "banker_pairs": self.banker_pairs,
            "player_pairs": self.player_pairs,
            "shoes": [s.__dict__ for s in self.shoes],
        }


def today() -> str:
    """The floor's day now (UTC), as the store keeps it (``YYYY-MM-DD``)."""
    return datetime.now(UTC).date().isoformat()


def check_rules(rules: str, limits: FloorLimits) -> str:
    """A table's rules by name (a built-in or the user's rule set, never a path) and its
    limits checked against the rules' own; the rules' name."""
    known = list_tables()
    if rules not in known:
        raise FloorError(Message("msg_unknown_table", name=quote(rules), tables=", ".join(known)))
    table = load_table(rules)
    pairs = table.offers("player_pair") or table.offers("banker_pair")
    limits.check(rules, table.limits.min_bet, table.limits.max_bet, (table.offers("tie"), pairs))
    return rules


def _name(name: str) -> str:
    try:
        return check_name(name)
    except RoundError as e:
        raise FloorError(e.message) from None


class Floor:
    """The ``floor_tables`` table of a `Database` and the shoes its tables deal."""

    def __init__(self, database: Database, shoes: Shoes, rounds: Rounds, history: History) -> None:
        self.db = database
        self.shoes = shoes
        self.rounds = rounds
        self.history = history

    # --- reading

    @staticmethod
    def _table(row: tuple[Any, ...]) -> FloorTable:
        """A table from its `_JOINED` row."""
        day, number, rounds, ended, deleted, shoe_version = row[15:21]
        current = number is not None and deleted is None  # not purged, not in the trash
        return FloorTable(
            code=row[0],
            name=row[1],
            rules=row[2],
            limits=FloorLimits.from_row(tuple(row[3:9])),
            position=int(row[9]),
            state=TableState(row[10]),
            shoe=row[11] if current else None,
            version=int(row[12]),
            created=str(row[13]),
            updated=str(row[14]),
            shoe_day=day if current else None,
            shoe_number=int(number) if current else None,
            shoe_rounds=int(rounds) if current else 0,
            shoe_ended=current and ended is not None,
            shoe_version=int(shoe_version) if current else None,
        )

    def get_in(self, c: Connection, code: str) -> FloorTable:
        """A table inside the caller's transaction; unknown codes refused in one line."""
        code = check_table_code(code)
        row = c.execute(_ROW, (code,)).fetchone()
        if row is None:
            raise FloorError(Message("msg_table_unknown", code=quote(code)))
        return self._table(row)

    def get(self, code: str) -> FloorTable:
        """One table by its code."""
        with self.db.read() as c:
            return self.get_in(c, code)

    def list(self) -> list[FloorTable]:
        """Every table, in floor order (position, then code)."""
        with self.db.read() as c:
            rows = c.execute(f"{_JOINED} ORDER BY t.position, t.code").fetchall()
            return [self._table(r) for r in rows]

    @staticmethod
    def ahead(code: str, *, dealing: bool = False) -> list[tuple[str, tuple[str, ...]]]:
        """The read a change of a table makes first (its row and its shoe's; a hand's,
        `deal_in`'s), for `Database.write` to send with the write lock (one round trip
        on a server)."""
        return [(_DEALING if dealing else _ROW, (code.upper(),))]

    # --- changing the table

    def _log(self, c: Connection, table: FloorTable, action: str, detail: dict[str, Any]) -> None:
        """The table's next version, written to its row and the history (which tells the
        change feed: `History.log`)."""
        c.execute(
            "UPDATE floor_tables SET version = ?, updated = ? WHERE code = ?",
            (table.version + 1, now(), table.code),
        )
        self.history.log(
            c,
            TABLE_KEY + table.code,
            action,
            table.version + 1,
            table.shoe_rounds,
            None,
            json.dumps(detail),
        )

    def add(
        self,
        code: str,
        name: str,
        rules: str,
        limits: FloorLimits,
        position: int | None = None,
    ) -> FloorTable:
        """A new table, closed, with no shoe yet; refused when the code is taken, the
        rules unknown or the limits outside the rules'. ``position``: its place in the
        floor's order (None: after the last)."""
        code, name = check_table_code(code), _name(name)
        check_rules(rules, limits)
        with self.db.write() as c:
            if c.execute("SELECT 1 FROM floor_tables WHERE code = ?", (code,)).fetchone():
                raise FloorError(Message("msg_table_taken", code=quote(code)))
            if position is None:
                last = c.execute("SELECT max(position) FROM floor_tables").fetchone()[0]
                position = 1 if last is None else int(last) + 1
            at = now()
            c.execute(
                f"INSERT INTO floor_tables ({_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?)",
                (code, name, rules, *limits.row(), position, TableState.CLOSED.value, at, at),
            )
            table = self.get_in(c, code)
            self._log(c, table, "table added", {"name": name, "rules": rules})
            return self.get_in(c, code)

    def edit(
        self,
        code: str,
        *,
        name: str | None = None,
        rules: str | None = None,
        limits: FloorLimits | None = None,
        position: int | None = None,
    ) -> FloorTable:
        """Change a table's name, rules, limits or place (what is None stays); the
        limits, new or kept, are checked against the rules, new or kept."""
        with self.db.write(ahead=self.ahead(code)) as c:
            old = self.get_in(c, code)
            new = replace(
                old,
                name=old.name if name is None else _name(name),
                rules=old.rules if rules is None else rules,
                limits=old.limits if limits is None else limits,
                position=old.position if position is None else position,
            )
            check_rules(new.rules, new.limits)
            c.execute(
                "UPDATE floor_tables SET name = ?, rules = ?, main_min = ?, main_max = ?, "
                "tie_min = ?, tie_max = ?, pair_min = ?, pair_max = ?, position = ? "
                "WHERE code = ?",
                (new.name, new.rules, *new.limits.row(), new.position, old.code),
            )
            changed = {
                k: [str(getattr(old, k)), str(getattr(new, k))]
                for k in ("name", "rules", "limits", "position")
                if getattr(old, k) != getattr(new, k)
            }
            self._log(c, old, "table edited", changed)
            return self.get_in(c, old.code)

    def move(self, code: str, move: Move) -> FloorTable:
        """Open, close or shuffle a table (`Move`), as its state allows (`TableState`):
        a shuffle ends the current shoe and the table shows "shuffling" until the first
        hand of the next; closing ends it too. Refused in one line otherwise (a shuffle
        sent twice, a closed table shuffled), nothing changed."""
        if move is Move.DEAL:
            raise ValueError("a hand is dealt by `append`")
        with self.db.write(ahead=self.ahead(code)) as c:
            return self.move_in(c, code, move)

    def move_in(self, c: Connection, code: str, move: Move) -> FloorTable:
        """`move` inside a transaction the caller holds (`write`)."""
        table = self.get_in(c, code)
        state = table.state.after(move, table.code)
        if move in (Move.SHUFFLE, Move.CLOSE) and table.shoe and not table.shoe_ended:
            self.shoes.end_in(c, table.shoe)
        c.execute("UPDATE floor_tables SET state = ? WHERE code = ?", (state.value, table.code))
        self._log(c, table, f"table {move.value}", {"state": [table.state, state]})
        return self.get_in(c, table.code)

    def open(self, code: str) -> FloorTable:
        return self.move(code, Move.OPEN)

    def close(self, code: str) -> FloorTable:
        return self.move(code, Move.CLOSE)

    def shuffle(self, code: str) -> FloorTable:
        return self.move(code, Move.SHUFFLE)

    def set_state(self, code: str, state: str) -> FloorTable:
        """Put a table in a state by its name (``open``, ``shuffling``, ``closed``): the
        move that leads there (a state that does not exist is refused)."""
        return self.move(code, MOVE_TO[TableState.parse(state)])

    # --- dealing

    def deal_in(self, c: Connection, code: str) -> Dealing:
        """The shoe a table's next hand goes to, inside the caller's write transaction:
        its current shoe, or a new one (numbered next of the day) when it is shuffling,
        has no shoe or its shoe has ended; the table then shows "open". Refused when the
        table is closed. A table open on a shoe being played (every hand but a shoe's
        first) is one narrow read (`_DEALING`), no table built."""
        code = check_table_code(code)
        row = c.execute(_DEALING, (code,)).fetchone()
        if row is None:
            raise FloorError(Message("msg_table_unknown", code=quote(code)))
        now_in = TableState(row[0])
        state = now_in.after(Move.DEAL, code)
        if row[1] is not None and row[2] is not None and row[3] is not None and now_in is state:
            return Dealing(row[1], int(row[4]), code, row[2], int(row[3]), False)
        table = self.get_in(c, code)
        if table.shoe is None or table.shoe_ended:
            self._start_shoe(c, table)
        c.execute("UPDATE floor_tables SET state = ? WHERE code = ?", (state.value, table.code))
        fresh = self.get_in(c, table.code)
        self._log(c, table, "shoe started", {"shoe": fresh.shoe, "number": fresh.shoe_number})
        assert fresh.shoe is not None and fresh.shoe_day is not None
        assert fresh.shoe_number is not None and fresh.shoe_version is not None
        return Dealing(
            fresh.shoe, fresh.shoe_version, code, fresh.shoe_day, fresh.shoe_number, True
        )

    def _start_shoe(self, c: Connection, table: FloorTable) -> str:
        day = today()
        last = c.execute(
            "SELECT max(floor_number) FROM shoes WHERE floor_table = ? AND floor_day = ?",
            (table.code, day),
        ).fetchone()[0]
        number = 1 if last is None else int(last) + 1
        while True:  # a purged shoe's number (its id, its round codes) stays its own
            shoe_id = shoe_code(table.code, date.fromisoformat(day), number)
            if not self.history.was_purged(c, shoe_id):
                break
            number += 1
        rules = load_table(table.rules)
        meta = ShoeMeta(
            id=shoe_id,
            name=f"{table.name} {day} #{number}"[:100],
            source="hand",
            rules=table.rules,
            decks=rules.shoe.decks,
            cut=rules.shoe.cut,
        )
        self.shoes.insert(c, meta, empty_rounds(), "created")
        c.execute(
            "UPDATE shoes SET floor_table = ?, floor_day = ?, floor_number = ? WHERE id = ?",
            (table.code, day, number, shoe_id),
        )
        c.execute("UPDATE floor_tables SET shoe = ? WHERE code = ?", (shoe_id, table.code))
        return shoe_id

    def append(self, code: str, enter: Enter) -> Dealt:
        """Deal rounds at a table: to its current shoe, or to a new one when it is
        shuffling (`deal_in`); refused when it is closed. ``enter`` makes the rounds
        from the shoe's rounds read in this same transaction (so two feeders are never
        checked against stale rounds); each new round's code comes back."""
        with self.db.write(ahead=self.ahead(code, dealing=True)) as c:
            deal = self.deal_in(c, code)
            saved = self.shoes.load_in(c, deal.shoe)
            new = enter(saved.rounds, saved.meta.decks)
            added = new.height - saved.rounds.height
            version = self.rounds.append_in(c, deal.shoe, new.tail(added), None)
            after = self.get_in(c, code)
            return Dealt(after, deal.shoe, deal.started, version, new, codes_of(after, added))

    # --- the day

    def place_of(self, shoe_id: str) -> ShoePlace | None:
        """The floor table, day and number a shoe was dealt at; None for a shoe of no
        table (entered by hand, imported) or one not in the library."""
        with self.db.read() as c:
            row = c.execute(
                "SELECT floor_table, floor_day, floor_number FROM shoes WHERE id = ?", (shoe_id,)
            ).fetchone()
        if row is None or row[0] is None or row[1] is None or row[2] is None:
            return None
        return ShoePlace(str(row[0]), str(row[1]), int(row[2]))

    def tables_of(self, shoe_ids: Collection[str]) -> dict[str, str]:
        """The floor table each of ``shoe_ids`` was dealt at, in one read (a shoe of no
        table, or not in the library, left out): what a table's screen key may show of
        a list of shoes (`roads_app.store.tokens.screen_keeps`)."""
        ids = list(dict.fromkeys(shoe_ids))
        found: dict[str, str] = {}
        with self.db.read() as c:
            for at in range(0, len(ids), _IDS_A_READ):
                part = ids[at : at + _IDS_A_READ]
                marks = ", ".join("?" * len(part))
                rows = c.execute(
                    f"SELECT id, floor_table FROM shoes WHERE id IN ({marks}) "
                    "AND floor_table IS NOT NULL",
                    tuple(part),
                ).fetchall()
                found.update((str(r[0]), str(r[1])) for r in rows)
        return found

    def day(self, code: str, day: str | None = None) -> TableDay:
        """A table's day (``YYYY-MM-DD``, today when None): its shoes and their counts,
        hands, hands per hour, the day's B/P/T and pairs."""
        when = day or today()
        try:
            date.fromisoformat(when)
        except ValueError:
            raise FloorError(Message("msg_table_day", day=quote(when))) from None
        with self.db.read() as c:
            table = self.get_in(c, code)
            shoes = c.execute(
                "SELECT id, floor_number, created, ended, rounds FROM shoes "
                "WHERE floor_table = ? AND floor_day = ? AND deleted IS NULL "
                "ORDER BY floor_number",
                (table.code, when),
            ).fetchall()
            ids = [r[0] for r in shoes]
            marks = ", ".join("?" * len(ids))
            counts: dict[tuple[str, str], tuple[int, int, int]] = {}
            first = last = None
            if ids:
                for shoe, winner, n, pp, bp in c.execute(
                    "SELECT shoe, winner, count(*), coalesce(sum(player_pair), 0), "
                    f"coalesce(sum(banker_pair), 0) FROM rounds WHERE shoe IN ({marks}) "
                    "GROUP BY shoe, winner",
                    ids,
                ):
                    counts[shoe, winner] = (int(n), int(pp), int(bp))
                first, last = c.execute(
                    f"SELECT min(at), max(at) FROM history WHERE shoe IN ({marks}) "
                    "AND action = 'entered'",
                    ids,
                ).fetchone()
        out = []
        for shoe_id, number, started, ended, _n in shoes:
            got = {w: counts.get((shoe_id, w.value), (0, 0, 0)) for w in Winner}
            out.append(
                ShoeOfDay(
                    shoe_id,
                    int(number),
                    str(started),
                    ended,
                    sum(v[0] for v in got.values()),
                    got[Winner.BANKER][0],
                    got[Winner.PLAYER][0],
                    got[Winner.TIE][0],
                    sum(v[2] for v in got.values()),
                    sum(v[1] for v in got.values()),
                )
            )
        hands = sum(s.hands for s in out)
        return TableDay(
            table.code,
            when,
            out,
            hands,
            _per_hour(hands, first, last),
            sum(s.banker for s in out),
            sum(s.player for s in out),
            sum(s.tie for s in out),
            sum(s.banker_pairs for s in out),
            sum(s.player_pairs for s in out),
        )


def codes_of(table: FloorTable, last: int) -> list[str]:
    """The codes of the table's current shoe's last ``last`` rounds."""
    place = table.place
    return [] if place is None else place.codes(table.shoe_rounds, table.shoe_rounds - last + 1)


def _per_hour(hands: int, first: object, last: object) -> float | None:
    """Hands per hour from the first hand's time to the last's (None under two hands)."""
    if hands < 2 or first is None or last is None:
        return None
    span = (_when(last) - _when(first)).total_seconds()
    return None if span <= 0 else round((hands - 1) * 3600 / span, 1)


def _when(stamp: object) -> datetime:
    return stamp if isinstance(stamp, datetime) else datetime.fromisoformat(str(stamp))
