"""Shoe statistics: result counts, pairs, naturals and streaks, for one shoe or many.

Streaks follow the big road: ties neither break nor extend a streak. Pair and natural
flags are null for rounds entered by winner only; nulls never count as a pair, and a
count is *unknown* (null in frames, ``"unknown"`` in `shoe_stats`) when no round of
the shoe recorded that flag. Every function takes `ROUNDS_SCHEMA` or
`MULTI_SHOE_SCHEMA` (then grouped by ``shoe`` in one query, ``shoe`` first).

>>> from roads_app.game.rounds import rounds_from_winners
>>> s = shoe_stats(rounds_from_winners("BBTPBBB"))
>>> s["banker"], s["tie"], s["streak_side"], s["streak"], s["longest_banker"], s["banker_pairs"]
(5, 1, 'B', 3, 3, 'unknown')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from roads_app.errors import RoundError
from roads_app.game.hand import Side, Winner
from roads_app.game.rounds import ShoeCounts
from roads_app.messages import Message
from roads_app.roads.grids import check_rounds

_SIDE = pl.Enum([s.value for s in Side])
_FLAG_COUNTS = {
    "banker_pairs": "banker_pair",
    "player_pairs": "player_pair",
    "banker_naturals": "banker_natural",
    "player_naturals": "player_natural",
}
UNKNOWN = "unknown"
"""What `shoe_stats` says for a count no round of the shoe recorded."""

FLAGS: tuple[str, ...] = tuple(_FLAG_COUNTS.values())
"""The round flags counted with their denominators (`flag_counts`)."""

_WORDS: tuple[str, ...] = tuple(w.word for w in Winner)
"""The winners' columns (``banker``, ``player``, ``tie``), named by `Winner.word`."""

RUNNING_COLUMNS: tuple[str, ...] = (
    "round",
    "winner",
    *_WORDS,
    *_FLAG_COUNTS,
    "streak_side",
    "streak",
)


def _grouped(rounds: pl.DataFrame) -> tuple[pl.LazyFrame, bool]:
    """The checked rounds with a ``shoe`` column (a dummy one for a single shoe)."""
    frame = check_rounds(rounds)
    multi = "shoe" in frame.columns
    if not multi:
        frame = frame.with_columns(shoe=pl.lit(1, dtype=pl.Int32))
    return frame.lazy(), multi


def _cum_within(flag: pl.Expr, restart: pl.Expr) -> pl.Expr:
    """Running count of ``flag`` that starts again at each ``restart`` row.

    One global cumulative sum minus its value where the segment began: no window
    per shoe or per streak, so 10,000 shoes cost one pass.
    """
    total = flag.cast(pl.Int32).cum_sum()
    return total - pl.when(restart).then(total - flag.cast(pl.Int32)).forward_fill()


def _streaks(lf: pl.LazyFrame) -> pl.LazyFrame:
    """The current streak after each round, per shoe: all the per-shoe table needs of
    the running columns (its counts are sums of the rounds; a running count of each
    winner and flag it would drop cost it as much again)."""
    w = pl.col("winner")
    new_shoe = pl.col("shoe").diff().fill_null(1) != 0
    bp = w != Winner.TIE
    side = pl.when(bp).then(w.cast(pl.String)).cast(_SIDE).forward_fill()
    return (
        lf.with_columns(
            _new_shoe=new_shoe,
            _side=side,
        )
        .with_columns(
            # a streak restarts at a new shoe or when a B/P result changes side
            _new_run=pl.col("_new_shoe") | (bp & (pl.col("_side") != pl.col("_side").shift())),
            _decided=_cum_within(bp, pl.col("_new_shoe")) > 0,  # a B/P result in the shoe yet
        )
        .with_columns(
            # before the shoe's first B/P result the filled side is the previous shoe's
            streak_side=pl.when(pl.col("_decided")).then(pl.col("_side")),
            streak=_cum_within(bp, pl.col("_new_run")),
        )
    )


def _running(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Cumulative counts and the current streak after each round, per shoe."""
    w, restart = pl.col("winner"), pl.col("_new_shoe")
    return _streaks(lf).with_columns(
        **{x.word: _cum_within(w == x, restart) for x in Winner},
        **{
            name: _cum_within(pl.col(flag).fill_null(False), restart)
            for name, flag in _FLAG_COUNTS.items()
        },
    )


def running_counts(rounds: pl.DataFrame) -> pl.DataFrame:
    """Per round: cumulative B/P/T, pair and natural counts, and the streak so far.

    Columns: [shoe], round, winner, banker, player, tie, banker_pairs, player_pairs,
    banker_naturals, player_naturals (unknown flags count as no pair), streak_side
    (``B``/``P``, null before the first B/P result) and streak (its length; a tie
    keeps it).
    """
    lf, multi = _grouped(rounds)
    return _running(lf).select((["shoe"] if multi else []) + list(RUNNING_COLUMNS)).collect()


def shoe_stats_many(rounds: pl.DataFrame) -> pl.DataFrame:
    """One row of statistics per shoe, all shoes in one grouped query.

    Columns: [shoe], rounds, banker, player, tie, banker_pct, player_pct, tie_pct (of all
    rounds), banker_pairs, player_pairs, banker_naturals, player_naturals (null when no
    round recorded the flag), streak_side, streak (the current streak), longest_banker,
    longest_player.
    """
    lf, multi = _grouped(rounds)
    n = pl.len().cast(pl.Int32)
    out = (
        _streaks(lf)
        .group_by("shoe", maintain_order=True)
        .agg(
            rounds=n,
            **ShoeCounts.exprs(),
            **{
                name: pl.when(pl.col(flag).is_not_null().any())
                .then(pl.col(flag).sum())
                .cast(pl.Int32)
                for name, flag in _FLAG_COUNTS.items()
            },
            streak_side=pl.col("streak_side").last(),
            streak=pl.col("streak").last(),
            longest_banker=pl.col("streak").filter(pl.col("streak_side") == Winner.BANKER).max(),
            longest_player=pl.col("streak").filter(pl.col("streak_side") == Winner.PLAYER).max(),
        )
        .with_columns(
            pl.col("longest_banker", "longest_player").fill_null(0).cast(pl.Int32),
            **{f"{side}_pct": pl.col(side) * 100.0 / pl.col("rounds") for side in _WORDS},
        )
        .select(
            *(["shoe"] if multi else []),
            "rounds",
            *_WORDS,
            *(f"{side}_pct" for side in _WORDS),
            *_FLAG_COUNTS,
            "streak_side",
            "streak",
            "longest_banker",
            "longest_player",
        )
    )
    return out.collect()


def shoe_stats(rounds: pl.DataFrame) -> dict[str, Any]:
    """Statistics of one shoe as a dict (keys as the columns of `shoe_stats_many`).

    Percentages are None for a shoe with no rounds; flag counts no round recorded are
    ``"unknown"``; ``streak_side`` is ``"B"``/``"P"`` or None before the first B/P result.
    """
    checked = check_rounds(rounds)
    if "shoe" in checked.columns:
        shoes = checked["shoe"].n_unique()
        if shoes > 1:
            raise RoundError(Message("msg_stats_one_shoe", count=shoes))
        checked = checked.drop("shoe")
    frame = shoe_stats_many(checked)
    if frame.height == 0:
        return {
            "rounds": 0,
            **dict.fromkeys(_WORDS, 0),
            **dict.fromkeys((f"{side}_pct" for side in _WORDS), None),
            **dict.fromkeys(_FLAG_COUNTS, UNKNOWN),
            "streak_side": None,
            "streak": 0,
            "longest_banker": 0,
            "longest_player": 0,
        }
    row = frame.row(0, named=True)
    return {k: UNKNOWN if k in _FLAG_COUNTS and v is None else v for k, v in row.items()}


@dataclass(frozen=True, slots=True)
class FlagCount:
    """How many rounds had a flag, out of the rounds that recorded it.

    A shoe keyed by winner with a few rounds entered with the pair toggles has seen
    only those few rounds' pairs: "2" alone would read as 2 in the whole shoe.
    """

    hits: int
    recorded: int  # rounds whose flag is known (true or false)
    rounds: int  # all rounds of the shoe

    @property
    def complete(self) -> bool:
        """Every round recorded the flag: the count is the shoe's."""
        return self.recorded == self.rounds

    @property
    def known(self) -> bool:
        """At least one round recorded the flag."""
        return self.recorded > 0


def flag_counts(rounds: pl.DataFrame) -> dict[str, FlagCount]:
    """Each flag of `FLAGS` counted with its denominator: the one count every page shows.

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> flag_counts(rounds_from_winners("BPT"))["banker_pair"]
    FlagCount(hits=0, recorded=0, rounds=3)
    """
    frame = check_rounds(rounds)
    if "shoe" in frame.columns and frame["shoe"].n_unique() > 1:
        raise RoundError(Message("msg_flags_one_shoe", count=frame["shoe"].n_unique()))
    row = frame.select(
        _rounds=pl.len(),
        **{f"{f}_hits": pl.col(f).fill_null(False).sum() for f in FLAGS},
        **{f"{f}_recorded": pl.col(f).count() for f in FLAGS},
    ).row(0, named=True)
    n = int(row["_rounds"])
    return {f: FlagCount(int(row[f"{f}_hits"] or 0), int(row[f"{f}_recorded"]), n) for f in FLAGS}


def side_now(winners: list[str]) -> Side:
    """The big road's side now: the last result that was not a tie (Banker before any).
    A good-road badge takes its colour.

    >>> side_now(["P", "B", "T"]), side_now(["T"]), side_now([])
    (<Side.BANKER: 'B'>, <Side.BANKER: 'B'>, <Side.BANKER: 'B'>)
    >>> side_now(["B", "P", "T", "T"])
    <Side.PLAYER: 'P'>
    """
    return next((Side(w) for w in reversed(winners) if w != Winner.TIE), Side.BANKER)
