"""Argument types with stated ranges: every number on the command line is checked here.

A value out of range is argparse's one-line error (exit 2), before any work starts,
so a huge ``--after`` never reaches the compiled engine and ``--bankroll 1e308`` never
reaches the arithmetic. The limits are in the help texts.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import re
from collections.abc import Callable, Mapping

from roads_app.errors import quote

MAX_SEED = 2**64 - 1
MAX_MONEY = 1e9
"""Largest bankroll, stake or limit: far beyond a table, far below float trouble."""


def _shown(text: str) -> str:
    """A number as typed when it is short and plain, else its short escaped quote."""
    return text if len(text) <= 40 and text.isprintable() else quote(text)


def int_range(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lo`` to ``hi``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quote(text)} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is out of range: use {lo} to {hi:_}")
        return value

    parse.__name__ = "whole number"
    return parse


def float_range(lo: float, hi: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number from ``lo`` to ``hi`` (``lo`` excluded if low_open)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quote(text)} is not a number") from None
        low_ok = value > lo if low_open else value >= lo
        if not math.isfinite(value) or not low_ok or value > hi:
            side = "more than" if low_open else "from"
            raise argparse.ArgumentTypeError(
                f"{_shown(text)} is out of range: use a number {side} {lo:g} up to {hi:g}"
            )
        return value

    parse.__name__ = "number"
    return parse


port_number = int_range(1, 65535)
seed_number = int_range(0, MAX_SEED)
money = float_range(0.0, MAX_MONEY, low_open=True)
money_or_zero = float_range(0.0, MAX_MONEY)

_HOST_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$")


def host_name(text: str) -> str:
    """An IP address or a plain host name for the dashboard to listen on."""
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if _HOST_RE.match(text):
        return text
    raise argparse.ArgumentTypeError(f"{quote(text)} is not an IP address or host name")


def late_help(fill: Callable[[], Mapping[str, str]]) -> type[argparse.HelpFormatter]:
    """A help formatter that fills the ``{name}`` fields of a parser's help texts only
    when its help is printed: listing the strategies in ``backtest --help`` must not
    import the engine for every other command (``roads-app simulate`` starts in half
    the time). Pass it as ``formatter_class``."""

    class LateHelp(argparse.HelpFormatter):
        def _get_help_string(self, action: argparse.Action) -> str | None:
            text = super()._get_help_string(action)
            return text.format_map(fill()) if text and "{" in text else text

    return LateHelp


def print_json(obj: object) -> None:
    """Print strict JSON: a NaN or infinity is a bug to report, never ``NaN`` in the output."""
    import json

    print(json.dumps(obj, indent=2, allow_nan=False))
