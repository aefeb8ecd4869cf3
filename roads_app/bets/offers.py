"""What the bet panel offers for the next round, and why not: decided here, laid out there.

`refusal` is the one answer to "can this bet (or shortcut) be placed now?": the
table's closing rounds and limits with what is already on the bet (`ledger.can_place`),
whether the way the next round will be entered can settle it (`entry_reason`), and the
bankroll. The button asks it to be enabled or not (its reason is the tooltip) and the
placing asks it again on the ledger as it is when clicked, so what a button offers is
what the ledger takes.

`layout` sorts a table's bets the way a betting layout does: Player, Tie, Banker first,
each hand's side bets beside it, the bets on neither hand, and numbered families (Super
Tie 0 to 9) as one group, so the page only places what it is given.

>>> from roads_app.bets.tables import load_table
>>> lay = layout(load_table("winbox"))
>>> lay.main, lay.player, lay.banker
(('player', 'tie', 'banker'), ('player_pair', 'player_natural'), ('banker_pair', 'banker_natural'))
>>> lay.families["super_tie"][:3]
('super_tie_0', 'super_tie_1', 'super_tie_2')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import polars as pl

from roads_app.bets import ledger as BL
from roads_app.bets.tables import BetLike, Table, bet_name
from roads_app.game.rounds import EntryMode
from roads_app.messages import Message

ENTRY_ORDER: tuple[EntryMode, ...] = tuple(EntryMode)
"""How much of a round is entered, least first; a bet needs its kind's `entry` or more."""
ENTRY_LABELS: Mapping[str, str] = MappingProxyType({m: f"entry_{m}" for m in EntryMode})
"""Catalogue keys of the entry modes' names (as the entry-mode switch shows them)."""
ENTRY_HOW: Mapping[str, str] = MappingProxyType({m: f"how_{m}" for m in EntryMode})
"""Catalogue keys of the entry modes inside a sentence ("enter it by points")."""
NEED_WORDS: Mapping[str, str] = MappingProxyType(
    {EntryMode.POINTS: "need_points", EntryMode.CARDS: "need_cards"}
)
"""Catalogue keys of what a bet needs of a round."""
SIDE_IDS: tuple[str, str] = ("player", "banker")
"""The bet on each side, Player and Banker, by its id: what a backtest's main bet is and
never a bet beside it (`beside_main`); the side a side bet sits on (`side_of`)."""
MAIN_IDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"player": ("player",), "tie": ("tie",), "banker": ("banker", "ez_banker")}
)
"""The three main bets, in the layout's order; a table's Banker may be EZ Banker."""
FAMILY = re.compile(r"^(?P<family>[a-z_]+?)_(?P<k>\d+)$")
"""A numbered bet (``super_tie_7``): members of one family are laid out as one grid."""


def needed_entry(bet: BetLike) -> EntryMode:
    """The least entry that settles ``bet`` *at this table*: its kind's `entry`, except
    that data which only chooses between payouts this table pays alike is not needed
    (Banker needs the totals only where a win on 6 pays less)."""
    spec = bet.spec  # type: ignore[attr-defined]
    need = EntryMode(spec.entry)
    if (
        need == EntryMode.POINTS
        and set(spec.needs) <= {"winner", "points"}
        and len(spec.payouts) > 1
        and len(set(bet.payouts.values())) == 1
    ):
        return EntryMode.WINNER
    return need


def entry_reason(bet: BetLike, mode: str) -> Message | None:
    """Why ``bet`` is not offered when the next round is entered by ``mode`` (None: it is).

    A bet whose result depends on what the entry does not record (Banker's half pay on
    a 6 when only the winner is keyed, Big/Small without the cards) would be taken and
    then come back refused; it is not offered instead.
    """
    need = needed_entry(bet)
    if ENTRY_ORDER.index(need) <= ENTRY_ORDER.index(mode):
        return None
    return Message(
        "bet_needs", bet=bet_name(bet), what=Message(NEED_WORDS[need]), how=Message(ENTRY_HOW[need])
    )


def refusal(
    table: Table,
    bets: pl.DataFrame,
    bet_id: str,
    stake: float,
    round_no: int,
    *,
    mode: str,
    bankroll: float,
) -> str | None:
    """Why ``bet_id`` (a bet or a shortcut such as 2-Way) cannot take ``stake`` on
    ``round_no`` now (None: it can): the table and the ledger, the entry, the bankroll.

    >>> from roads_app.bets.tables import load_table
    >>> t = load_table("winbox-no-commission")
    >>> refusal(t, BL.empty_bets(), "big", 10, 1, mode="winner", bankroll=100)
    'Big needs the cards of the round: enter it by cards to bet on it'
    >>> refusal(t, BL.empty_bets(), "player", 500, 1, mode="winner", bankroll=100)
    'not enough bankroll: 500 asked, 100 left'
    """
    parts = table.shortcuts.get(bet_id, (bet_id,))
    if bet_id in table.shortcuts:
        why = table.can_place(bet_id, round_no, stake)
    else:
        why = BL.can_place(bets, bet_id, stake, round_no, table)
    if why is not None:  # the table first: a bet closed for the shoe says so
        return why
    for part in parts:
        if part in table.bets and (why := entry_reason(table.bets[part], mode)):
            return why
    return BL.beyond_bankroll(bets, stake * len(parts), round_no, bankroll)


def not_offered(table: Table, mode: str) -> tuple[str, ...]:
    """The table's bets the entry ``mode`` cannot settle (shown together, with why)."""
    return tuple(b for b, bet in table.bets.items() if entry_reason(bet, mode))


def needs_of(table: Table, mode: str) -> tuple[str, ...]:
    """What the bets of `not_offered` need (catalogue keys of `NEED_WORDS`), least first."""
    needs = {needed_entry(table.bets[b]) for b in not_offered(table, mode)}
    return tuple(NEED_WORDS[n] for n in ENTRY_ORDER if n in needs)


# --- the layout --------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """A table's bets as a betting layout places them (ids, in the table's order)."""

    main: tuple[str, ...]
    """Player, Tie, Banker (those the table has): first and largest."""
    player: tuple[str, ...] = ()
    """Side bets on the Player's hand (Player Pair, Player Natural...)."""
    banker: tuple[str, ...] = ()
    """Side bets on the Banker's hand."""
    middle: tuple[str, ...] = ()
    """Side bets on neither hand (Big, Small, Any Pair...)."""
    families: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Numbered families (``super_tie`` -> Super Tie 0..9): one compact grid each."""

    @property
    def side(self) -> tuple[str, ...]:
        """Every bet that is not a main one."""
        return (
            *self.player,
            *self.banker,
            *self.middle,
            *(b for f in self.families.values() for b in f),
        )


def beside_main(table: Table) -> list[str]:
    """The table's bets a backtest may place every hand beside its main bet: all but the
    two sides' own (Tie and EZ Banker may ride beside a Banker or Player bet).

    >>> from roads_app.bets.tables import load_table
    >>> beside = beside_main(load_table("classic"))
    >>> "banker" in beside, "player" in beside, "tie" in beside
    (False, False, True)
    """
    return [b for b in table.bets if b not in SIDE_IDS]


def side_of(bet_id: str) -> str:
    """Which hand a side bet belongs to on the layout: ``player``, ``banker`` or ``middle``."""
    for side in SIDE_IDS:
        if bet_id.startswith(f"{side}_") or bet_id.endswith(f"_{side}"):
            return side
    return "middle"


def layout(table: Table) -> Layout:
    """The table's bets sorted into `Layout` places (every bet exactly once)."""
    main = tuple(i for ids in MAIN_IDS.values() for i in ids if i in table.bets)
    members: dict[str, list[str]] = {}
    for bet_id in table.bets:
        if bet_id not in main and (m := FAMILY.match(bet_id)):
            members.setdefault(m["family"], []).append(bet_id)
    families = {f: tuple(ids) for f, ids in members.items() if len(ids) >= 3}
    grouped = {b for ids in families.values() for b in ids}
    rest = [b for b in table.bets if b not in main and b not in grouped]
    return Layout(
        main=main,
        player=tuple(b for b in rest if side_of(b) == "player"),
        banker=tuple(b for b in rest if side_of(b) == "banker"),
        middle=tuple(b for b in rest if side_of(b) == "middle"),
        families=MappingProxyType(families),
    )
