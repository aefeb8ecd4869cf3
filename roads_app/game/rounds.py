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

import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal

import numpy as np
import polars as pl
from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass

from roads_app.errors import (
    RoadsAppError,
    RoundError,
    SchemaError,
    ShoeCompositionError,
    StorageError,
    quote,
    validation_message,
    whole_number,
)
from roads_app.game import MAX_DECKS
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import (
    BANKER_DRAWS_AFTER,
    BANKER_DRAWS_STOOD,
    PLAYER_DRAWS,
    Hand,
    check_hand,
)
from roads_app.game.hand import (
    NO_PAIR,
    PAIR_STATE,
    WINNER_DTYPE,
    WINNER_OF,
    WINNERS,
    Side,
    Winner,
    hand_total,
    natural,
    winner_of,
)
from roads_app.messages import Message, side
from roads_app.messages import winner as _named
from roads_app.places import DEFAULT_TABLE

WINNER = WINNER_DTYPE
"""Banker, Player, Tie (`roads_app.game.hand.Winner`'s letters)."""


class Flag(StrEnum):
    """A round's four flags, each a column of the rounds frame (null: not recorded): a
    pair in a hand's first two cards, a natural (8 or 9 on two cards)."""

    PLAYER_PAIR = "player_pair"
    BANKER_PAIR = "banker_pair"
    PLAYER_NATURAL = "player_natural"
    BANKER_NATURAL = "banker_natural"


FLAGS: tuple[Flag, ...] = tuple(Flag)
"""The four flags in the rounds frame's order."""

ROUNDS_SCHEMA: pl.Schema = pl.Schema(
    {
        "round": pl.Int32,  # 1-based within the shoe
        "winner": WINNER,
        "player_points": pl.Int8,  # 0-9, null if entered by winner only
        "banker_points": pl.Int8,
        Flag.PLAYER_PAIR.value: pl.Boolean,  # first two cards of equal rank; null if unknown
        Flag.BANKER_PAIR.value: pl.Boolean,
        Flag.PLAYER_NATURAL.value: pl.Boolean,  # two-card 8 or 9; null if unknown
        Flag.BANKER_NATURAL.value: pl.Boolean,
        "player_cards": pl.List(pl.String),  # canonical codes in deal order; null if none
        "banker_cards": pl.List(pl.String),
    }
)
"""Columns of one shoe's rounds, in order."""

MULTI_SHOE_SCHEMA: pl.Schema = pl.Schema({"shoe": pl.Int32, **ROUNDS_SCHEMA})
"""Rounds of many shoes: `ROUNDS_SCHEMA` plus a leading shoe number."""


class EntryMode(StrEnum):
    """How a round was (or will be) entered, least first: its winner only, its totals
    (with any pair and natural flags), its cards. A bet needs its kind's entry or more
    (`roads_app.bets.offers`); what a round holds follows from its mode."""

    WINNER = "winner"
    POINTS = "points"
    CARDS = "cards"

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> EntryMode:
        """How a round was entered, from its fields (a rounds-frame row, a body's fields):
        by cards if it has them, else by points if it has them, else by its winner."""
        if row.get("player_cards") is not None:
            return cls.CARDS
        return cls.POINTS if row.get("player_points") is not None else cls.WINNER


Source = Literal["hand", "simulated", "imported"]
SOURCES: tuple[str, ...] = ("hand", "simulated", "imported")

NAME_MAX = 100
"""Longest shoe name, in characters."""
SEED_MAX = 2**64 - 1
"""Largest seed a shoe is dealt from (and saved with): a 64-bit number, as its file keeps it."""
_MOST_CARDS = MAX_DECKS * playing_cards.CARDS_PER_DECK
ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
"""A shoe id and a rules table name: a plain name, never a path (matched whole: `is_shoe_id`)."""
_ID = re.compile(ID_PATTERN)


def is_shoe_id(text: object) -> bool:
    """Whether ``text`` is a plain name: the one rule for a shoe id (and a rules table's
    name), which every door (the library, files, the pages' routes) asks."""
    return isinstance(text, str) and _ID.fullmatch(text) is not None


def check_shoe_id(shoe_id: str) -> str:
    """A shoe id is a plain name; anything path-like is refused, never resolved."""
    if not is_shoe_id(shoe_id):
        raise StorageError(Message("msg_shoe_id_plain", id=quote(shoe_id)))
    return shoe_id


_BAD_NAME_CATEGORIES = ("Cc", "Cs", "Zl", "Zp")  # controls, lone surrogates, line breaks
# Not ink on their own: every category of other (format, private, unassigned), separator
# and mark (a mark has nothing to sit on alone) ...
_UNSEEN_CATEGORY_CLASSES = ("C", "Z", "M")
# ... and the code points Unicode declares Default_Ignorable_Code_Point (fillers such as
# U+115F, U+1160, U+3164 and U+FFA0 are letters by category; DerivedCoreProperties.txt,
# Unicode 15.1), with U+2800 BRAILLE PATTERN BLANK, a symbol that draws nothing.
_UNSEEN_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def visible(ch: str) -> bool:
    """Whether a character puts something on the screen by itself (a name needs one).

    >>> [visible(c) for c in ("a", "庄", "!", " ", "\u200b", "\ufe0f", "\u0301", "\u3164")]
    [True, True, True, False, False, False, False, False]
    """
    if ch.isspace() or unicodedata.category(ch)[0] in _UNSEEN_CATEGORY_CLASSES:
        return False
    code = ord(ch)
    return not any(lo <= code <= hi for lo, hi in _UNSEEN_RANGES)


def default_name(table: str, when: datetime | None = None) -> str:
    """A new shoe's name until a person gives one: the table and the minute it started,
    so shoes on one wall (and in one library) are told apart.

    >>> default_name("classic", datetime(2026, 12, 2, 4, 25, tzinfo=UTC))
    'classic 2026-12-02 04:25'
    """
    when = when or datetime.now().astimezone()
    return f"{table} {when:%Y-%m-%d %H:%M}"


def check_name(name: object) -> str:
    """The one rule for a shoe's name (new shoes, rename, import): its trimmed text.

    One line of 1 to 100 printable characters (no tabs, line breaks, control
    characters or lone surrogates), at least one of them visible (`visible`): not only
    spaces, zero-width or format characters, variation selectors, lone combining marks
    or blank fillers.

    >>> check_name("  Table 3 ")
    'Table 3'
    >>> check_name("a\\tb")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    roads_app.errors.RoundError: a shoe name is one line ... (character 2 is '\\t')
    """
    if not isinstance(name, str):
        raise RoundError(Message("msg_name_not_text", type=type(name).__name__))
    text = name.strip()
    if not text:
        raise RoundError(Message("msg_name_empty", most=NAME_MAX))
    if len(text) > NAME_MAX:
        raise RoundError(Message("msg_name_long", most=NAME_MAX, count=len(text)))
    for i, ch in enumerate(text):
        if unicodedata.category(ch) in _BAD_NAME_CATEGORIES:
            raise RoundError(Message("msg_name_char", most=NAME_MAX, i=i + 1, ch=ascii(ch)))
    if not any(map(visible, text)):
        shown = ascii(text[:8]) + ("..." if len(text) > 8 else "")  # short, and legible
        raise RoundError(Message("msg_name_invisible", most=NAME_MAX, shown=shown))
    return text


ID_BYTES = 6
"""A fresh shoe id is this many random bytes in hex (12 characters, 48 bits)."""


def new_ids(n: int) -> list[str]:
    """``n`` fresh shoe ids (the one rule of a new id: random, 12 hex digits), made at
    once for an import of thousands of shoes."""
    text = os.urandom(ID_BYTES * n).hex()
    step = 2 * ID_BYTES
    return [text[i : i + step] for i in range(0, len(text), step)]


def new_ids_within(n: int, reach: tuple[float, float]) -> list[str]:
    """``n`` fresh shoe ids, distinct and ascending, each random within the share
    ``reach`` (from, to: fractions of 0..1) of the id space. An import hands a batch the
    share where the batch lies in its file, so a file's shoes get ids ascending from its
    first to its last: each batch's rows then go into the rounds table's index as one run
    of new pages instead of a row between old ones on hundreds of pages (a third of a big
    import's writing). Each id still has 40 bits or more of its own randomness.

    >>> ids = new_ids_within(3, (0.5, 0.75))
    >>> ids == sorted(ids) and all("800000000000" <= i < "c00000000000" for i in ids)
    True
    """
    space = 1 << (8 * ID_BYTES)
    start, end = (min(max(int(space * r), 0), space) for r in reach)
    room = min(n << 24, space)  # 24 random bits an id at the least
    if end - start < room:  # a share too narrow: widened, within the space
        end = min(max(end, start + room), space)
        start = end - room
    width = end - start
    drawn = np.zeros(0, dtype=np.uint64)
    while drawn.size < n:
        more = np.frombuffer(os.urandom(8 * n), dtype=np.uint64) % np.uint64(width)
        drawn = np.unique(np.concatenate([drawn, more + np.uint64(start)]))
    if drawn.size > n:  # a second draw after a repeat: n of them
        drawn = np.sort(np.random.default_rng().choice(drawn, n, replace=False))
    return [f"{v:0{2 * ID_BYTES}x}" for v in drawn.tolist()]


def _new_id() -> str:
    return new_ids(1)[0]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _one_line_schema_errors(cls: type, data: Any, handler: Any) -> Any:
    try:
        return handler(data)
    except ValidationError as e:
        raise SchemaError(validation_message(e.errors(), "shoe metadata")) from None


_Text = Annotated[str, Field(max_length=2000)]


@pydantic_dataclass(frozen=True, config=ConfigDict(strict=True, extra="forbid"))
class ShoeMeta:
    """What travels with a shoe besides its rounds; the one schema of shoe metadata.

    Checked on construction (types, ranges, lengths, unknown fields) by pydantic, so a
    file's metadata and a new shoe's pass the same checks; a failure is a one-line
    `SchemaError`. ``rules`` is a table *name*, never a path.
    """

    id: str = field(default_factory=_new_id)
    name: Annotated[str, Field(max_length=NAME_MAX)] = ""
    created: Annotated[str, Field(max_length=40)] = field(default_factory=_now)
    source: Source = "hand"
    decks: Annotated[int, Field(ge=1, le=MAX_DECKS)] = MAX_DECKS
    seed: Annotated[int, Field(ge=0, le=SEED_MAX)] | None = None
    rules: str = DEFAULT_TABLE
    notes: _Text = ""
    burn_card: str | None = None  # the face-up first card, where the shoe records it
    cut: Annotated[int, Field(ge=0, le=_MOST_CARDS)] | None = None

    @field_validator("id", "rules")
    @classmethod
    def _plain(cls, v: str) -> str:
        if not is_shoe_id(v):
            raise ValueError("is not a plain name (letters, digits, '-' and '_'; no paths)")
        return v

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if v and check_name(v) != v:
            raise ValueError("has spaces at either end")
        return v

    @field_validator("created")
    @classmethod
    def _created(cls, v: str) -> str:
        try:
            datetime.fromisoformat(v)
        except ValueError:
            raise ValueError("is not an ISO 8601 date and time") from None
        return v

    @field_validator("notes")
    @classmethod
    def _notes(cls, v: str) -> str:
        bad = [ch for ch in v if unicodedata.category(ch) == "Cs" or ch == "\0"]
        if bad:
            raise ValueError(f"holds a character that is not text ({bad[0]!r})")
        return v

    @field_validator("burn_card")
    @classmethod
    def _burn(cls, v: str | None) -> str | None:
        return None if v is None else playing_cards.parse_card(v)

    _wrap = model_validator(mode="wrap")(classmethod(_one_line_schema_errors))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: object) -> ShoeMeta:
        """From a parsed JSON object; unknown keys, wrong types and bad values are refused."""
        if not isinstance(d, dict):
            raise SchemaError(Message("msg_meta_not_object", type=type(d).__name__))
        return cls(**{str(k): v for k, v in d.items()})


def empty_rounds() -> pl.DataFrame:
    """A shoe with no rounds yet."""
    return ROUNDS_SCHEMA.to_frame()


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=ROUNDS_SCHEMA, orient="row") if rows else empty_rounds()


def _renumber(rounds: pl.DataFrame) -> pl.DataFrame:
    # eager (no lazy plan to collect): this runs on every entry, key press and API append
    numbers = pl.Series("round", range(1, rounds.height + 1), dtype=pl.Int32)
    return rounds.clone().replace_column(rounds.get_column_index("round"), numbers)


def _in_order(rounds: pl.DataFrame) -> pl.DataFrame:
    """The rounds-frame columns in their order (a frame already so is taken as it is)."""
    names = ROUNDS_SCHEMA.names()
    return rounds if rounds.columns == names else rounds.select(names)


# --- building one round --------------------------------------------------------------


_WINNER_SPELLINGS: dict[str, Winner] = {
    spelling: w for w in Winner for spelling in (w.value, w.word.upper())
}


def _winner(w: object) -> Winner:
    text = str(w).strip().upper() if w is not None else ""
    if text not in _WINNER_SPELLINGS:
        raise RoundError(Message("msg_winner_letter", w=repr(w)))
    return _WINNER_SPELLINGS[text]


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
    if player_natural and banker_natural is False and w != Winner.PLAYER:
        raise RoundError(Message("msg_natural_player_wins", w=_named(w)))
    if banker_natural and player_natural is False and w != Winner.BANKER:
        raise RoundError(Message("msg_natural_banker_wins", w=_named(w)))
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
    for who, pts in ((Side.PLAYER, player_points), (Side.BANKER, banker_points)):
        whole_number(pts, Message("msg_what_points", side=side(who.word)), 0, 9, error=RoundError)
    w = Winner.of(winner_of(banker_points, player_points))
    if winner is not None and _winner(winner) != w:
        raise RoundError(
            Message(
                "msg_winner_disagrees",
                w=_named(_winner(winner)),
                pp=player_points,
                bp=banker_points,
                means=_named(w),
            )
        )
    for who, pts, nat in (
        (Side.PLAYER, player_points, player_natural),
        (Side.BANKER, banker_points, banker_natural),
    ):
        if nat and not natural(pts):
            raise RoundError(Message("msg_natural_points", side=side(who.word), pts=pts))
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


# --- every hand of a frame at once ------------------------------------------------------

_CARD_ENUM = pl.Enum(list(playing_cards.ALL_CARDS))  # physical code = card number
_NO_CARD = playing_cards.CARDS_PER_DECK  # the index past the cards: a missing third card
_CARD_POINT = np.append(playing_cards.POINTS_BY_CARD, 0)  # ... which counts no points


def _card_numbers(cards: pl.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each hand's first three card numbers (52 where there is none), its card count
    (0 for a null hand) and whether its first three codes are canonical card codes."""
    count = cards.list.len().fill_null(0).to_numpy().astype(np.int16)
    out = np.empty((len(cards), 3), dtype=np.int16)
    known = np.ones(len(cards), dtype=np.bool_)
    numbered = cards.cast(pl.List(pl.String)).cast(pl.List(_CARD_ENUM), strict=False)
    for i in range(3):
        num = numbered.list.get(i, null_on_oob=True).to_physical().cast(pl.Int16)
        col = num.fill_null(-1).to_numpy()
        known &= (col >= 0) | (count <= i)
        out[:, i] = np.where(col >= 0, col, _NO_CARD)
    return out, count, known


@dataclass(frozen=True)
class FrameCards:
    """A frame's hands as card numbers (`_card_numbers`: numbers, counts, canonical),
    Player's and Banker's, read once for both checks of an import's batch (the hands,
    `rounds_from_cards`; the shoe rule, `shoes_within`): reading them was a third of
    its checking."""

    player: tuple[np.ndarray, np.ndarray, np.ndarray]
    banker: tuple[np.ndarray, np.ndarray, np.ndarray]

    @classmethod
    def of(cls, frame: pl.DataFrame) -> FrameCards:
        return cls(_card_numbers(frame["player_cards"]), _card_numbers(frame["banker_cards"]))


def rounds_from_cards(
    frame: pl.DataFrame, cards: FrameCards | None = None
) -> tuple[pl.DataFrame, np.ndarray]:
    """Every round of ``frame`` with cards, rebuilt from its cards in one pass, and which
    rows break a rule (True: not a hand the drawing rules deal, or a value that
    contradicts its cards).

    The one check of a hand's cards for a whole frame (`check_hands`, the bulk import):
    the same rules as `check_hand` for one hand, read from the same tables
    (`roads_app.game.drawing`). A row is faulty when one hand has cards and the other
    not, a hand has not 2 or 3 canonical card codes, the Player's or the Banker's
    third card is not the rules' (a natural stands; Player draws on 0-5; Banker by the
    tableau), or a points, pair, natural or winner value given is not what the cards
    say. Rows without cards are left as they are (never faulty here). The rebuilt frame
    has `ROUNDS_SCHEMA`'s columns but ``round``, row for row. ``cards``: the frame's
    hands already read (`FrameCards.of`).
    """
    cards = cards or FrameCards.of(frame)
    (p, pn, p_known), (b, bn, b_known) = cards.player, cards.banker
    has = (pn > 0) | (bn > 0)
    shape = (pn >= 2) & (pn <= 3) & (bn >= 2) & (bn <= 3) & p_known & b_known
    pt = hand_total(_CARD_POINT[p[:, 0]] + _CARD_POINT[p[:, 1]])
    bt = hand_total(_CARD_POINT[b[:, 0]] + _CARD_POINT[b[:, 1]])
    must_p = PLAYER_DRAWS[pt, bt]
    third = _CARD_POINT[p[:, 2]]
    must_b = np.where(pn == 3, BANKER_DRAWS_AFTER[bt, third], BANKER_DRAWS_STOOD[bt, pt])
    must_b &= ~(PLAYER_DRAWS[pt, bt] & (pn == 2))  # (a Player who must draw: faulty anyway)
    drawn_right = (must_p == (pn == 3)) & (must_b == (bn == 3))
    p_total = hand_total(pt + _CARD_POINT[p[:, 2]])
    b_total = hand_total(bt + _CARD_POINT[b[:, 2]])
    first = np.minimum(np.stack([p[:, 0], p[:, 1], b[:, 0], b[:, 1]]), _NO_CARD - 1)
    derived = {  # each read from the hand's own rules and tables (`roads_app.game.hand`)
        "winner": WINNER_OF[b_total, p_total],
        "player_points": p_total.astype(np.int8),
        "banker_points": b_total.astype(np.int8),
        "player_pair": (PAIR_STATE[first[0], first[1]] != NO_PAIR) & (pn > 0),
        "banker_pair": (PAIR_STATE[first[2], first[3]] != NO_PAIR) & (bn > 0),
        "player_natural": natural(pt),
        "banker_natural": natural(bt),
    }
    agrees = np.ones(len(frame), dtype=np.bool_)
    for name, values in derived.items():
        if name in frame.columns:
            given = frame[name]
            if name == "winner":  # compared by the letters' places in `WINNERS`
                text = given.cast(pl.String)
                given = text.cast(WINNER, strict=False).to_physical()
                agrees &= ~(given.is_null() & text.is_not_null()).to_numpy()
            same = (given.cast(pl.Int16) == pl.Series(values).cast(pl.Int16)).fill_null(True)
            agrees &= same.to_numpy()
    faulty = has & ~(shape & drawn_right & agrees)
    rebuilt = pl.DataFrame(
        {
            **{k: pl.Series(k, v) for k, v in derived.items()},
            "player_cards": frame["player_cards"],
            "banker_cards": frame["banker_cards"],
        }
    ).with_columns(
        pl.col("winner").replace_strict(dict(enumerate(WINNERS)), return_dtype=WINNER),
        pl.col("^.*_natural$|^.*_pair$").cast(pl.Boolean),
    )
    return rebuilt, faulty


def first_faulty_hand(frame: pl.DataFrame) -> int | None:
    """Index of the first row whose cards break a rule (`rounds_from_cards`), or None."""
    none = frame["player_cards"].is_null().all() and frame["banker_cards"].is_null().all()
    if not frame.height or none:
        return None
    bad = np.flatnonzero(rounds_from_cards(frame)[1])
    return int(bad[0]) if bad.size else None


def check_hands(frame: pl.DataFrame, new_from: int = 0) -> None:
    """Refuse a frame with a round whose cards break a rule, naming the round and the rule.

    Every way a round comes in (the entry operations here, imports of every format)
    passes through it: `check_shoe` calls it on the new rounds. A few rounds (a key
    press, an edit) are checked hand by hand (`check_hand`), a frame of many all at
    once (`rounds_from_cards`); both read the drawing rules of `roads_app.game.drawing`.
    """
    part = frame.slice(new_from)
    if part.height <= _HAND_BY_HAND:
        for i, row in enumerate(part.iter_rows(named=True)):
            if row["player_cards"] is not None or row["banker_cards"] is not None:
                _check_row(row, new_from + i + 1)
        return
    i = first_faulty_hand(part)
    if i is None:
        return
    _check_row(part.row(i, named=True), new_from + i + 1)
    n = part["round"][i] or new_from + i + 1
    raise RoundError(Message("msg_round_is", n=n, what=Message("msg_hand_faulty")))


_HAND_BY_HAND = 8
"""Up to this many new rounds are checked one hand at a time (a Polars pass costs more)."""


def _check_row(row: dict[str, Any], at: int) -> None:
    """One round with cards: dealt by the rules, and every value given what they say."""
    n = row.get("round") or at
    try:
        if row["player_cards"] is None or row["banker_cards"] is None:
            raise RoundError(Message("msg_cards_one_hand"))
        out = round_by_cards(row["player_cards"], row["banker_cards"])
        for key in ("winner", "player_points", "banker_points", *FLAGS):
            given = row.get(key)
            if given is not None and str(given) != str(out[key]):
                raise RoundError(
                    Message(
                        "msg_value_contradicts",
                        field=key,
                        value=given,
                        basis=Message("msg_basis_cards"),
                        says=out[key],
                    )
                )
        for key in ("player_cards", "banker_cards"):
            if list(row[key]) != out[key]:
                raise RoundError(
                    Message(
                        "msg_cards_not_canonical",
                        field=key,
                        given=" ".join(row[key]),
                        codes=" ".join(out[key]),
                    )
                )
    except RoadsAppError as e:
        raise RoundError(Message("msg_round_is", n=n, what=e.message)) from None


# --- the entry operations -------------------------------------------------------------


def check_composition(rounds: pl.DataFrame, decks: int = 8, also_seen: Iterable[str] = ()) -> None:
    """Refuse a shoe that holds more copies of a card than its decks do."""
    counts = Counter(playing_cards.parse_card(c) for c in also_seen)
    if "player_cards" in rounds.columns and rounds.height:
        # a shoe is at most `max_rounds` rounds (checked first): counting its few hundred
        # cards in Python takes ~40 us, a Polars group-by ~0.4 ms a key press
        for side in ("player_cards", "banker_cards"):
            for cards in rounds[side].to_list():
                if cards:
                    counts.update(cards)
    over = [(c, n) for c, n in counts.items() if n > decks]
    if over:
        # the card that went over first, whatever order the counts came in (a group_by's
        # order is not fixed: two readers of one shoe named different cards)
        firsts = {c: _first_round_exceeding(rounds, c, decks) for c, _ in over}
        code, n = min(over, key=lambda x: (firsts[x[0]] or float("inf"), -x[1], x[0]))
        first = firsts[code]
        if first:
            raise ShoeCompositionError(
                Message("msg_too_many_in", n=n, code=code, decks=decks, first=first)
            )
        raise ShoeCompositionError(Message("msg_too_many", n=n, code=code, decks=decks))


CARDS_PER_ROUND_MIN = 4
"""Fewest cards a round uses (two hands of two)."""


def most_rounds_of(n_cards: int) -> int:
    """Most rounds ``n_cards`` cards can deal: every round uses at least
    `CARDS_PER_ROUND_MIN` cards. The one rule, whatever the burn and the cut card: they
    only take cards away, and a shoe entered by hand may have had neither (no burn, the
    cut card at the very back), so 416 cards hold 104 rounds and no more.

    >>> most_rounds_of(8 * 52), most_rounds_of(52)
    (104, 13)
    """
    return n_cards // CARDS_PER_ROUND_MIN


def max_rounds(decks: int) -> int:
    """Most rounds a shoe of ``decks`` decks can deal (`most_rounds_of` its cards).

    >>> max_rounds(8), max_rounds(1)
    (104, 13)
    """
    return most_rounds_of(decks * playing_cards.CARDS_PER_DECK)


MOST_ROUNDS = max_rounds(MAX_DECKS)
"""Most rounds any shoe holds (104: the largest shoe, `MAX_DECKS` decks): the bound on
one shoe's rows in a file and on a round number in a request."""


def check_shoe(
    rounds: pl.DataFrame, decks: int = 8, *, new_from: int = 0, also_seen: Iterable[str] = ()
) -> None:
    """The one rule of what a shoe of ``decks`` decks can hold, for every door (entry
    form, keys, HTTP API, ``roads-app shoes add``, import, edits); the rounds from index
    ``new_from`` on are the new or changed ones.

    * at most `max_rounds` rounds, and at most the shoe's cards in all (a round without
      cards counts as the 4 it used at least), so an export always imports back;
    * every new round with cards dealt by the drawing rules and saying what its cards
      say (`check_hands`);
    * no more copies of a card than the decks hold (`check_composition`), when a new
      round has cards (``also_seen``: cards seen outside the rounds, a burn card).
    """
    n = rounds.height
    if n <= new_from and not also_seen:
        return
    most = max_rounds(decks)
    if n > most:
        over = max(new_from, most) + 1
        raise RoundError(Message("msg_shoe_full", decks=decks, most=most, n=over))
    # a shoe is at most `max_rounds` rounds: its card lists in Python cost less than the
    # Polars passes over them (each a fixed ~50 us, several a key press or an API append)
    player, banker = rounds["player_cards"].to_list(), rounds["banker_cards"].to_list()
    cards = sum(
        len(p) + len(b) if p is not None and b is not None else CARDS_PER_ROUND_MIN
        for p, b in zip(player, banker, strict=True)
    )
    holds = decks * playing_cards.CARDS_PER_DECK
    if cards > holds:
        raise RoundError(Message("msg_shoe_cards", n=n, cards=cards, decks=decks, holds=holds))
    check_hands(rounds, new_from)
    also_seen = list(also_seen)
    if also_seen or any(p is not None for p in player[new_from:]):
        check_composition(rounds, decks, also_seen)


def shoes_within(
    frame: pl.DataFrame,
    decks: int = 8,
    also_seen: Iterable[str] = (),
    cards: FrameCards | None = None,
) -> pl.Series:
    """The numbers of the shoes of ``frame`` (rounds of many shoes, a ``shoe`` column,
    hands checked by `rounds_from_cards`) that `check_shoe` takes whole: its rule over
    every shoe at once (a group by shoe), for an import of thousands. The same limits:
    `max_rounds`, the shoe's cards (a round without cards counts `CARDS_PER_ROUND_MIN`),
    and at most ``decks`` copies of a card, ``also_seen`` (a burn card) included.
    ``cards``: the frame's hands already read (`FrameCards.of`)."""
    seen = Counter(playing_cards.parse_card(c) for c in also_seen)
    shoe = frame["shoe"]
    dense = shoe.rank("dense").cast(pl.Int64).to_numpy() - 1
    shoes = int(dense.max()) + 1 if len(dense) else 0
    cards = cards or FrameCards.of(frame)
    (p, pn, _), (b, bn, _) = cards.player, cards.banker
    both = (frame["player_cards"].is_not_null() & frame["banker_cards"].is_not_null()).to_numpy()
    dealt = np.bincount(dense, np.where(both, pn + bn, CARDS_PER_ROUND_MIN), shoes)
    copies = np.bincount(
        (dense[:, None] * (_NO_CARD + 1) + np.concatenate([p, b], axis=1)).ravel(),
        minlength=shoes * (_NO_CARD + 1),
    ).reshape(shoes, _NO_CARD + 1)[:, :_NO_CARD]
    for code, n in seen.items():
        copies[:, playing_cards.ALL_CARDS.index(code)] += n
    within = (
        (np.bincount(dense, minlength=shoes) <= max_rounds(decks))
        & (dealt <= decks * playing_cards.CARDS_PER_DECK)
        & (copies.max(axis=1, initial=0) <= decks)
    )
    numbers = shoe.unique().sort()  # (dense ranks follow the sorted numbers)
    return numbers.filter(pl.Series(within))


def check_by_cards(rounds: pl.DataFrame, row: dict[str, Any]) -> None:
    """A shoe recorded by cards (every round so far came with its cards) takes the next
    round by its cards too: a result without its cards would make the card counts (the
    composition check, the live odds) silently wrong. The one rule of every door that
    adds a round (entry form, keys, HTTP API, ``roads-app shoes add``).
    """
    if row["player_cards"] is None and rounds.height and not rounds["player_cards"].null_count():
        raise RoundError(Message("msg_cards_only", n=rounds.height + 1))


def _first_round_exceeding(rounds: pl.DataFrame, code: str, decks: int) -> int | None:
    n = 0
    for r, pc, bc in rounds.select("round", "player_cards", "banker_cards").iter_rows():
        n += (pc or []).count(code) + (bc or []).count(code)
        if n > decks:
            return int(r)
    return None


def _append(rounds: pl.DataFrame, row: dict[str, Any], decks: int) -> pl.DataFrame:
    check_by_cards(rounds, row)
    out = _renumber(pl.concat([_in_order(rounds), _frame([row])]))
    check_shoe(out, decks, new_from=rounds.height)
    return out


def preview_winner(rounds: pl.DataFrame, winner: str) -> pl.DataFrame:
    """The rounds as they would be after one more ``winner``: a what-if for the ask
    roads, not an entry, so a full shoe or one recorded by cards still shows it."""
    return _renumber(pl.concat([_in_order(rounds), _frame([round_by_winner(winner)])]))


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
        raise RoundError(Message("msg_undo_empty"))
    return rounds.slice(0, rounds.height - 1)


def edit_round(
    rounds: pl.DataFrame, round_no: int, row: dict[str, Any], *, decks: int = 8
) -> pl.DataFrame:
    """Replace round ``round_no`` (1-based) with a row from one of the ``round_by_*`` builders."""
    if not 1 <= round_no <= rounds.height:
        raise RoundError(Message("msg_no_such_round", n=round_no, rounds=rounds.height))
    i = round_no - 1
    out = _renumber(
        pl.concat([rounds.slice(0, i), _frame([row]), rounds.slice(i + 1)]).select(
            ROUNDS_SCHEMA.names()
        )
    )
    check_shoe(out, decks, new_from=i)
    return out


@dataclass(frozen=True)
class ShoeCounts:
    """Banker, Player and Tie wins of a shoe (or of many shoes): counted here once for the
    statistics, the lobby's line under a board and a file's summary, each keyed by `Winner`.

    >>> c = ShoeCounts.of(rounds_from_winners("BBPT"))
    >>> c[Winner.BANKER], c.player, c.total, c + c
    (2, 1, 4, ShoeCounts(banker=4, player=2, tie=2))
    """

    banker: int = 0
    player: int = 0
    tie: int = 0

    @property
    def total(self) -> int:
        """All rounds counted (every round has a winner)."""
        return self.banker + self.player + self.tie

    def __getitem__(self, winner: Winner) -> int:
        return int(getattr(self, winner.word))

    def __add__(self, other: ShoeCounts) -> ShoeCounts:
        return ShoeCounts(**{w.word: self[w] + other[w] for w in Winner})

    @staticmethod
    def exprs(winner: pl.Expr | None = None) -> dict[str, pl.Expr]:
        """Each winner's count as a Polars aggregation named by its word (``banker``...),
        over the ``winner`` column (an Enum or its letters as strings)."""
        col = pl.col("winner") if winner is None else winner
        return {w.word: (col == w.value).sum().cast(pl.Int32) for w in Winner}

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> ShoeCounts:
        """The counts of a row holding the `exprs` columns."""
        return cls(**{w.word: int(row[w.word] or 0) for w in Winner})

    @classmethod
    def of(cls, frame: pl.DataFrame | pl.LazyFrame) -> ShoeCounts:
        """The counts of a rounds frame (a lazy one is summed by the streaming engine)."""
        sums = cls.exprs(pl.col("winner").cast(pl.String))
        if isinstance(frame, pl.DataFrame):
            return cls.of_row(frame.select(**sums).row(0, named=True))
        return cls.of_row(frame.select(**sums).collect(engine="streaming").row(0, named=True))


def rounds_from_winners(text: str) -> pl.DataFrame:
    """Rounds from a string of results like ``"BPPTB"`` (spaces and lower case allowed)."""
    letters = [ch for ch in text.upper() if not ch.isspace() and ch not in ",;"]
    bad = [(i, ch) for i, ch in enumerate(letters) if ch not in WINNERS]
    if bad:
        i, ch = bad[0]
        raise RoundError(Message("msg_result_letter", i=i + 1, ch=repr(ch)))
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
        "winner": [WINNERS[winner_of(b, p)] for p, b in zip(pp, bp, strict=True)],
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


def apply_keys(
    rounds: pl.DataFrame, keys: Sequence[str], *, decks: int = 8, **flags: Any
) -> tuple[pl.DataFrame, list[str]]:
    """Key presses in the order they came: ``b``/``p``/``t`` add a result, ``u`` undoes.

    The flags (pairs, naturals) go with the first result only, as the toggles do. A
    press that cannot apply (undo on an empty shoe, a result the deck count forbids)
    is skipped with a note; the others still apply, so one bad press loses no other.
    Returns the new rounds and the notes.

    >>> out, notes = apply_keys(rounds_from_winners("B"), ["p", "u", "u", "u", "t"])
    >>> "".join(out["winner"].cast(pl.String).to_list()), notes
    ('T', ['nothing to undo'])
    """
    notes: list[str] = []
    for key in keys:
        try:
            if key == "u":
                if not can_undo(rounds):
                    raise RoundError(Message("msg_nothing_to_undo"))
                rounds = undo(rounds)
            else:
                rounds = add_winner(rounds, key.upper(), decks=decks, **flags)
                flags = {}
        except RoundError as e:
            notes.append(e.message)
    return rounds, notes
