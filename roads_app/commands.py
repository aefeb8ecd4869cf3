"""Registers the CLI subcommands that belong to later modules (odds, backtest, import...).

Each function takes the argparse subparsers object and adds one command; keeping
them here keeps `cli.py` small and lets each feature own its command.
"""

from __future__ import annotations

from roads_app.cli import EXTRA_COMMANDS  # noqa: F401
