"""The rounds frame: one Polars schema for every round, however it came in.

A round entered by outcome alone has nulls where it has no data (points, flags,
cards); a round with cards has every column derived from them. A frame of many
shoes adds a leading ``shoe`` column (`MULTI_SHOE_SCHEMA`).

Entry operations are pure functions (old frame in, new frame out) so the dashboard
can call them and keep the previous frame when one raises.

>>> rounds_from_winners("bp pt b")["winner"].to_list()
['B', 'P', 'P', 'T', 'B']
>>> r = add_cards(empty_rounds(), ["9s", "Kd"], ["5c", "2h"])
>>> r.row(0, named=True)["winner"], r.row(0, named=True)["player_natural"]
('P', True)
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, Literal

import polars as pl

from roads_app.errors import RoundError, ShoeCompositionError
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import Hand, check_hand

WINNERS: tuple[str, str, str] = ("B", "P", "T")
WINNER = pl.Enum(list(WINNERS))
"""Banker, Player, Tie."""

ROUNDS_SCHEMA: pl.Schema = pl.Schema(
    {
        "round": pl.Int32,  # 1-based within the shoe
        "winner": WINNER,
        "player_points": pl.Int8,  # 0-9, null if entered by winner only
        "banker_points": pl.Int8,
        "player_pair": pl.Boolean,  # first two cards of equal rank; null if unknown
        "banker_pair": pl.Boolean,
        "player_natural": pl.Boolean,  # two-card 8 or 9; null if unknown
        "banker_natural": pl.Boolean,
        "player_cards": pl.List(pl.String),  # canonical codes in deal order; null if none
        "banker_cards": pl.List(pl.String),
    }
)
"""Columns of one shoe's rounds, in order."""

MULTI_SHOE_SCHEMA: pl.Schema = pl.Schema({"shoe": pl.Int32, **ROUNDS_SCHEMA})
"""Rounds of many shoes: `ROUNDS_SCHEMA` plus a leading shoe number."""

Source = Literal["hand", "simulated", "imported"]
SOURCES: tuple[str, ...] = ("hand", "simulated", "imported")


@dataclass(frozen=True)
class ShoeMeta:
    """What travels with a shoe besides its rounds (kept in the Parquet file's metadata)."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    name: str = ""
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    source: str = "hand"
    decks: int = 8
    seed: int | None = None
    rules: str = "classic"
    notes: str = ""
    burn_card: str | None = None  # the face-up first card, where the shoe records it
    cut: int | None = None

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise RoundError(f"shoe source {self.source!r} is not one of {', '.join(SOURCES)}")
        if not isinstance(self.decks, int) or not 1 <= self.decks <= 8:
            raise RoundError(f"decks {self.decks!r} is out of range: a shoe has 1 to 8 decks")
        if self.burn_card is not None:
            object.__setattr__(self, "burn_card", playing_cards.parse_card(self.burn_card))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ShoeMeta:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


def empty_rounds() -> pl.DataFrame:
    """A shoe with no rounds yet."""
    return ROUNDS_SCHEMA.to_frame()


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=ROUNDS_SCHEMA, orient="row") if rows else empty_rounds()


def _renumber(rounds: pl.DataFrame) -> pl.DataFrame:
    return rounds.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int32).alias("round"))


# --- building one round --------------------------------------------------------------


def _winner(w: object) -> str:
    text = str(w).strip().upper() if w is not None else ""
    aliases = {"BANKER": "B", "PLAYER": "P", "TIE": "T"}
    text = aliases.get(text, text)
    if text not in WINNERS:
        raise RoundError(f"winner {w!r} is not B (banker), P (player) or T (tie)")
    return text


def round_by_winner(
    winner: str,
    *,
    player_pair: bool | None = None,
    banker_pair: bool | None = None,
    player_natural: bool | None = None,
    banker_natural: bool | None = None,
) -> dict[str, Any]:
    """A round known by its result (and optionally pair/natural flags) only."""
    w = _winner(winner)
    if player_natural and banker_natural is False and w != "P":
        raise RoundError(f"player natural against no banker natural means player wins, not {w}")
    if banker_natural and player_natural is False and w != "B":
        raise RoundError(f"banker natural against no player natural means banker wins, not {w}")
    return {
        "round": 0,
        "winner": w,
        "player_points": None,
        "banker_points": None,
        "player_pair": player_pair,
        "banker_pair": banker_pair,
        "player_natural": player_natural,
        "banker_natural": banker_natural,
        "player_cards": None,
        "banker_cards": None,
    }


def round_by_points(
    player_points: int,
    banker_points: int,
    *,
    winner: str | None = None,
    player_pair: bool | None = None,
    banker_pair: bool | None = None,
    player_natural: bool | None = None,
    banker_natural: bool | None = None,
) -> dict[str, Any]:
    """A round known by its two totals; the winner follows from them."""
    for side, pts in (("player", player_points), ("banker", banker_points)):
        if isinstance(pts, bool) or not isinstance(pts, int) or not 0 <= pts <= 9:
            raise RoundError(f"{side} points {pts!r} out of range: a total is 0 to 9")
    w = "B" if banker_points > player_points else "P" if player_points > banker_points else "T"
    if winner is not None and _winner(winner) != w:
        raise RoundError(
            f"winner {_winner(winner)} disagrees with the points: "
            f"player {player_points}, banker {banker_points} means {w}"
        )
    for side, pts, nat in (
        ("player", player_points, player_natural),
        ("banker", banker_points, banker_natural),
    ):
        if nat and pts < 8:
            raise RoundError(f"{side} natural with {pts} points: a natural is 8 or 9")
    row = round_by_winner(
        w,
        player_pair=player_pair,
        banker_pair=banker_pair,
        player_natural=player_natural,
        banker_natural=banker_natural,
    )
    row["player_points"], row["banker_points"] = player_points, banker_points
    return row


def round_from_hand(hand: Hand) -> dict[str, Any]:
    """A round with cards: every column derived from them."""
    return {
        "round": 0,
        "winner": hand.winner,
        "player_points": hand.player_points,
        "banker_points": hand.banker_points,
        "player_pair": hand.player_pair,
        "banker_pair": hand.banker_pair,
        "player_natural": hand.player_natural,
        "banker_natural": hand.banker_natural,
        "player_cards": list(hand.player_cards),
        "banker_cards": list(hand.banker_cards),
    }


def round_by_cards(player_cards: Sequence[str] | str, banker_cards: Sequence[str] | str) -> dict:
    """A round entered by its cards, checked against the drawing rules."""
    return round_from_hand(
        check_hand(playing_cards.parse_cards(player_cards), playing_cards.parse_cards(banker_cards))
    )


# --- the entry operations -------------------------------------------------------------


def check_composition(rounds: pl.DataFrame, decks: int = 8, also_seen: Iterable[str] = ()) -> None:
    """Refuse a shoe that holds more copies of a card than its decks do."""
    counts = Counter(playing_cards.parse_card(c) for c in also_seen)
    if "player_cards" in rounds.columns and rounds.height:
        seen = (
            rounds.select(
                pl.concat_list(
                    pl.col("player_cards").fill_null([]), pl.col("banker_cards").fill_null([])
                ).alias("c")
            )
            .explode("c")
            .drop_nulls()
            .group_by("c")
            .len()
        )
        for code, n in seen.iter_rows():
            counts[code] += n
    over = [(c, n) for c, n in counts.items() if n > decks]
    if over:
        code, n = max(over, key=lambda x: x[1])
        first = _first_round_exceeding(rounds, code, decks)
        where = f" (the extra one in round {first})" if first else ""
        raise ShoeCompositionError(
            f"{n} × {code} seen but the {decks}-deck shoe holds only {decks}{where}"
        )


def _first_round_exceeding(rounds: pl.DataFrame, code: str, decks: int) -> int | None:
    n = 0
    for r, pc, bc in rounds.select("round", "player_cards", "banker_cards").iter_rows():
        n += (pc or []).count(code) + (bc or []).count(code)
        if n > decks:
            return int(r)
    return None


def _append(rounds: pl.DataFrame, row: dict[str, Any], decks: int) -> pl.DataFrame:
    out = _renumber(pl.concat([rounds.select(ROUNDS_SCHEMA.names()), _frame([row])]))
    if row["player_cards"] is not None:
        check_composition(out, decks)
    return out


def add_winner(rounds: pl.DataFrame, winner: str, *, decks: int = 8, **flags: Any) -> pl.DataFrame:
    """Add a round by its result, with optional pair/natural flags."""
    return _append(rounds, round_by_winner(winner, **flags), decks)


def add_points(
    rounds: pl.DataFrame, player_points: int, banker_points: int, *, decks: int = 8, **kw: Any
) -> pl.DataFrame:
    """Add a round by its totals (a winner given too must agree)."""
    return _append(rounds, round_by_points(player_points, banker_points, **kw), decks)


def add_cards(
    rounds: pl.DataFrame,
    player_cards: Sequence[str] | str,
    banker_cards: Sequence[str] | str,
    *,
    decks: int = 8,
) -> pl.DataFrame:
    """Add a round by its cards, checked against the drawing rules and the shoe's decks."""
    return _append(rounds, round_by_cards(player_cards, banker_cards), decks)


def can_undo(rounds: pl.DataFrame) -> bool:
    """Whether there is a round to take back."""
    return rounds.height > 0


def undo(rounds: pl.DataFrame) -> pl.DataFrame:
    """Take back the last round."""
    if not can_undo(rounds):
        raise RoundError("nothing to undo: the shoe has no rounds")
    return rounds.slice(0, rounds.height - 1)


def edit_round(
    rounds: pl.DataFrame, round_no: int, row: dict[str, Any], *, decks: int = 8
) -> pl.DataFrame:
    """Replace round ``round_no`` (1-based) with a row from one of the ``round_by_*`` builders."""
    if not 1 <= round_no <= rounds.height:
        raise RoundError(f"round {round_no} does not exist: the shoe has {rounds.height} rounds")
    i = round_no - 1
    out = _renumber(
        pl.concat([rounds.slice(0, i), _frame([row]), rounds.slice(i + 1)]).select(
            ROUNDS_SCHEMA.names()
        )
    )
    check_composition(out, decks)
    return out


def rounds_from_winners(text: str) -> pl.DataFrame:
    """Rounds from a string of results like ``"BPPTB"`` (spaces and lower case allowed)."""
    letters = [ch for ch in text.upper() if not ch.isspace() and ch not in ",;"]
    bad = [(i, ch) for i, ch in enumerate(letters) if ch not in WINNERS]
    if bad:
        i, ch = bad[0]
        raise RoundError(f"result {i + 1} is {ch!r}: results are B, P or T")
    return _renumber(
        pl.DataFrame({"winner": letters}, schema={"winner": WINNER}).with_columns(
            [pl.lit(None, dtype=t).alias(n) for n, t in ROUNDS_SCHEMA.items() if n != "winner"]
        )
    ).select(ROUNDS_SCHEMA.names())


def rounds_from_hands(hands: Sequence[Hand]) -> pl.DataFrame:
    """Rounds from dealt hands (cards known), numbered from 1; built column-wise for speed."""
    pc = [list(h.player_cards) for h in hands]
    bc = [list(h.banker_cards) for h in hands]
    pp = [playing_cards.points(c) for c in pc]
    bp = [playing_cards.points(c) for c in bc]
    data = {
        "round": range(1, len(hands) + 1),
        "winner": ["B" if b > p else "P" if p > b else "T" for p, b in zip(pp, bp, strict=True)],
        "player_points": pp,
        "banker_points": bp,
        "player_pair": [playing_cards.is_pair(c) for c in pc],
        "banker_pair": [playing_cards.is_pair(c) for c in bc],
        "player_natural": [playing_cards.is_natural(c) for c in pc],
        "banker_natural": [playing_cards.is_natural(c) for c in bc],
        "player_cards": pc,
        "banker_cards": bc,
    }
    return pl.DataFrame(data, schema=ROUNDS_SCHEMA)


def derive_from_cards(rounds: pl.DataFrame) -> pl.DataFrame:
    """Recompute points, winner, pairs and naturals from the card lists, vectorised.

    Rows without cards keep what they have. Used to check imported files.
    """
    point_of = {
        code: playing_cards.RANK_POINTS[i // 4] for i, code in enumerate(playing_cards.ALL_CARDS)
    }
    rank_of = {code: code[0] for code in playing_cards.ALL_CARDS}

    def hand(col: str) -> dict[str, pl.Expr]:
        lst = pl.col(col)
        total = (
            lst.list.eval(pl.element().replace_strict(point_of, return_dtype=pl.Int32)).list.sum()
            % 10
        ).cast(pl.Int8)
        two = (
            lst.list.head(2)
            .list.eval(pl.element().replace_strict(point_of, return_dtype=pl.Int32))
            .list.sum()
            % 10
        )
        r0 = lst.list.get(0, null_on_oob=True).replace_strict(rank_of, default=None)
        r1 = lst.list.get(1, null_on_oob=True).replace_strict(rank_of, default=None)
        side = col.split("_")[0]
        has = lst.is_not_null()
        return {
            f"{side}_points": pl.when(has).then(total).otherwise(pl.col(f"{side}_points")),
            f"{side}_natural": pl.when(has).then(two >= 8).otherwise(pl.col(f"{side}_natural")),
            f"{side}_pair": pl.when(has).then(r0 == r1).otherwise(pl.col(f"{side}_pair")),
        }

    out = rounds.with_columns(**hand("player_cards"), **hand("banker_cards"))
    has = pl.col("player_cards").is_not_null()
    return out.with_columns(
        winner=pl.when(has).then(winner_from_points()).otherwise(pl.col("winner"))
    )


def winner_from_points() -> pl.Expr:
    """The winner the two totals decide (null where a total is unknown)."""
    return (
        pl.when(pl.col("banker_points") > pl.col("player_points"))
        .then(pl.lit("B"))
        .when(pl.col("player_points") > pl.col("banker_points"))
        .then(pl.lit("P"))
        .when(pl.col("player_points") == pl.col("banker_points"))
        .then(pl.lit("T"))
        .cast(WINNER)
    )
