"""What the API does, without HTTP: every call is one store transaction.

Appends are decided by `roads_app.game.rounds` (the dashboard's own entry operations:
drawing rules, the shoe's card counts, winner against points) on the rounds read
inside the same write transaction, so two feeders on one shoe are applied one after
the other and neither is checked against stale rounds. With an ``Idempotency-Key``
the answer is stored in that same transaction (`roads_app.store.feed.Requests.once`): a
retry is answered from it and never enters the hand twice, even if the first answer was
lost.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl

from roads_app.api.models import RoundIn, ShoeCreate
from roads_app.bets.tables import list_tables, load_table
from roads_app.errors import RoadsAppError, StorageError, quote
from roads_app.game import rounds as game_rounds
from roads_app.messages import Message
from roads_app.roads import good_roads
from roads_app.roads.grids import all_roads
from roads_app.roads.stats import shoe_stats
from roads_app.store import db, tokens

log = logging.getLogger(__name__)

KEEP_ANSWERS = timedelta(days=7)
"""How long a request's answer is kept for retries (older keys are forgotten at start)."""


KEEP_SHOES = 1024
"""Shoes whose rounds are kept in memory between appends (the tables being fed): more
than a floor's tables, since a floor fed in turn through fewer would read every shoe
whole again at every append (64 with 100 tables did); a shoe's frame is at most
`roads_app.game.rounds.MOST_ROUNDS` rows, tens of kilobytes."""

KEEP_TOKENS = 256
"""Tokens found and trusted at once by the gate (only issued tokens are ever kept)."""

OPERATOR = "operator"


class NotFound(RoadsAppError):
    """No such shoe (404)."""


class Refused(RoadsAppError):
    """A refusal with its own HTTP status (409 stale, 503 busy)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class Reply:
    """A write's answer: status and body, and whether it is a stored answer given again."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


def fingerprint(*parts: Any) -> str:
    """What a request asked, so a key sent again with another request is noticed."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Rounds as JSON-ready dicts (the rounds-frame columns)."""
    return frame.select(game_rounds.ROUNDS_SCHEMA.names()).to_dicts()


class Feed:
    """The API's operations over the store of one data folder."""

    def __init__(self, data_dir: Path, *, samples: bool = False) -> None:
        self.data_dir = Path(data_dir)
        self.store = db.open_store(self.data_dir, samples=samples)
        self._kept: dict[str, db.Saved] = {}  # shoe id -> as this process last wrote it
        self._roles: dict[str, str] = {}  # token hash -> role, trusted until a revoke
        self._revokes = 0  # revokes seen (`forget_keys`)
        try:
            self.store.requests.forget((datetime.now(UTC) - KEEP_ANSWERS).isoformat())
        except StorageError as e:  # busy at start: keep the old answers a little longer
            log.warning("old request keys not forgotten: %s", e)

    # --- who may call ---------------------------------------------------------------

    def token_role(self, token: str) -> str | None:
        """The token's role as found in the library, trusted until the process's watcher
        sees a revoke (`forget_keys`): what the gate asks before a body is read, so a
        feeder's appends do not each wait for a lookup (on PostgreSQL a round trip on
        the event loop). It admits nothing by itself: a write's token is asked again in
        its own transaction (`_once`), a read's on a store thread (`role_now`). A token
        not found is asked about every time."""
        key = tokens.hash_token(token)
        found = self._roles.get(key)
        if found is not None:
            return found
        seen = self._revokes
        role = self.store.tokens.role(key)
        if role is not None and seen == self._revokes:  # no revoke seen meanwhile
            if len(self._roles) >= KEEP_TOKENS:
                self._roles.clear()
            self._roles[key] = role
        return role

    def role_now(self, token_hash: str) -> str | None:
        """The role of a token (by its hash) as the library says now (a store thread)."""
        return self.store.tokens.role(token_hash)

    def forget_keys(self, _seq: int, changed: frozenset[str]) -> None:
        """The watcher's news (on its thread): a revoke drops every token trusted."""
        if db.TOKENS_NEWS in changed:
            self._revokes += 1
            self._roles.clear()

    # --- reads --------------------------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        out = []
        for name in list_tables():
            try:
                t = load_table(name)
            except RoadsAppError as e:  # a broken rules file is not offered, and said once
                log.warning("table not offered: %s", e)
                continue
            out.append({"name": name, "title": t.title, "decks": t.shoe.decks, "source": t.source})
        return out

    def shoes(self) -> list[dict[str, Any]]:
        return [_summary(r) for r in self.store.shoes.list().iter_rows(named=True)]

    def shoe(self, shoe_id: str) -> dict[str, Any]:
        saved = self._load(shoe_id)
        rounds = saved.rounds
        roads = {name: grid.to_dicts() for name, grid in all_roads(rounds).items()}
        return {
            **_summary_of(saved.meta, rounds.height, saved.version, saved.ended),
            "rounds": rows(rounds),
            "stats": shoe_stats(rounds),
            "roads": roads,
            "good_roads": tags(rows(rounds)),
        }

    def good_roads(self) -> list[dict[str, Any]]:
        """Every live shoe (entered by hand or fed here; the newest `LIVE_SHOES`) that holds
        a good road now: its summary and the keys in priority order, headline first; the
        shoes in the order of their headlines' priority, then most recently changed."""
        cat = good_roads.in_force()
        out = []
        live = self.store.shoes.list(source="hand", limit=LIVE_SHOES, live=True)  # not ended
        for r in live.iter_rows(named=True):
            try:
                saved = self.store.shoes.load(r["id"])
            except StorageError:
                continue  # deleted or unreadable since the list was read
            keys = tags(rows(saved.rounds), cat)
            if keys:
                out.append({**_summary(r), "good_roads": keys, "headline": keys[0]})
        order = {k: i for i, k in enumerate(cat.keys)}
        return sorted(out, key=lambda s: order[s["headline"]])

    def version(self, shoe_id: str) -> int | None:
        return self.store.shoes.version(shoe_id)

    def snapshot(self, shoe_id: str) -> tuple[int, list[dict[str, Any]]] | None:
        """(version, rounds) read together, or None when the shoe is gone."""
        if self.store.shoes.version(shoe_id) is None:
            return None
        try:
            saved = self.store.shoes.load(shoe_id)
        except StorageError as e:
            if unreachable(e):  # not gone: the stream reads again when the database is back
                raise
            return None
        return saved.version, rows(saved.rounds)

    # --- writes ------------------------------------------------------------------------------

    def create(self, body: ShoeCreate, key: str | None, who: str | None = None) -> Reply:
        table = load_table(_table_name(body.table))
        meta = game_rounds.ShoeMeta(
            name=body.name.strip(),
            source="hand",
            rules=body.table,
            decks=body.decks if body.decks is not None else table.shoe.decks,
        )

        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            version = self.store.shoes.create_in(c, meta)
            return 201, _summary_of(meta, 0, version)

        fp = fingerprint("create", body.model_dump())
        return self._once(key, fp, None, do, who=who)

    def append(self, shoe_id: str, body: RoundIn, key: str | None, who: str | None = None) -> Reply:
        made = self.made_ahead(shoe_id, body)

        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            saved = self._saved(c, shoe_id)
            new = self.entered_in(saved, body, made)
            version = self.store.rounds.append_in(c, shoe_id, new.tail(1), None)  # we hold the lock
            self._keep(db.Saved(new, saved.meta, version))
            return 201, {
                "shoe": shoe_id,
                "version": version,
                "round": new.row(new.height - 1, named=True),
            }

        fp = fingerprint("append", shoe_id, body.model_dump(exclude_none=True))
        return self._once_on(shoe_id, key, fp, do, who)

    def undo(self, shoe_id: str, key: str | None, who: str | None = None) -> Reply:
        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            n = self._saved(c, shoe_id).rounds.height
            if not n:
                raise game_rounds.RoundError(Message("msg_undo_empty"))
            version = self.store.rounds.undo_in(c, shoe_id, None)
            return 200, {"shoe": shoe_id, "version": version, "rounds": n - 1}

        return self._once_on(shoe_id, key, fingerprint("undo", shoe_id), do, who)

    def void(self, shoe_id: str, round_no: int, key: str | None, who: str | None = None) -> Reply:
        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            n = self._saved(c, shoe_id).rounds.height
            version = self.store.rounds.void_in(c, shoe_id, round_no, None)
            return 200, {"shoe": shoe_id, "version": version, "rounds": n - 1}

        return self._once_on(shoe_id, key, fingerprint("void", shoe_id, round_no), do, who)

    def end(self, shoe_id: str, key: str | None, who: str | None = None) -> Reply:
        """End the shoe (the cut card's last hand was played): read-only after."""

        def do(c: db.Connection) -> tuple[int, dict[str, Any]]:
            n = self._saved(c, shoe_id).rounds.height
            version = self.store.shoes.end_in(c, shoe_id)
            return 200, {"shoe": shoe_id, "version": version, "rounds": n}

        return self._once_on(shoe_id, key, fingerprint("end", shoe_id), do, who)

    # --- helpers -----------------------------------------------------------------------------

    def _saved(self, c: db.Connection, shoe_id: str, version: int | None = None) -> db.Saved:
        """The shoe as it is inside the caller's write transaction.

        The rounds this process last wrote are reused while the shoe's version is still
        the one they made (a feeder appending hand after hand reads nothing back);
        any other writer bumps the version and the shoe is read again. ``version``: the
        shoe's version as the caller read it in this transaction (else read here).
        """
        kept = self._kept.get(shoe_id)
        now = self.store.shoes.version(shoe_id) if version is None else version
        if kept is not None and kept.version == now:
            return kept
        saved = self.store.shoes.load_in(c, shoe_id)
        self._keep(saved)
        return saved

    def _keep(self, saved: db.Saved) -> None:
        if len(self._kept) >= KEEP_SHOES and saved.meta.id not in self._kept:
            self._kept.pop(next(iter(self._kept)))  # the least recently kept
        self._kept.pop(saved.meta.id, None)
        self._kept[saved.meta.id] = saved

    def _exists(self, shoe_id: str) -> None:
        if self.store.shoes.version(shoe_id) is None:
            raise NotFound(f"no shoe {quote(shoe_id)} (it never existed or is in the trash)")

    def _load(self, shoe_id: str) -> db.Saved:
        self._exists(shoe_id)
        try:
            return self.store.shoes.load(shoe_id)
        except StorageError as e:
            raise _status(e) from None

    def _once_on(self, shoe_id: str, key: str | None, fp: str, do: Any, who: str | None) -> Reply:
        """`_once` for a change of one shoe: 404 first when there is no such shoe, and
        the shoe's rows read with the write lock (on a server, one round trip for the
        lock, the key's answer, the writer's token and the shoe's version and gate)."""
        return self._once(
            key,
            fp,
            shoe_id,
            do,
            who=who,
            ahead=self.store.shoes.ahead(shoe_id),
            first=lambda: self._exists(shoe_id),
        )

    def made_ahead(self, shoe_id: str | None, body: RoundIn) -> Made | None:
        """The round entered against the shoe's rounds this process last wrote, before the
        write lock is asked for, so the lock is held for the writes alone (the entry's
        checks are most of an append's work). None: the shoe is not kept, or the entry
        was refused (then it is entered again inside the lock, and refused there)."""
        kept = self._kept.get(shoe_id) if shoe_id is not None else None
        if kept is None:
            return None
        try:
            return Made(kept, entered(kept.rounds, body, kept.meta.decks))
        except RoadsAppError:
            return None

    @staticmethod
    def entered_in(saved: db.Saved, body: RoundIn, made: Made | None) -> pl.DataFrame:
        """The rounds with the entered one added, inside the write transaction: ``made``'s
        when it was made from these very rounds (the kept object `_saved` found current),
        else entered now."""
        if made is not None and made.saved is saved:
            return made.rounds
        return entered(saved.rounds, body, saved.meta.decks)

    def saved_in(self, c: db.Connection, shoe_id: str, version: int | None = None) -> db.Saved:
        """`_saved` for the floor's tables (`roads_app.api.floor_feed`)."""
        return self._saved(c, shoe_id, version)

    def keep(self, saved: db.Saved) -> None:
        """`_keep` for the floor's tables: rounds this process wrote, reused while current."""
        self._keep(saved)

    def once(self, key: str | None, fp: str, shoe_id: str | None, do: Any, **how: Any) -> Reply:
        """A change done once per ``key`` (`Requests.once`), its refusals as HTTP's;
        ``who``, ``ahead`` as `_once`."""
        return self._once(key, fp, shoe_id, do, **how)

    def _once(
        self,
        key: str | None,
        fp: str,
        shoe_id: str | None,
        do: Any,
        *,
        who: str | None = None,
        ahead: list[Any] | tuple[Any, ...] = (),
        first: Any = None,
    ) -> Reply:
        """The change, once per key. ``who``: the writer's token hash, asked again inside
        the change's transaction, under the write lock a revoke takes too, so no change
        is made by a token after its revoke's commit, on any replica (read with the lock
        on a server: no round trip of its own). None: a caller in this process."""

        def check() -> None:
            if who is not None:
                role = self.store.tokens.role(who)
                if role != OPERATOR:
                    raise Refused(
                        401 if role is None else 403,
                        "the token no longer holds (revoked): nothing was changed"
                        if role is None
                        else "writing needs an operator token",
                    )
            if first is not None:
                first()

        reads = [*(self.store.tokens.ahead(who) if who is not None else []), *ahead]
        try:
            status, body, replayed = self.store.requests.once(
                key, fp, shoe_id, do, ahead=reads, first=check
            )
        except db.RequestKeyReused as e:
            raise Refused(422, str(e)) from None
        except StorageError as e:
            raise _status(e) from None
        return Reply(status, body, replayed)


@dataclass(frozen=True)
class Made:
    """A round entered ahead of the write lock (`Feed.made_ahead`): the kept rounds it
    was entered against, and the rounds with it."""

    saved: db.Saved
    rounds: pl.DataFrame


LIVE_SHOES = 200
"""Live shoes `Feed.good_roads` looks at (the lobby's tables, and more)."""


def tags(rounds: list[dict[str, Any]], catalogue: good_roads.Catalogue | None = None) -> list[str]:
    """What holds after a shoe's last round (the catalogue in force), from its round rows."""
    return good_roads.tags_of_winners([r["winner"] for r in rounds], catalogue)


def entered(rounds: pl.DataFrame, body: RoundIn, decks: int) -> pl.DataFrame:
    """The rounds with the entered one added, by the dashboard's own entry operations."""
    if body.mode == game_rounds.EntryMode.CARDS:
        return game_rounds.add_cards(
            rounds, body.player_cards or [], body.banker_cards or [], decks=decks
        )
    if body.mode == game_rounds.EntryMode.POINTS:
        return game_rounds.add_points(
            rounds,
            body.player_points,
            body.banker_points,  # type: ignore[arg-type]
            winner=body.winner,
            decks=decks,
            **body.flags(),
        )
    return game_rounds.add_winner(rounds, body.winner, decks=decks, **body.flags())  # type: ignore[arg-type]


UNAVAILABLE = frozenset({"msg_db_unreachable", "msg_db_busy"})
"""Store messages that mean the database cannot serve now, not that the request is wrong."""


def unreachable(e: BaseException) -> bool:
    """The database cannot serve now (restarting, busy): retry later, nothing is wrong with
    the request and nothing is gone."""
    return isinstance(e, StorageError) and getattr(e.message, "key", None) in UNAVAILABLE


def _status(e: StorageError) -> RoadsAppError:
    """Store refusals a client should handle apart: stale (409), busy (503, retry)."""
    if isinstance(e, db.StaleShoeError | db.ShoeEndedError):
        return Refused(409, str(e))
    if "is busy" in str(e):
        return Refused(503, str(e))
    return e


def _table_name(name: str) -> str:
    """Tables by name only (a path would read any file on the server)."""
    if name not in list_tables():
        raise game_rounds.RoundError(
            Message("msg_unknown_table", name=quote(name), tables=", ".join(list_tables()))
        )
    return name


def _summary_of(
    meta: game_rounds.ShoeMeta, rounds: int, version: int, ended: str | None = None
) -> dict[str, Any]:
    return {
        "id": meta.id,
        "name": meta.name,
        "table": meta.rules,
        "decks": meta.decks,
        "source": meta.source,
        "created": meta.created,
        "round_count": rounds,
        "version": version,
        "ended": ended,
    }


def _summary(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": r["id"],
        "name": r["name"],
        "table": r["rules"],
        "decks": r["decks"],
        "source": r["source"],
        "created": r["created"],
        "round_count": r["rounds"],
        "version": r["version"],
        "ended": r["ended"],
    }
