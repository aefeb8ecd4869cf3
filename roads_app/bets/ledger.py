"""The bet history of one shoe: placing, voiding, settling and keeping bets.

A bet is placed on the *next* round (the one not dealt yet). It is settled by the
round of that number once that round exists in the rounds frame, so settling is a pure
function of (bets, rounds, position): replay can step back and forth and the bankroll
follows. A round voided at the table (a card-reading failure, seed 001) refunds the bets
on it and adds no round, so the bets that follow go on the same round number.

Bets of a shoe are kept in the store with the shoe (`roads_app.store.bets.Bets.change`
runs these pure functions inside one transaction); replay keeps its own ``replay-bets``.

>>> log = place(empty_bets(), "player", 10, round_no=1)
>>> log = void(log, round_no=1)
>>> log.row(0, named=True)["voided"]
True
>>> pending(log, 1).height
0
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import polars as pl

from roads_app.bets.spec import REFUND, Outcome
from roads_app.bets.tables import TableLike
from roads_app.errors import BetError, whole_number
from roads_app.messages import Message, bet

CHIPS: tuple[int, ...] = (1, 5, 25, 100, 500)
"""Chip sizes offered by the bet panel."""

BETS_SCHEMA: pl.Schema = pl.Schema(
    {
        "id": pl.Int32,  # placing order, 1-based: the history reads in the order bets were made
        "round": pl.Int32,  # the round the bet is on
        "bet": pl.String,  # a bet id of the table (player, banker, tie, player_pair, ...)
        "stake": pl.Float64,
        "voided": pl.Boolean,  # the round was cancelled: stake returned, no round added
        # the id of the first bet of the chip action that placed it: the parts of one
        # 2-Way / 3-Way share it, so "undo last chip" takes back the action as made
        "placement": pl.Int32,
    }
)
"""Columns of a shoe's bet history."""

SETTLED_SCHEMA: pl.Schema = pl.Schema(
    {**BETS_SCHEMA, "outcome": pl.String, "net": pl.Float64, "reason": pl.String}
)
"""The history with its results: outcome win/lose/push/refund/refused/pending, net won."""

PENDING = Outcome.PENDING.value
VOID_REASON = Message("msg_round_voided")

HISTORY_KINDS: tuple[str, ...] = ("bets", "replay-bets")
"""Which history a file holds: bets made while entering a shoe, or while replaying it."""


def empty_bets() -> pl.DataFrame:
    """A shoe with no bets yet."""
    return BETS_SCHEMA.to_frame()


def with_placement(bets: pl.DataFrame) -> pl.DataFrame:
    """``bets`` in the history's columns; a history kept before chip actions were
    recorded (no ``placement``) counts each bet as its own action."""
    if "placement" not in bets.columns:
        bets = bets.with_columns(placement=pl.col("id"))
    out = bets.select(BETS_SCHEMA.names()).cast(BETS_SCHEMA)  # type: ignore[arg-type]
    return out.with_columns(pl.col("placement").fill_null(pl.col("id")))


def _stake(stake: object) -> float:
    if isinstance(stake, bool) or not isinstance(stake, int | float):
        raise BetError(Message("msg_not_a_number", stake=repr(stake)))
    value = float(stake)
    if not math.isfinite(value) or value <= 0:
        raise BetError(Message("msg_stake_positive", stake=repr(stake)))
    return value


def _round_no(round_no: object) -> int:
    return whole_number(round_no, Message("msg_what_round"), 1, error=BetError)


def can_place(
    bets: pl.DataFrame,
    bet_id: str,
    stake: float,
    round_no: int,
    table: TableLike | None = None,
) -> str | None:
    """Why a bet cannot be placed on ``round_no`` (None when it can).

    The table decides closing rounds and limits; a table limit applies to the total
    staked on one bet for one round, so a second chip on the same bet counts too.
    """
    try:
        value = _stake(stake)
        _round_no(round_no)
    except BetError as e:
        return e.message
    if table is None:
        return None
    if bet_id not in table.bets:
        return Message("msg_not_offered_here", bet=repr(bet_id))
    already = pending(bets, round_no).filter(pl.col("bet") == bet_id)["stake"].sum()
    return table.can_place(bet_id, round_no, float(already or 0.0) + value)


def place(
    bets: pl.DataFrame,
    bet_id: str,
    stake: float,
    *,
    round_no: int,
    table: TableLike | None = None,
) -> pl.DataFrame:
    """Add a bet on ``round_no``; BetError (one line) when the table refuses it."""
    reason = can_place(bets, bet_id, stake, round_no, table)
    if reason:
        raise BetError(Message("msg_cannot_bet", bet=bet(bet_id), n=round_no, reason=reason))
    return place_many(bets, [(bet_id, float(stake))], round_no=round_no)


def place_many(
    bets: pl.DataFrame, items: Iterable[tuple[str, float]], *, round_no: int
) -> pl.DataFrame:
    """Add several bets at once as one chip action (a 2-Way / 3-Way shortcut), numbered
    in order, unchecked."""
    items = [(b, _stake(s)) for b, s in items]
    start = int(bets["id"].max() or 0) + 1 if bets.height else 1
    new = pl.DataFrame(
        {
            "id": list(range(start, start + len(items))),
            "round": [_round_no(round_no)] * len(items),
            "bet": [b for b, _ in items],
            "stake": [s for _, s in items],
            "voided": [False] * len(items),
            "placement": [start] * len(items),
        },
        schema=BETS_SCHEMA,
    )
    return pl.concat([with_placement(bets), new])


def place_shortcut(
    bets: pl.DataFrame,
    parts: Iterable[str],
    stake: float,
    *,
    round_no: int,
    table: TableLike | None = None,
) -> pl.DataFrame:
    """Place ``stake`` on each bet of a shortcut (2-Way = Banker + Player Pair ...), all or none."""
    parts = list(parts)
    if not parts:
        raise BetError(Message("msg_shortcut_empty"))
    log = bets
    for bet_id in parts:  # each part checked with the parts before it on the table
        log = place(log, bet_id, stake, round_no=round_no, table=table)
    return place_many(bets, [(p, stake) for p in parts], round_no=round_no)


def pending(bets: pl.DataFrame, round_no: int) -> pl.DataFrame:
    """Bets waiting on round ``round_no`` (not voided)."""
    return bets.filter((pl.col("round") == round_no) & ~pl.col("voided"))


def can_void(bets: pl.DataFrame, round_no: int) -> bool:
    """Whether round ``round_no`` has bets a void would refund."""
    return pending(bets, round_no).height > 0


def void(bets: pl.DataFrame, round_no: int) -> pl.DataFrame:
    """Cancel round ``round_no`` at the table: its bets are refunded, kept in the history."""
    if not can_void(bets, round_no):
        raise BetError(Message("msg_no_refund", n=round_no))
    hit = (pl.col("round") == round_no) & ~pl.col("voided")
    return bets.with_columns(voided=pl.when(hit).then(True).otherwise(pl.col("voided")))


def can_clear(bets: pl.DataFrame, round_no: int) -> bool:
    """Whether there are bets on the next round to take back before it is dealt."""
    return can_void(bets, round_no)


def clear(bets: pl.DataFrame, round_no: int) -> pl.DataFrame:
    """Take back the bets on a round not dealt yet (changed one's mind, not a void)."""
    if not can_clear(bets, round_no):
        raise BetError(Message("msg_no_take_back", n=round_no))
    return bets.filter(~((pl.col("round") == round_no) & ~pl.col("voided")))


# --- settling ------------------------------------------------------------------------


def settle_log(
    bets: pl.DataFrame,
    rounds: pl.DataFrame,
    table: Any,
    upto: int | None = None,
) -> pl.DataFrame:
    """Every bet with its result as of round ``upto`` (default: every round there is).

    Bets on rounds not dealt yet are ``pending``; voided bets are a ``refund``; the rest
    go through `roads_app.bets.settlement.settle` with the table's payouts.
    """
    from roads_app.bets.settlement import settle

    n = rounds.height if upto is None else max(0, min(int(upto), rounds.height))
    base = bets.select(BETS_SCHEMA.names())
    due = base.filter(~pl.col("voided") & (pl.col("round") <= n))
    parts: list[pl.DataFrame] = []
    if due.height:
        result = settle(rounds.head(n), due, table)
        if "id" not in result.columns:  # settle may return only its own columns, in order
            result = due.hstack(result.select("outcome", "net", "reason"))
        parts.append(result.select(*BETS_SCHEMA.names(), "outcome", "net", "reason"))
    refunded = base.filter(pl.col("voided")).with_columns(
        outcome=pl.lit(REFUND), net=pl.lit(0.0), reason=pl.lit(VOID_REASON)
    )
    waiting = base.filter(~pl.col("voided") & (pl.col("round") > n)).with_columns(
        outcome=pl.lit(PENDING), net=pl.lit(0.0), reason=pl.lit(None, dtype=pl.String)
    )
    parts += [refunded, waiting]
    return pl.concat([p.cast(SETTLED_SCHEMA) for p in parts]).sort("id")  # type: ignore[arg-type]


def bankroll(settled: pl.DataFrame, start: float, upto: int) -> pl.DataFrame:
    """Bankroll after each round 0..upto (round 0 = before the first hand).

    Pending bets do not move it; refunds and pushes net zero.
    """
    per_round = (
        settled.filter(pl.col("outcome") != PENDING).group_by("round").agg(pl.col("net").sum())
    )
    return (
        pl.DataFrame({"round": pl.int_range(0, upto + 1, eager=True, dtype=pl.Int32)})
        .join(per_round, on="round", how="left")
        .with_columns(bankroll=pl.col("net").fill_null(0.0).cum_sum() + float(start))
        .select("round", "bankroll")
    )


def totals(settled: pl.DataFrame) -> dict[str, float]:
    """Staked (settled bets, refunds excluded), won net, and pending stake: the panel's header."""
    done = settled.filter(~pl.col("outcome").is_in([PENDING, REFUND]))
    return {
        "staked": float(done["stake"].sum() or 0.0),
        "net": float(done["net"].sum() or 0.0),
        "pending": float(settled.filter(pl.col("outcome") == PENDING)["stake"].sum() or 0.0),
    }


def staked_on(bets: pl.DataFrame, round_no: int) -> float:
    """What is on the table for round ``round_no`` (voided bets excluded)."""
    return float(pending(bets, round_no)["stake"].sum() or 0.0)


def beyond_bankroll(bets: pl.DataFrame, stake: float, round_no: int, bankroll: float) -> str | None:
    """Why a stake cannot go on the table with ``bankroll`` in hand (None when it can).

    What is already on round ``round_no`` counts against the bankroll: a player cannot
    stake money they have already put down.

    >>> b = place_many(empty_bets(), [("banker", 100.0)], round_no=3)
    >>> beyond_bankroll(b, 5000, 3, 995.0)
    'not enough bankroll: 5,000 asked, 895 left (100 already on round 3)'
    >>> beyond_bankroll(b, 25, 3, 995.0) is None
    True
    """
    on_table = staked_on(bets, round_no)
    left = bankroll - on_table
    if stake <= left + 1e-9:
        return None
    asked, rest = f"{stake:,.0f}", f"{max(left, 0):,.0f}"
    if on_table:
        return Message(
            "not_enough_bankroll_on", asked=asked, left=rest, amount=f"{on_table:,.0f}", n=round_no
        )
    return Message("not_enough_bankroll", asked=asked, left=rest)


def undo_last(bets: pl.DataFrame, round_no: int) -> pl.DataFrame:
    """Take back the last chip action on round ``round_no``: one bet, or every part of
    the 2-Way / 3-Way placed with one press.

    >>> b = place(empty_bets(), "player", 5.0, round_no=1)
    >>> b = place_many(b, [("banker_pair", 1.0), ("player_pair", 1.0)], round_no=1)
    >>> undo_last(b, 1)["bet"].to_list()
    ['player']
    """
    mine = with_placement(pending(bets, round_no))
    if not mine.height:
        raise BetError(Message("msg_no_chip", n=round_no))
    last = mine.filter(pl.col("id") == pl.col("id").max())["placement"][0]
    taken = mine.filter(pl.col("placement") == last)["id"]
    return bets.filter(~pl.col("id").is_in(taken.implode()))
