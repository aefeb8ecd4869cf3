"""One exception family, so callers (CLI, dashboard) catch one type and show one line.

Every message says what is wrong and where, in words a player understands.
"""

from __future__ import annotations


class RoadsAppError(Exception):
    """Base of every error a person or a file can cause; its str() is a one-line message."""


class CardError(RoadsAppError, ValueError):
    """A card code that is not a card (`Zz`, `11h`, empty)."""


class DrawingRuleError(RoadsAppError, ValueError):
    """A hand whose cards the punto banco drawing rules do not allow."""


class ShoeCompositionError(RoadsAppError, ValueError):
    """More copies of a card than the shoe's decks hold (a ninth As in 8 decks)."""


class RoundError(RoadsAppError, ValueError):
    """A round that contradicts itself (winner against points) or an entry out of range."""


class StorageError(RoadsAppError, OSError):
    """A saved shoe that cannot be read or written: corrupt, truncated, foreign, bad name."""


class RulesError(RoadsAppError, ValueError):
    """A rules table (TOML) that is missing a field or holds a value that makes no sense."""


class BetError(RoadsAppError, ValueError):
    """A bet that cannot be placed: unknown bet, bad stake."""


class StrategyError(RoadsAppError, ValueError):
    """Bad strategy or backtest settings (a negative unit, an unknown strategy)."""


class ClusterError(RoadsAppError, RuntimeError):
    """A Ray cluster that cannot be used: Ray not installed, address unreachable, a shard lost."""
