"""Table variants as data: one TOML file per table in ``rules/``, read by a validating loader.

Payouts, closing rounds, limits and shoe options live in files rather than code so a
user can add a table by adding a file, and every number can be traced to its source
(each file names its ``source`` and says in ``notes`` what the source got wrong). Bets
are named by kind (`roads_app.bets.spec.KINDS`); a kind that pays by outcome takes a
table of payout keys. The file is checked by a pydantic schema: every number finite and
within range, unknown fields refused, each error one line naming file and field.

The built-in tables are package data (``roads_app.rules``), found by name wherever the
package is installed. A user's own tables are TOML files in the user tables folder
(`user_tables_dir`: ``--rules-dir DIR`` / ``ROADS_APP_RULES``, else the platform's config
folder); one named like a built-in table is refused rather than shadowing it.

A file looks like this (all keys shown; ``name``, if given, must match the file name;
``label`` defaults to the bet's usual name, ``cut``/``burn``/``burn_between_hands`` to
`ShoeOptions`)::

    name = "mytable"
    title = "My table"
    source = "000_1150d3b8e18c4300.txt"
    notes = ["why a figure is what it is"]

    [shoe]
    decks = 8
    cut = 14
    burn = true
    burn_between_hands = false

    [limits]
    min_bet = 1.0
    max_bet = 5000.0

    [bets.banker]
    payout = 0.95          # a win pays 0.95 per 1 staked (the kind's only required key)
    [bets.dragon_bonus_player]
    payout = { natural = 1, by_9 = 30, by_8 = 10, by_7 = 6, by_6 = 4, by_5 = 2, by_4 = 1 }
    [bets.big]
    payout = 0.5
    closes_after = 20      # optional: last round of the shoe it may be placed on

    [shortcuts]            # optional: one stake placed on each listed bet
    two_way = ["banker_pair", "player_pair"]

>>> t = load_table("classic")
>>> t.bets["banker"].payout, t.offers("big")
(0.95, False)
>>> load_table("winbox").can_place("big", 21, 10.0)
'Big closes after round 20 of the shoe (this is round 21)'
"""

from __future__ import annotations

import math
import numbers
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Protocol

import numpy as np
from numba.extending import register_jitable
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roads_app import safe_io
from roads_app.bets.spec import KIND_NAMES, KINDS, BetKind, resolve_payouts
from roads_app.errors import RoadsAppError, RulesError, quote, shown_path
from roads_app.game import MAX_DECKS
from roads_app.game.hand import Side
from roads_app.game.shoe import ShoeOptions
from roads_app.messages import Message
from roads_app.places import DEFAULT_TABLE, RULES_DIR, user_tables_dir
from roads_app.places import RULES_ENV as RULES_ENV
from roads_app.places import TABLES_ENV as TABLES_ENV  # where callers have long found it

MAX_RULES_BYTES = 256 * 1024
"""Largest rules file read (ours are about 3 KB)."""

BET_IDS: tuple[str, ...] = KIND_NAMES
"""Canonical bet ids (the bet kinds), in display order; a rules file may only use these."""

BET_LABELS: Mapping[str, str] = MappingProxyType({k.kind: k.label for k in KINDS.values()})
"""Default display label per bet id (a rules file may give its own)."""

SHORTCUTS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "two_way": ("banker_pair", "player_pair"),
        "three_way": ("banker_pair", "player_pair", "tie"),
    }
)
"""Known shortcuts (seed 003): one stake placed on each of the listed bets."""

NEVER_CLOSES = int(np.iinfo(np.int64).max)
"""The closing round of a bet that never closes, where a number is needed (the kernels)."""


@register_jitable(inline="always")
def closed_after(round_no: Any, closes_after: Any) -> Any:
    """Whether a bet that may be placed up to round ``closes_after`` is closed on round
    ``round_no``: ints (`NEVER_CLOSES` for never), arrays or Polars expressions (a null
    closing round gives null: the caller says it means open)."""
    return round_no > closes_after


SHORTCUT_LABELS: Mapping[str, str] = MappingProxyType({"two_way": "2-Way", "three_way": "3-Way"})


@dataclass(frozen=True, slots=True)
class Bet:
    """One bet a table offers: its kind (``id``), label, and a figure per payout key.

    A win on key ``k`` pays ``payouts[k]`` per 1 staked (the stake comes back too).
    """

    id: str
    label: str
    payouts: Mapping[str, float]
    closes_after: int | None = None  # last round of the shoe it may be placed on; None: never

    def __post_init__(self) -> None:
        kind = KINDS[self.id]
        object.__setattr__(
            self, "payouts", MappingProxyType(resolve_payouts(kind, dict(self.payouts)))
        )

    def __hash__(self) -> int:
        return hash((self.id, self.label, tuple(self.payouts.items()), self.closes_after))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (Bet, (self.id, self.label, dict(self.payouts), self.closes_after))

    @property
    def spec(self) -> BetKind:
        """The bet's kind: what it needs and how it settles."""
        return KINDS[self.id]

    def closed_on(self, round_no: int) -> bool:
        """Whether the bet has closed by round ``round_no`` (`closed_after`)."""
        return self.closes_after is not None and closed_after(round_no, self.closes_after)

    @property
    def six_apart(self) -> bool:
        """Whether a Banker win on 6 (`banker_six`) pays this bet other than its win."""
        return self.payouts.get("six", self.payouts.get("win")) != self.payouts.get("win")

    @property
    def payout(self) -> float:
        """The headline figure (the highest payout), for labels."""
        return max(self.payouts.values())

    def payout_text(self) -> str:
        """``0.95:1``, or ``1:1, six 0.5:1`` for a bet with several payout keys."""
        first, *rest = self.spec.payouts
        head = f"{self.payouts[first]:g}:1"
        extra = [
            f"{k} {self.payouts[k]:g}:1" for k in rest if self.payouts[k] != self.payouts[first]
        ]
        if first != "win":
            head = f"{first} {head}"
        return ", ".join([head, *extra])


class BetLike(Protocol):
    """What pricing and settling read of a `Bet` (read-only, as in a frozen dataclass)."""

    @property
    def id(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def payout(self) -> float: ...
    @property
    def payouts(self) -> Mapping[str, float]: ...
    @property
    def closes_after(self) -> int | None: ...


class TableLike(Protocol):
    """What the odds, live odds and the bet log read of a `Table`: the one protocol."""

    @property
    def name(self) -> str: ...
    @property
    def bets(self) -> Mapping[str, BetLike]: ...
    @property
    def shortcuts(self) -> Mapping[str, tuple[str, ...]]: ...

    def can_place(self, bet_id: str, round_no: int, stake: float) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Limits:
    """Minimum and maximum stake of any one bet at the table."""

    min_bet: float
    max_bet: float


@dataclass(frozen=True)
class Table:
    """A table variant: how it deals and what it pays (see the module docstring)."""

    name: str
    title: str
    source: str
    shoe: ShoeOptions
    limits: Limits
    bets: Mapping[str, Bet]
    shortcuts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Read-only views, also when built by hand or by dataclasses.replace(bets={...}).
        object.__setattr__(self, "bets", MappingProxyType(dict(self.bets)))
        object.__setattr__(
            self, "shortcuts", MappingProxyType({k: tuple(v) for k, v in self.shortcuts.items()})
        )
        object.__setattr__(self, "notes", tuple(self.notes))

    def __hash__(self) -> int:
        return hash((self.name, self.source, self.shoe, self.limits, tuple(self.bets.items())))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Mapping proxies do not pickle; worker processes and caches need tables that do.
        return (
            Table,
            (
                self.name,
                self.title,
                self.source,
                self.shoe,
                self.limits,
                dict(self.bets),
                dict(self.shortcuts),
                self.notes,
            ),
        )

    def offers(self, bet_id: str) -> bool:
        """True when the table takes this bet (a shortcut counts if the table has it)."""
        return bet_id in self.bets or bet_id in self.shortcuts

    @property
    def pays_six_apart(self) -> bool:
        """Whether the table pays a Banker win on 6 apart (No Commission: half), so its
        board marks those rounds (`roads_app.game.hand.banker_six`)."""
        banker = self.bets.get(Side.BANKER.word)
        return banker is not None and banker.six_apart

    def can_place(self, bet_id: str, round_no: int, stake: float) -> str | None:
        """None if the bet may be placed on this round with this stake, else why not.

        >>> load_table("classic").can_place("banker", 1, 0.5)
        'stake 0.5 is outside the table limits (1 to 10,000)'
        """
        if bet_id in self.shortcuts:
            for under in self.shortcuts[bet_id]:
                reason = self.can_place(under, round_no, stake)
                if reason is not None:
                    return reason
            return None
        if bet_id not in self.bets:
            return not_offered_reason(self, bet_id)
        if not isinstance(stake, numbers.Real) or isinstance(stake, bool):
            return Message("msg_not_a_number", stake=repr(stake))
        if math.isnan(stake):
            return Message("msg_not_a_number", stake="NaN")
        if not self.limits.min_bet <= stake <= self.limits.max_bet:
            limits = limits_text(self.limits)
            return Message("msg_outside_limits", stake=f"{stake:g}", limits=limits)
        bet = self.bets[bet_id]
        if bet.closed_on(round_no):
            return Message(
                "msg_closes_after", bet=bet_name(bet), closes=bet.closes_after, n=round_no
            )
        return None


def limits_text(limits: Limits) -> Message:
    """``1 to 10,000``: how reasons quote the limits."""
    return Message("msg_limits", lo=f"{limits.min_bet:,g}", hi=f"{limits.max_bet:,g}")


def bet_name(bet: BetLike) -> Message:
    """A bet as reasons name it: the table's own label, the catalogue's name elsewhere."""
    return Message.named(bet.label, f"bet_{bet.id}")


def known_bets() -> str:
    """The bet ids and shortcuts a reason lists when it meets an unknown one."""
    return ", ".join(BET_IDS + tuple(SHORTCUTS))


def not_offered_reason(table: Table, bet_id: str) -> Message:
    """Why a bet id the table lacks is refused: unknown everywhere, or just not here."""
    if bet_id in BET_LABELS or bet_id in SHORTCUT_LABELS:
        label = BET_LABELS.get(bet_id) or SHORTCUT_LABELS[bet_id]
        return Message(
            "msg_table_lacks_bet", table=table.title, bet=Message.named(label, f"bet_{bet_id}")
        )
    return Message("msg_unknown_bet", bet=repr(bet_id), known=known_bets())


def _builtin_names() -> list[str]:
    return sorted(p.stem for p in RULES_DIR.glob("*.toml"))


def _user_files() -> dict[str, Path]:
    folder = user_tables_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.toml")) if p.is_file()}


def load_tables() -> tuple[list[tuple[str, Table]], list[str]]:
    """Every table that loads (built-in, then the user's, by name) and one line for each
    user file that does not: a built-in table's name, too big, not valid.

    Each folder is listed once and each file read once, so a thousand user tables cost
    a thousand reads, and one bad file never hides the others.
    """
    builtin = set(_builtin_names())
    loaded: list[tuple[str, Table]] = []
    notes: list[str] = []
    user = _user_files()
    files = {
        **{n: RULES_DIR / f"{n}.toml" for n in builtin},
        **{n: p for n, p in user.items() if n not in builtin},
    }
    for name in sorted(files):
        try:
            loaded.append((name, load_table(files[name])))
        except RoadsAppError as e:
            if name in builtin:
                raise  # a broken built-in table is a bug of the install, not a user file
            notes.append(f"{e}; not listed")
    notes += [
        f"{shown_path(path)}: not used: {quote(name)} is the name of built-in rules; "
        "rename the file"
        for name, path in user.items()
        if name in builtin
    ]
    return loaded, notes


def list_tables() -> list[str]:
    """Names of the built-in tables and the user's own (file names without ``.toml``), sorted."""
    return sorted(set(_builtin_names()) | set(_user_files()))


def fallback_table(names: Sequence[str]) -> str:
    """The table to show when none is chosen (or a shoe's own is gone): the default
    (`DEFAULT_TABLE`) if ``names`` has it, else the first of them.

    >>> fallback_table(["asian-live", "classic"]), fallback_table(["mine", "winbox"])
    ('classic', 'mine')
    """
    return DEFAULT_TABLE if DEFAULT_TABLE in names or not names else names[0]


def load_table(name_or_path: str | Path) -> Table:
    """Read and check a rules file: ``"classic"`` means the built-in ``classic.toml``,
    ``"mine"`` the user's ``mine.toml`` (`user_tables_dir`), a path that file.

    Raises `RulesError` naming the file and exactly what is wrong with it.
    """
    path = _resolve(name_or_path)
    where = _display(path)
    text = _read_toml_text(path, where)
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise RulesError(Message("msg_not_toml", where=where, error=str(e))) from None
    try:
        model = _TableFile.model_validate(data)
    except ValidationError as e:
        raise RulesError(Message("msg_in_file", where=where, what=_first_error(e, data))) from None
    try:
        return _table(model, path.stem, where)
    except RulesError:
        raise
    except RoadsAppError as e:  # ShoeOptions checks its own ranges
        raise RulesError(
            Message("msg_in_shoe_section", where=where, section="[shoe]", error=e.message)
        ) from None


def _read_toml_text(path: Path, where: str) -> str:
    """The file's text; the one place a rules file is read from disk.

    Regular files only, at most `MAX_RULES_BYTES`, nesting capped (tomllib recurses).
    """
    if not path.exists() and not path.is_symlink():
        known, file = ", ".join(list_tables()), f"{user_tables_dir()}/<name>.toml"
        raise RulesError(
            Message("msg_no_rules_file", where=where, known=known, file=file)
            if known
            else Message("msg_no_rules_file_none", where=where, file=file)
        )
    try:
        text = safe_io.read_text_bounded(path, MAX_RULES_BYTES, where)
        safe_io.check_depth(text, where, quotes="\"'")
    except RoadsAppError as e:
        raise RulesError(str(e)) from None
    return text


def _resolve(name_or_path: str | Path) -> Path:
    """A table name means a built-in table first, then a user table; a path is a path."""
    if isinstance(name_or_path, Path):
        path = name_or_path
    else:
        s = str(name_or_path)
        if not (s.endswith(".toml") or "/" in s or os.sep in s):
            builtin = RULES_DIR / f"{s}.toml"
            if builtin.is_file():
                return builtin
            return _user_files().get(s, builtin)
        path = Path(s)
    if path.stem in _builtin_names() and not _is_builtin(path):
        raise RulesError(
            Message(
                "msg_builtin_table_name",
                where=shown_path(path),
                name=quote(path.stem),
                field="name",
            )
        )
    return path


def _is_builtin(path: Path) -> bool:
    try:
        path.resolve().relative_to(RULES_DIR.resolve())
    except (ValueError, OSError):
        return False
    return True


def _display(path: Path) -> str:
    """``rules/classic.toml`` for the built-in files, the path as given otherwise."""
    try:
        return str(Path(RULES_DIR.name) / path.resolve().relative_to(RULES_DIR.resolve()))
    except ValueError:
        return shown_path(path)


# --- the schema --------------------------------------------------------------------------

MAX_PAYOUT = 10_000.0
"""No published baccarat bet pays more than a few hundred to one; a larger figure is a typo."""
MAX_STAKE = 1e9
MAX_ROUND = 10_000

Payout = Annotated[float, Field(gt=0, le=MAX_PAYOUT, allow_inf_nan=False)]
Stake = Annotated[float, Field(gt=0, le=MAX_STAKE, allow_inf_nan=False)]
_STRICT = ConfigDict(extra="forbid", strict=True)


class _ShoeFile(BaseModel):
    model_config = _STRICT
    decks: int = Field(ge=1, le=MAX_DECKS)
    cut: int = ShoeOptions().cut
    burn: bool = ShoeOptions().burn
    burn_between_hands: bool = ShoeOptions().burn_between_hands


class _LimitsFile(BaseModel):
    model_config = _STRICT
    min_bet: Stake
    max_bet: Stake


class _BetFile(BaseModel):
    model_config = _STRICT
    payout: Payout | dict[str, Payout]
    label: str | None = Field(default=None, min_length=1, max_length=60)
    closes_after: int | None = Field(default=None, ge=1, le=MAX_ROUND)


class _TableFile(BaseModel):
    model_config = _STRICT
    name: str | None = None
    title: str = Field(min_length=1, max_length=80)
    source: str
    notes: list[str] = []
    shoe: _ShoeFile
    limits: _LimitsFile
    bets: dict[str, _BetFile]
    shortcuts: dict[str, list[str]] = {}


_MODEL_AT: dict[str, type[BaseModel]] = {
    "": _TableFile,
    "shoe": _ShoeFile,
    "limits": _LimitsFile,
    "bets": _BetFile,
}

_TYPE_WORDS = {
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "text",
    "list_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "finite_number": "a finite number",
}


def _first_error(err: ValidationError, data: dict[str, Any]) -> str:
    """The first schema error as one line: which field, and what is wrong with it."""
    # An unknown field first: a misspelt key also shows up as a missing one.
    errors = sorted(err.errors(), key=lambda e: e["type"] != "extra_forbidden")
    for e in errors:
        loc = [str(x) for x in e["loc"]]
        # A union (a payout is a number or a table of numbers) reports each member; keep
        # only the member of the kind actually written.
        tags = [i for i, x in enumerate(loc) if "[" in x or "-" in x]
        path = [x for i, x in enumerate(loc) if i not in tags]
        if tags:
            written = _lookup(data, loc[: tags[0]])
            if loc[tags[0]].startswith("dict[") != isinstance(written, dict):
                continue
        return _message(e, path, _lookup(data, path))
    e = errors[0]
    return _message(e, [str(x) for x in e["loc"]], e.get("input"))


def _lookup(data: Any, path: list[str]) -> Any:
    for key in path:
        if isinstance(data, list) and key.isdigit() and int(key) < len(data):
            data = data[int(key)]
        elif isinstance(data, dict) and key in data:
            data = data[key]
        else:
            return None
    return data


_RANGE_WORDS = (
    ("input should be greater than or equal to", "must be at least"),
    ("input should be less than or equal to", "must be at most"),
    ("input should be greater than", "must be more than"),
    ("input should be less than", "must be less than"),
    ("string should have at least", "must have at least"),
    ("string should have at most", "must have at most"),
)


def _message(e: Any, path: list[str], value: Any) -> str:
    field_name = "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in path).lstrip(".")
    kind = e["type"]
    if kind == "missing":
        return f"missing field '{field_name}'"
    if kind == "extra_forbidden":
        parent = "bets" if path[0] == "bets" and len(path) == 3 else ".".join(path[:-1])
        model = _MODEL_AT.get(parent, _TableFile)
        allowed = ", ".join(model.model_fields)
        return f"unknown field '{field_name}' (allowed: {allowed})"
    if kind in _TYPE_WORDS:
        return f"field '{field_name}' must be {_TYPE_WORDS[kind]}, not {quote(value)}"
    shown = f"{value:g}" if isinstance(value, float) else repr(value)
    why = e["msg"].lower()
    for pydantic_words, ours in _RANGE_WORDS:
        why = why.replace(pydantic_words, ours)
    return f"field '{field_name}' = {shown} is out of range: {why}"


def _table(model: _TableFile, stem: str, where: str) -> Table:
    name = stem if model.name is None else model.name
    if name != stem:
        raise RulesError(
            Message("msg_table_name_mismatch", where=where, name=quote(name), stem=quote(stem))
        )
    shoe = ShoeOptions(
        decks=model.shoe.decks,
        cut=model.shoe.cut,
        burn=model.shoe.burn,
        burn_between_hands=model.shoe.burn_between_hands,
    )
    lo, hi = model.limits.min_bet, model.limits.max_bet
    if hi < lo:
        raise RulesError(
            Message(
                "msg_max_below_min",
                where=where,
                max_key="limits.max_bet",
                hi=f"{hi:g}",
                min_key="limits.min_bet",
                lo=f"{lo:g}",
            )
        )
    if not model.bets:
        raise RulesError(Message("msg_table_no_bets", where=where, bets="'bets'"))
    bets = {bid: _bet(bid, spec, where) for bid, spec in model.bets.items()}

    shortcuts: dict[str, tuple[str, ...]] = {}
    for sname, unders in model.shortcuts.items():
        if sname in BET_LABELS:
            raise RulesError(Message("msg_shortcut_bet_name", where=where, name=sname))
        if not unders:
            raise RulesError(Message("msg_shortcut_no_bets", where=where, name=sname))
        for u in unders:
            if u not in bets:
                offered = ", ".join(bets)
                raise RulesError(
                    Message(
                        "msg_shortcut_not_offered",
                        where=where,
                        name=sname,
                        bet=quote(u),
                        offered=offered,
                    )
                )
        if len(set(unders)) != len(unders):
            raise RulesError(Message("msg_shortcut_twice", where=where, name=sname))
        shortcuts[sname] = tuple(unders)

    return Table(
        name=name,
        title=model.title,
        source=model.source,
        shoe=shoe,
        limits=Limits(lo, hi),
        bets=bets,
        shortcuts=shortcuts,
        notes=tuple(model.notes),
    )


def _bet(bid: str, spec: _BetFile, where: str) -> Bet:
    """A bet of the file: its kind must exist and every payout key it needs be given."""
    if bid not in KINDS:
        raise RulesError(
            Message("msg_rules_unknown_bet", where=where, bet=quote(bid), known=", ".join(BET_IDS))
        )
    kind = KINDS[bid]
    if isinstance(spec.payout, dict):
        given = spec.payout
        unknown = [k for k in given if k not in kind.payouts]
        if unknown:
            raise RulesError(
                Message(
                    "msg_no_payout_key",
                    where=where,
                    bet=bid,
                    payout_key=quote(unknown[0]),
                    keys=", ".join(kind.payouts),
                )
            )
        lacking = [k for k in kind.required if k not in given]
        if lacking:
            raise RulesError(
                Message(
                    "msg_payout_lacks",
                    where=where,
                    bet=bid,
                    lacking=", ".join(map(repr, lacking)),
                    keys=", ".join(kind.payouts),
                )
            )
    else:
        if len(kind.required) > 1:
            keys = ", ".join(kind.payouts)
            raise RulesError(
                Message(
                    "msg_pays_by_outcome",
                    where=where,
                    bet=bid,
                    payout="payout = { ... }",
                    keys=keys,
                )
            )
        given = {kind.payouts[0]: spec.payout}
    return Bet(
        id=bid,
        label=kind.label if spec.label is None else spec.label,
        payouts=given,
        closes_after=spec.closes_after,
    )


def describe(table: Table) -> str:
    """A table as text for the terminal: shoe, limits, every bet, shortcuts and notes.

    >>> print(describe(load_table("classic")).splitlines()[0])
    classic: Classic (source 000_1150d3b8e18c4300.txt)
    """
    s = table.shoe
    lines = [
        f"{table.name}: {table.title} (source {table.source})",
        f"shoe: {s.decks} decks, cut {s.cut} from the end, burn {'on' if s.burn else 'off'}, "
        f"burn between hands {'on' if s.burn_between_hands else 'off'}",
        f"limits: {limits_text(table.limits)} per bet",
        "bets:",
    ]
    for bet in table.bets.values():
        extra = ""
        if bet.closes_after is not None:
            extra += f", closes after round {bet.closes_after}"
        lines.append(f"  {bet.id:<20}{bet.label:<20}{bet.payout_text()}{extra}")
    for name, unders in table.shortcuts.items():
        label = SHORTCUT_LABELS.get(name, name)
        lines.append(f"shortcut {name} ({label}): one stake on each of {', '.join(unders)}")
    lines += ["notes:", *(f"  - {n}" for n in table.notes)]
    return "\n".join(lines)
