"""Table variants as data: one TOML file per table in ``rules/``, read by a validating loader.

Payouts, closing rounds, limits and shoe options live in files rather than code so a
user can add a table by adding a file, and every number can be traced to its seed page
(each file names its ``source`` and says in ``notes`` what the seed got wrong).

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
    payout = 0.95          # a win pays 0.95 per 1 staked
    six_payout = 0.5       # optional, banker only: a banker win on 6 pays this instead
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
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from roads_app import safe_io
from roads_app.errors import RoadsAppError, RulesError
from roads_app.game.shoe import ShoeOptions

RULES_DIR: Path = Path(
    os.environ.get("ROADS_APP_RULES") or Path(__file__).resolve().parents[2] / "rules"
)
"""Where `load_table("name")` looks for ``name.toml`` (env ``ROADS_APP_RULES`` overrides)."""
MAX_RULES_BYTES = 256 * 1024
"""Largest rules file read (ours are about 3 KB)."""

BET_DESCRIPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "player": "Player hand wins; pushes on a tie.",
        "banker": "Banker hand wins; pushes on a tie (no-commission tables pay less on a 6).",
        "tie": "Both hands have the same total.",
        "player_pair": "Player's first two cards have equal rank.",
        "banker_pair": "Banker's first two cards have equal rank.",
        "big": "Five or six cards dealt in the round.",
        "small": "Four cards dealt in the round (neither hand draws).",
        "any_pair": "Either hand's first two cards have equal rank; pays once if both do.",
        "perfect_pair": "Either hand's first two cards are the same rank and suit; pays once.",
        "player_natural": "Player wins with a two-card 8 or 9; refunded on a natural tie.",
        "banker_natural": "Banker wins with a two-card 8 or 9; refunded on a natural tie.",
        "super_6": "Banker wins with a total of 6 (two or three cards).",
        **{f"super_tie_{k}": f"The round ties on a total of {k}." for k in range(10)},
    }
)
"""What each canonical bet wins on, in words (the settlement follows these)."""

BET_IDS: tuple[str, ...] = tuple(BET_DESCRIPTIONS)
"""Canonical bet ids, in display order; a rules file may only use these."""

BET_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "player": "Player",
        "banker": "Banker",
        "tie": "Tie",
        "player_pair": "Player Pair",
        "banker_pair": "Banker Pair",
        "big": "Big",
        "small": "Small",
        "any_pair": "Any Pair",
        "perfect_pair": "Perfect Pair",
        "player_natural": "Player Natural",
        "banker_natural": "Banker Natural",
        "super_6": "Super 6",
        **{f"super_tie_{k}": f"Super Tie {k}" for k in range(10)},
    }
)
"""Default display label per bet id (a rules file may give its own)."""

SHORTCUTS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "two_way": ("banker_pair", "player_pair"),
        "three_way": ("banker_pair", "player_pair", "tie"),
    }
)
"""Known shortcuts (seed 003): one stake placed on each of the listed bets."""

SHORTCUT_LABELS: Mapping[str, str] = MappingProxyType({"two_way": "2-Way", "three_way": "3-Way"})


@dataclass(frozen=True, slots=True)
class Bet:
    """One bet a table offers: a win pays ``payout`` per 1 staked (stake returned too)."""

    id: str
    label: str
    payout: float
    closes_after: int | None = None  # last round of the shoe it may be placed on; None: never
    six_payout: float | None = None  # banker on no-commission tables: a win on 6 pays this


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
            return f"stake {stake!r} is not a number"
        if math.isnan(stake):
            return "stake NaN is not a number"
        if not self.limits.min_bet <= stake <= self.limits.max_bet:
            return f"stake {stake:g} is outside the table limits ({limits_text(self.limits)})"
        bet = self.bets[bet_id]
        if bet.closes_after is not None and round_no > bet.closes_after:
            return (
                f"{bet.label} closes after round {bet.closes_after} of the shoe "
                f"(this is round {round_no})"
            )
        return None


def limits_text(limits: Limits) -> str:
    """``1 to 10,000``: how reasons quote the limits."""
    return f"{limits.min_bet:,g} to {limits.max_bet:,g}"


def not_offered_reason(table: Table, bet_id: str) -> str:
    """Why a bet id the table lacks is refused: unknown everywhere, or just not here."""
    if bet_id in BET_LABELS or bet_id in SHORTCUT_LABELS:
        label = BET_LABELS.get(bet_id) or SHORTCUT_LABELS[bet_id]
        return f"the {table.title} table does not offer {label}"
    return f"unknown bet {bet_id!r} (known: {', '.join(BET_IDS + tuple(SHORTCUTS))})"


def list_tables() -> list[str]:
    """Names of the tables in `RULES_DIR` (file names without ``.toml``), sorted."""
    if not RULES_DIR.is_dir():
        return []
    return sorted(p.stem for p in RULES_DIR.glob("*.toml"))


def load_table(name_or_path: str | Path) -> Table:
    """Read and check a rules file: ``"classic"`` means ``RULES_DIR/classic.toml``.

    Raises `RulesError` naming the file and exactly what is wrong with it.
    """
    path = _resolve(name_or_path)
    where = _display(path)
    if not path.exists() and not path.is_symlink():
        known = ", ".join(list_tables()) or "none"
        raise RulesError(f"{where}: no such rules file (tables: {known})")
    try:  # regular files only, bounded, nesting capped: tomllib recurses
        text = safe_io.read_text_bounded(path, MAX_RULES_BYTES, where)
        safe_io.check_depth(text, where, quotes="\"'")
    except RoadsAppError as e:
        raise RulesError(str(e)) from None
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise RulesError(f"{where}: not valid TOML: {e}") from None
    try:
        return _table(data, path.stem, where)
    except RulesError:
        raise
    except RoadsAppError as e:  # ShoeOptions checks its own ranges
        raise RulesError(f"{where}: [shoe] {e}") from None


def _resolve(name_or_path: str | Path) -> Path:
    if isinstance(name_or_path, Path):
        return name_or_path
    s = str(name_or_path)
    if s.endswith(".toml") or "/" in s or os.sep in s:
        return Path(s)
    return RULES_DIR / f"{s}.toml"


def _display(path: Path) -> str:
    """``rules/classic.toml`` for our own files, the path as given otherwise."""
    try:
        return str(Path(RULES_DIR.name) / path.resolve().relative_to(RULES_DIR.resolve()))
    except ValueError:
        return str(path)


_TOP = ("name", "title", "source", "notes", "shoe", "limits", "bets", "shortcuts")
_SHOE = ("decks", "cut", "burn", "burn_between_hands")
_BET = ("label", "payout", "closes_after", "six_payout")


def _table(data: dict[str, Any], stem: str, where: str) -> Table:
    _no_unknown(data, _TOP, "", where)
    name = _get(data, "name", str, where, default=stem)
    if name != stem:
        raise RulesError(
            f"{where}: name {name!r} does not match the file name {stem!r}: "
            "tables are loaded by file name"
        )
    title = _get(data, "title", str, where)
    source = _get(data, "source", str, where)
    notes = _get(data, "notes", list, where, default=[])
    for i, note in enumerate(notes):
        if not isinstance(note, str):
            raise RulesError(f"{where}: notes[{i}] must be text, not {_kind(note)}")

    shoe_d = _get(data, "shoe", dict, where)
    _no_unknown(shoe_d, _SHOE, "shoe.", where)
    defaults = ShoeOptions()
    shoe = ShoeOptions(
        decks=_get(shoe_d, "decks", int, where, prefix="shoe."),
        cut=_get(shoe_d, "cut", int, where, prefix="shoe.", default=defaults.cut),
        burn=_get(shoe_d, "burn", bool, where, prefix="shoe.", default=defaults.burn),
        burn_between_hands=_get(
            shoe_d,
            "burn_between_hands",
            bool,
            where,
            prefix="shoe.",
            default=defaults.burn_between_hands,
        ),
    )

    lim_d = _get(data, "limits", dict, where)
    _no_unknown(lim_d, ("min_bet", "max_bet"), "limits.", where)
    lo = _number(lim_d, "min_bet", "limits.", where)
    hi = _number(lim_d, "max_bet", "limits.", where)
    if lo <= 0:
        raise RulesError(f"{where}: limits.min_bet {lo:g} must be more than 0")
    if hi < lo:
        raise RulesError(f"{where}: limits.max_bet {hi:g} is below limits.min_bet {lo:g}")

    bets_d = _get(data, "bets", dict, where)
    if not bets_d:
        raise RulesError(f"{where}: 'bets' is empty: a table offers at least one bet")
    bets = {bid: _bet(bid, spec, where) for bid, spec in bets_d.items()}

    sc_d = _get(data, "shortcuts", dict, where, default={})
    shortcuts: dict[str, tuple[str, ...]] = {}
    for sname, unders in sc_d.items():
        if sname in BET_LABELS:
            raise RulesError(f"{where}: shortcut '{sname}' has the name of a bet")
        if not isinstance(unders, list) or not unders:
            raise RulesError(f"{where}: shortcut '{sname}' must be a non-empty list of bet ids")
        for u in unders:
            if u not in bets:
                offered = ", ".join(bets)
                raise RulesError(
                    f"{where}: shortcut '{sname}' places {u!r}, which the table does not offer "
                    f"(offered: {offered})"
                )
        if len(set(unders)) != len(unders):
            raise RulesError(f"{where}: shortcut '{sname}' lists a bet twice")
        shortcuts[sname] = tuple(unders)

    return Table(
        name=name,
        title=title,
        source=source,
        shoe=shoe,
        limits=Limits(lo, hi),
        bets=bets,
        shortcuts=shortcuts,
        notes=tuple(notes),
    )


def _bet(bid: str, spec: object, where: str) -> Bet:
    if bid not in BET_LABELS:
        raise RulesError(f"{where}: unknown bet {bid!r} (known: {', '.join(BET_IDS)})")
    if not isinstance(spec, dict):
        raise RulesError(f"{where}: bet '{bid}' must be a table like [bets.{bid}]")
    _no_unknown(spec, _BET, f"bets.{bid}.", where)
    payout = _number(spec, "payout", f"bets.{bid}.", where)
    if payout < 0:
        raise RulesError(f"{where}: bet '{bid}': payout {payout:g} is negative")
    if payout == 0:
        raise RulesError(f"{where}: bet '{bid}': payout 0 pays nothing; a payout is more than 0")
    label = _get(spec, "label", str, where, prefix=f"bets.{bid}.", default=BET_LABELS[bid])
    closes = _get(spec, "closes_after", int, where, prefix=f"bets.{bid}.", default=None)
    if closes is not None and closes < 1:
        raise RulesError(f"{where}: bet '{bid}': closes_after {closes} must be a round, 1 or more")
    six = None
    if "six_payout" in spec:
        if bid != "banker":
            raise RulesError(f"{where}: bet '{bid}': six_payout only applies to 'banker'")
        six = _number(spec, "six_payout", f"bets.{bid}.", where)
        if six < 0:
            raise RulesError(f"{where}: bet '{bid}': six_payout {six:g} is negative")
    return Bet(id=bid, label=label, payout=payout, closes_after=closes, six_payout=six)


_MISSING = object()


def _get(
    d: dict[str, Any],
    key: str,
    kind: type,
    where: str,
    *,
    prefix: str = "",
    default: Any = _MISSING,
) -> Any:
    if key not in d:
        if default is _MISSING:
            raise RulesError(f"{where}: missing field '{prefix}{key}'")
        return default
    v = d[key]
    ok = isinstance(v, kind) and not (kind is int and isinstance(v, bool))
    if not ok:
        raise RulesError(f"{where}: field '{prefix}{key}' must be {_KIND_NAMES[kind]}, not {v!r}")
    return v


def _number(d: dict[str, Any], key: str, prefix: str, where: str) -> float:
    if key not in d:
        raise RulesError(f"{where}: missing field '{prefix}{key}'")
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise RulesError(f"{where}: field '{prefix}{key}' must be a number, not {v!r}")
    return float(v)


def _no_unknown(d: dict[str, Any], allowed: tuple[str, ...], prefix: str, where: str) -> None:
    for k in d:
        if k not in allowed:
            raise RulesError(
                f"{where}: unknown field '{prefix}{k}' (allowed: {', '.join(allowed)})"
            )


_KIND_NAMES = {
    str: "text",
    int: "a whole number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
    float: "a number",
}


def _kind(v: object) -> str:
    return {
        str: "text",
        bool: "a boolean",
        int: "a whole number",
        float: "a number",
        list: "a list",
        dict: "a table",
    }.get(type(v), type(v).__name__)


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
        if bet.six_payout is not None:
            extra += f", {bet.six_payout:g}:1 on a winning 6"
        if bet.closes_after is not None:
            extra += f", closes after round {bet.closes_after}"
        lines.append(f"  {bet.id:<16}{bet.label:<16}{bet.payout:g}:1{extra}")
    for name, unders in table.shortcuts.items():
        label = SHORTCUT_LABELS.get(name, name)
        lines.append(f"shortcut {name} ({label}): one stake on each of {', '.join(unders)}")
    lines += ["notes:", *(f"  - {n}" for n in table.notes)]
    return "\n".join(lines)
