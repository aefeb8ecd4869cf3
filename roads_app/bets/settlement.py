"""Bet settlement: a frame of bets against a frame of rounds, in one Polars query.

`settle_features` turns rounds into what bets settle on (pairs from flags or cards,
suited pairs and card counts from cards, banker-wins-with-6, tie total); `settle` joins
the bets to those features and to the table's payouts and decides every bet with one
``when/then`` chain per question (offered? within limits? open? voided? dealt? enough
data? won?), so a million bets cost the same code path as one.

Outcomes: ``win`` (net = stake x payout), ``lose`` (net = -stake), ``push`` (Player or
Banker on a tie, net 0), ``refund`` (voided round, or a Natural bet on a natural tie,
net 0), ``refused`` (never placed, net 0, with the reason).

A round entered by winner only still settles what its winner decides: a Super 6 bet
loses on a Player win without any totals, but is refused on a Banker win without the
banker total.

>>> from roads_app.game.rounds import rounds_from_winners
>>> from roads_app.bets.tables import load_table
>>> bets = pl.DataFrame({"round": [1, 2, 3], "bet": ["banker", "banker", "tie"], "stake": 10.0})
>>> out = settle(rounds_from_winners("BTP"), bets, load_table("classic"))
>>> out["outcome"].to_list(), out["net"].to_list()
(['win', 'push', 'lose'], [9.5, 0.0, -10.0])
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import overload

import numpy as np
import polars as pl

from roads_app.bets.spec import (
    KINDS,
    LOSE,
    NEEDS_TEXT,
    PAIR_CELLS,
    PLAY_CELLS,
    POSSIBLE_PLAY,
    PUSH,
    REFUND,
    BetKind,
    Outcome,
    cell_results,
)
from roads_app.bets.tables import (
    BET_LABELS,
    SHORTCUT_LABELS,
    Table,
    closed_after,
    known_bets,
    limits_text,
    not_offered_reason,
)
from roads_app.errors import BetError, RoundError
from roads_app.game import cards
from roads_app.game.hand import (
    RANK_PAIR,
    SUITED,
    SUITS_PER_RANK,
    WINNER_DTYPE,
    Side,
    hand_total,
    natural,
    pair_state_expr,
)
from roads_app.game.rounds import ROUNDS_SCHEMA
from roads_app.messages import Message, fields_of, parse, polars_template

OUTCOMES: tuple[str, ...] = tuple(o.value for o in Outcome if o is not Outcome.PENDING)
OUTCOME = pl.Enum(list(OUTCOMES))
"""Outcome dtype of `settle`'s ``outcome`` column."""

FEATURES_SCHEMA: pl.Schema = pl.Schema(
    {
        "round": pl.Int32,
        "winner": WINNER_DTYPE,
        "player_points": pl.Int8,
        "banker_points": pl.Int8,
        "player_natural": pl.Boolean,  # flag, else from the first two cards
        "banker_natural": pl.Boolean,
        "player_pair": pl.Boolean,  # flag, else from the first two cards
        "banker_pair": pl.Boolean,
        "player_suited_pair": pl.Boolean,  # same rank and suit; cards only
        "banker_suited_pair": pl.Boolean,
        "player_cards": pl.Int8,  # cards in the player's hand (2 or 3); cards only
        "banker_cards": pl.Int8,
    }
)
"""Per-round features bets settle on (plus a leading ``shoe`` for multi-shoe frames).

Null means the round was entered without the data to know it.
"""

_CARD = pl.Enum(list(cards.ALL_CARDS))
"""Card codes as an Enum whose physical value is the card number."""


def _rank_points(rank: pl.Expr) -> pl.Expr:
    """Baccarat points of a rank index (A=0 .. K=12), read from `cards.RANK_POINTS`."""
    return rank.replace_strict(  # null stays null
        dict(enumerate(cards.RANK_POINTS)), default=None, return_dtype=pl.Int64
    )


@overload
def settle_features(rounds: pl.DataFrame) -> pl.DataFrame: ...
@overload
def settle_features(rounds: pl.LazyFrame) -> pl.LazyFrame: ...


def settle_features(rounds: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
    """The features of each round that bets settle on (`FEATURES_SCHEMA`).

    Eager in, eager out; a LazyFrame gives a LazyFrame (`settle` joins it lazily).

    Flags as entered come first; cards, where present, fill the flags a round lacks.

    >>> from roads_app.game.rounds import add_cards, empty_rounds
    >>> r = add_cards(empty_rounds(), ["7s", "7s", "2d"], ["5h", "Kc"])
    >>> f = settle_features(r).row(0, named=True)
    >>> f["player_suited_pair"], f["player_cards"], f["banker_cards"], f["winner"]
    (True, 3, 2, 'P')
    """
    lf = rounds.lazy()
    keys = ["shoe"] if "shoe" in lf.collect_schema().names() else []

    side_cols: dict[str, pl.Expr] = {}
    for side in (Side.PLAYER.word, Side.BANKER.word):
        lst = pl.col(f"{side}_cards")
        # Card numbers (rank_index*4 + suit_index) of the first two cards: integer work
        # from here on instead of string slicing.
        a, b = (
            lst.list.get(i, null_on_oob=True).cast(_CARD, strict=False).to_physical()
            for i in (0, 1)
        )
        ra, rb = a // SUITS_PER_RANK, b // SUITS_PER_RANK
        two = hand_total(_rank_points(ra) + _rank_points(rb))
        pairs = pair_state_expr(a, b)
        side_cols[f"{side}_natural"] = pl.coalesce(pl.col(f"{side}_natural"), natural(two))
        side_cols[f"{side}_pair"] = pl.coalesce(pl.col(f"{side}_pair"), pairs >= RANK_PAIR)
        side_cols[f"{side}_suited_pair"] = pairs == SUITED
    w = pl.col("winner")
    out = lf.select(
        *keys,
        pl.col("round").cast(pl.Int32),
        w.cast(FEATURES_SCHEMA["winner"]),
        pl.col("player_points").cast(pl.Int8),
        pl.col("banker_points").cast(pl.Int8),
        **side_cols,
        player_cards=pl.col("player_cards").list.len().cast(pl.Int8),
        banker_cards=pl.col("banker_cards").list.len().cast(pl.Int8),
    )
    return out.collect() if isinstance(rounds, pl.DataFrame) else out


def _check_rounds(rounds: pl.DataFrame, multi: bool) -> None:
    """A frame missing columns or repeating a round would settle bets wrongly: refuse it."""
    missing = [c for c in ROUNDS_SCHEMA.names() if c not in rounds.columns]
    if missing:
        raise RoundError(Message("msg_rounds_lack_column", columns=", ".join(map(repr, missing))))
    keys = ["shoe", "round"] if multi else ["round"]
    # Order-preserving key; a frame in strictly increasing order (the usual case) has no
    # repeats, and checking that costs far less than hashing every key.
    key = pl.col("round").cast(pl.Int64)
    if multi:
        key = pl.col("shoe").cast(pl.Int64) * 2**32 + key
    if rounds.select((key.diff() > 0).all()).item():
        return
    dup = rounds.select(keys).filter(pl.struct(keys).is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        where = (
            Message("msg_shoe_round", shoe=row["shoe"], n=row["round"])
            if multi
            else Message("msg_round", n=row["round"])
        )
        raise RoundError(Message("msg_rounds_hold_twice", where=where))


def _check_bets(bets: pl.DataFrame, multi: bool) -> None:
    need = ["shoe", "round", "bet", "stake"] if multi else ["round", "bet", "stake"]
    missing = [c for c in need if c not in bets.columns]
    if missing:
        columns = ", ".join(map(repr, missing))
        raise BetError(
            Message("msg_bets_lack_column_many", columns=columns, shoe="shoe")
            if multi
            else Message("msg_bets_lack_column", columns=columns)
        )
    for c in need:
        dt = bets.schema[c]
        if c in ("shoe", "round") and not dt.is_integer():
            raise BetError(Message("msg_bets_column_whole", column=repr(c), dtype=str(dt)))
        if c == "stake" and not dt.is_numeric():
            raise BetError(Message("msg_bets_column_numbers", column=repr(c), dtype=str(dt)))
        if c == "bet" and dt not in (pl.String, pl.Categorical) and not isinstance(dt, pl.Enum):
            raise BetError(Message("msg_bets_column_names", column=repr(c), dtype=str(dt)))
        nulls = bets[c].null_count()
        if nulls:
            raise BetError(Message("msg_bets_column_nulls", column=repr(c), n=nulls))


def _voided_frame(voided: Iterable[int] | Iterable[tuple[int, int]], multi: bool) -> pl.DataFrame:
    items = list(voided)
    if multi:
        try:
            shoes, rounds = zip(*items, strict=True) if items else ((), ())
        except (TypeError, ValueError):
            raise BetError(Message("msg_voided_pairs")) from None
        return pl.DataFrame(
            {"shoe": list(shoes), "__r": list(rounds), "__void": True},
            schema={"shoe": pl.Int64, "__r": pl.Int64, "__void": pl.Boolean},
        ).unique()
    if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in items):
        raise BetError(Message("msg_voided_rounds"))
    items = [int(v) for v in items]
    return pl.DataFrame(
        {"__r": items, "__void": True}, schema={"__r": pl.Int64, "__void": pl.Boolean}
    ).unique()


def _params(table: Table) -> pl.DataFrame:
    """One row per bet the table offers: closing round, label, what it needs, its space."""
    ids = list(table.bets)
    return pl.DataFrame(
        {
            "bet": ids,
            "__offered": [True] * len(ids),
            "__closes": [table.bets[b].closes_after for b in ids],
            "__label": [table.bets[b].label for b in ids],
            "__needs": [needs_text(KINDS[b]) for b in ids],
            "__pairs": [KINDS[b].space == "pairs" for b in ids],
        },
        schema={
            "bet": pl.String,
            "__offered": pl.Boolean,
            "__closes": pl.Int64,
            "__label": pl.String,
            "__needs": pl.String,
            "__pairs": pl.Boolean,
        },
    )


def needs_text(kind: BetKind) -> Message:
    """What a round must show to settle ``kind``, in the words of a refusal."""
    items = [i for i in kind.needs if i != "winner"]
    if {"cards", "suits"} & set(items):
        return NEEDS_TEXT["cards"]
    if not items:
        return NEEDS_TEXT["winner"]
    said = NEEDS_TEXT[items[-1]]
    for item in reversed(items[:-1]):  # "a and b and c", as the catalogue joins two
        said = Message("msg_and", a=NEEDS_TEXT[item], b=said)
    return said


def read_reason(reason: str | None, table: Table) -> Message | None:
    """The message a `settle` reason was written from (None: not one of ours), with the
    bet named as a message too: the table's label in English, its kind's name elsewhere.

    >>> from roads_app.bets.tables import load_table
    >>> read_reason("round 3 lacks pair flags or cards to settle Player Pair",
    ...             load_table("classic")).text("zh")
    '第 3 局缺少对子标记或牌，无法结算闲对'
    """
    names = {
        label: Message.named(label, f"bet_{k}")
        for k, label in (*BET_LABELS.items(), *SHORTCUT_LABELS.items())
    }
    names |= {b.label: Message.named(b.label, f"bet_{k}") for k, b in table.bets.items()}
    return parse(reason, inner={"bet": names.get})


def _said(key: str, **fields: pl.Expr | object) -> pl.Expr:
    """A `Message`'s English row by row: ``key``'s template, each field a column or a
    value, so the column reads back into the message (`roads_app.messages.parse`)."""
    parts = [
        f if isinstance(f, pl.Expr) else pl.lit(str(f), dtype=pl.String)
        for f in (fields[name] for name in fields_of(key))
    ]
    return pl.format(polars_template(key), *parts)


# --- what a round's data decides ------------------------------------------------------------
#
# A round is an *observation*: each feature known or null. Observations are coded as one
# integer per space (null = its own code); for each distinct code present, the cells the
# observation allows are found, and a bet is decided there when every allowed cell gives
# it the same outcome and net. Rounds with cards allow exactly one cell.

_PLAY_ATTR = {
    "winner": np.array([c.winner.code for c in PLAY_CELLS]),
    "player_points": np.array([c.player_points for c in PLAY_CELLS]),
    "banker_points": np.array([c.banker_points for c in PLAY_CELLS]),
    "player_cards": np.array([c.player_cards for c in PLAY_CELLS]),
    "banker_cards": np.array([c.banker_cards for c in PLAY_CELLS]),
    "player_natural": np.array([c.player_natural for c in PLAY_CELLS], dtype=np.int64),
    "banker_natural": np.array([c.banker_natural for c in PLAY_CELLS], dtype=np.int64),
}
# (feature, number of values incl. null, how a known value is coded)
_PLAY_KEY: tuple[tuple[str, int], ...] = (
    ("winner", 4),  # a dealt round always has a winner (3 would be null)
    ("player_points", 11),
    ("banker_points", 11),
    ("player_cards", 5),  # 2 or 3 cards; 4 = null
    ("banker_cards", 5),
    ("player_natural", 3),
    ("banker_natural", 3),
)
_PAIR_ATTR = {
    "player_pair": np.array([c.player >= 1 for c in PAIR_CELLS], dtype=np.int64),
    "banker_pair": np.array([c.banker >= 1 for c in PAIR_CELLS], dtype=np.int64),
    "player_suited_pair": np.array([c.player == 2 for c in PAIR_CELLS], dtype=np.int64),
    "banker_suited_pair": np.array([c.banker == 2 for c in PAIR_CELLS], dtype=np.int64),
}
_PAIR_KEY: tuple[tuple[str, int], ...] = tuple((f, 3) for f in _PAIR_ATTR)


def _code(feature: str, size: int) -> pl.Expr:
    """A feature as a small integer, the null code being ``size - 1``."""
    col = pl.col(f"__{feature}")
    # the winner Enum's physical values are the codes (`Winner.code`)
    val = col.to_physical() if feature == "winner" else col
    return val.cast(pl.Int64).fill_null(size - 1)


def _key(spec: tuple[tuple[str, int], ...]) -> pl.Expr:
    key = pl.lit(0, dtype=pl.Int64)
    for feature, size in spec:
        key = key * size + _code(feature, size)
    return key


def _allowed(keys: np.ndarray, spec: tuple[tuple[str, int], ...], attr: dict) -> np.ndarray:
    """keys × cells: which cells each observation code allows."""
    n_cells = len(next(iter(attr.values())))
    ok = np.ones((len(keys), n_cells), dtype=np.bool_)
    rest = keys.copy()
    for feature, size in reversed(spec):
        val = rest % size
        rest //= size
        known = val != size - 1
        ok &= ~known[:, None] | (attr[feature][None, :] == val[:, None])
    return ok


_NOT_WON = (LOSE, PUSH, REFUND)
"""Results that are their own outcome; every other result is a payout key: a win."""


def _decisions(
    table: Table, keys: np.ndarray, space: str, possible: np.ndarray | None
) -> pl.DataFrame:
    """bet × observation code -> outcome and net per unit, where the observation decides."""
    spec, attr = (_PLAY_KEY, _PLAY_ATTR) if space == "play" else (_PAIR_KEY, _PAIR_ATTR)
    ok = _allowed(keys, spec, attr)
    if possible is not None:
        ok &= possible[None, :]
    parts = []
    for bet in table.bets.values():
        kind = KINDS[bet.id]
        if kind.space != space:
            continue
        results = cell_results(kind)
        names = [r if r in _NOT_WON else Outcome.WIN.value for r in results]
        units = [
            bet.payouts[r] if r not in _NOT_WON else (-1.0 if r == LOSE else 0.0) for r in results
        ]
        # one id per distinct (outcome, net): a bet is decided when all allowed cells agree
        pairs = sorted(set(zip(names, units, strict=True)))
        ids = np.array([pairs.index(x) for x in zip(names, units, strict=True)])
        lo = np.where(ok, ids[None, :], len(pairs)).min(axis=1)
        hi = np.where(ok, ids[None, :], -1).max(axis=1)
        decided = (lo == hi) & (hi >= 0)
        which = np.where(decided, lo, len(pairs))  # len(pairs): undecided, null below
        parts.append(
            pl.DataFrame(
                {
                    "bet": pl.Series([bet.id]).new_from_index(0, len(keys)),
                    "__key": keys,
                    "__result": pl.Series([p[0] for p in pairs] + [None]).gather(which),
                    "__unit": pl.Series([p[1] for p in pairs] + [None]).gather(which),
                },
                schema=_DECIDED,
            )
        )
    return pl.concat(parts) if parts else _DECIDED.to_frame()


_DECIDED = pl.Schema(
    {"bet": pl.String, "__key": pl.Int64, "__result": pl.String, "__unit": pl.Float64}
)


def _num_text(x: pl.Expr) -> pl.Expr:
    """``10`` rather than ``10.0`` for whole stakes in reasons."""
    whole = x.is_finite() & (x == x.floor()) & (x.abs() < 1e15)
    return (
        pl.when(whole)
        .then(x.cast(pl.Int64, strict=False).cast(pl.String))
        .otherwise(x.cast(pl.String))
    )


def settle(
    rounds: pl.DataFrame,
    bets: pl.DataFrame,
    table: Table,
    voided: Iterable[int] | Iterable[tuple[int, int]] = (),
) -> pl.DataFrame:
    """Settle every bet: the bets' columns plus ``shortcut``, ``outcome``, ``net``, ``reason``.

    ``rounds`` is a rounds frame (`ROUNDS_SCHEMA`), or a many-shoe one with ``shoe``, in
    which case bets need ``shoe`` too and ``voided`` holds (shoe, round) pairs. ``bets``
    has ``round``, ``bet`` (a bet id or one of the table's shortcuts) and ``stake``; any
    other columns are kept. A shortcut becomes one row per bet it stands for, each with
    the full stake and ``shortcut`` naming it (null on plain bets). A boolean ``voided``
    column in ``bets``, where present, refunds those bets like ``voided`` rounds do.
    Rows keep the bets' order.
    """
    multi = "shoe" in rounds.columns
    _check_rounds(rounds, multi)
    _check_bets(bets, multi)
    keys = ["shoe", "__r"] if multi else ["__r"]
    has_void_col = "voided" in bets.columns and bets.schema["voided"] == pl.Boolean
    lim = table.limits

    sc_rows = [(s, u) for s, unders in table.shortcuts.items() for u in unders]
    expand = pl.DataFrame(
        {"__sc": [s for s, _ in sc_rows], "__under": [u for _, u in sc_rows]},
        schema={"__sc": pl.String, "__under": pl.String},
    )

    # Feature columns get a "__" prefix so a bets column of the same name cannot shadow them.
    feats = settle_features(rounds.lazy())
    feats = feats.rename({c: f"__{c}" for c in FEATURES_SCHEMA.names() if c != "round"})
    feats = feats.rename({"round": "__r"}).with_columns(
        pl.col("__r").cast(pl.Int64), __dealt=pl.lit(True)
    )
    if multi:
        feats = feats.with_columns(pl.col("shoe").cast(pl.Int64))
    # Observation codes of each dealt round, and what each code decides for each bet.
    feats_df = feats.with_columns(__pk=_key(_PLAY_KEY), __qk=_key(_PAIR_KEY)).collect()
    decided = pl.concat(
        [
            _decisions(table, feats_df["__pk"].unique().to_numpy(), "play", POSSIBLE_PLAY),
            _decisions(table, feats_df["__qk"].unique().to_numpy(), "pairs", None),
        ]
    )

    lf = (
        bets.lazy()
        .with_columns(pl.col("bet").cast(pl.String), pl.col("stake").cast(pl.Float64))
        .join(expand.lazy(), left_on="bet", right_on="__sc", how="left", maintain_order="left")
        .with_columns(
            shortcut=pl.when(pl.col("__under").is_not_null()).then(pl.col("bet")),
            bet=pl.coalesce("__under", "bet"),
            __r=pl.col("round").cast(pl.Int64),
            **({"shoe": pl.col("shoe").cast(pl.Int64)} if multi else {}),
        )
        .drop("__under")
        .with_row_index("__i")  # the joins below may reorder rows; sorted back at the end
        .join(_params(table).lazy(), on="bet", how="left")
        .join(feats_df.lazy(), on=keys, how="left")
        .join(_voided_frame(voided, multi).lazy(), on=keys, how="left")
        .with_columns(
            __key=pl.when(pl.col("__pairs")).then(pl.col("__qk")).otherwise(pl.col("__pk"))
        )
        .join(decided.lazy(), on=["bet", "__key"], how="left")
    )

    bet, stake, rnd = pl.col("bet"), pl.col("stake"), pl.col("__r")
    lacking = pl.col("__result").is_null()
    payout = pl.col("__unit")

    offered = pl.col("__offered").fill_null(False)
    bad_stake = stake.is_nan() | (stake < lim.min_bet) | (stake > lim.max_bet)
    closed = closed_after(rnd, pl.col("__closes")).fill_null(False)  # null: never closes
    void = pl.col("__void").fill_null(False)
    if has_void_col:
        void = void | pl.col("voided").fill_null(False)
    dealt = pl.col("__dealt").fill_null(False)

    refusals = {
        name: not_offered_reason(table, name)
        for name in (*BET_LABELS, *SHORTCUT_LABELS)
        if name not in table.bets and name not in table.shortcuts
    }
    known_refusal = (
        bet.replace_strict(refusals, default=None, return_dtype=pl.String)
        if refusals
        else pl.lit(None, dtype=pl.String)
    )
    unknown_reason = _said("msg_unknown_bet", bet=pl.format("'{}'", bet), known=known_bets())
    where = (
        _said("msg_shoe_round", shoe=pl.col("shoe"), n=rnd) if multi else _said("msg_round", n=rnd)
    )
    needs = pl.col("__needs")

    reason = (
        pl.when(~offered)
        .then(pl.coalesce(known_refusal, unknown_reason))
        .when(stake.is_nan())
        .then(pl.lit(str(Message("msg_not_a_number", stake="NaN"))))
        .when(bad_stake)
        .then(_said("msg_outside_limits", stake=_num_text(stake), limits=limits_text(lim)))
        .when(closed)
        .then(_said("msg_closes_after", bet=pl.col("__label"), closes=pl.col("__closes"), n=rnd))
        .when(void)
        .then(pl.lit(None, dtype=pl.String))
        .when(~dealt)
        .then(_said("msg_round_not_dealt", where=where))
        .when(lacking)
        .then(_said("msg_round_lacks", where=where, needs=needs, bet=pl.col("__label")))
    )
    outcome = (
        pl.when(~offered | bad_stake | closed)
        .then(pl.lit(Outcome.REFUSED.value))
        .when(void)
        .then(pl.lit(REFUND))
        .when(~dealt | lacking)
        .then(pl.lit(Outcome.REFUSED.value))
        .otherwise(pl.col("__result"))
        .cast(OUTCOME)
    )
    out_cols = [c for c in bets.columns if c not in ("shortcut", "outcome", "net", "reason")]
    return (
        lf.with_columns(outcome=outcome, reason=reason, __pay=payout)
        .with_columns(
            net=pl.when(pl.col("outcome").is_in([Outcome.WIN.value, LOSE]))
            .then(stake * pl.col("__pay"))
            .otherwise(0.0)
        )
        .sort("__i")
        .select(
            *[
                pl.col(c).cast(bets.schema[c]) if c in ("shoe", "round") else pl.col(c)
                for c in out_cols
            ],
            pl.col("shortcut").cast(pl.String),
            "outcome",
            "net",
            "reason",
        )
        .collect()
    )
