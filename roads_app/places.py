"""Where the package's files live: the built-in tables and catalogue (package data) and
the user's own folder beside them; the pages' scripts, styles and fonts. Below every
layer that reads them, so the good roads' catalogue (`roads_app.roads.good_roads`)
finds its folder without the bets' tables, and the PNG scorecard (`roads_app.render`)
finds the pages' font without the dashboard.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

RULES_DIR: Path = Path(str(resources.files("roads_app.rules")))
"""The built-in tables (package data): `load_table("classic")` reads ``classic.toml`` here."""

DEFAULT_TABLE = "classic"
"""The table a shoe is played under when none is named (a new shoe, an API body, the
command line), and the one a page falls back to when a shoe's own is gone: the built-in
``classic.toml``. Here, below `game` (a shoe's metadata) and `bets` (the tables), so
both read it (`roads_app.bets.tables.fallback_table`)."""

STATIC_DIR: Path = Path(str(resources.files("roads_app"))) / "ui" / "static"
"""The pages' own scripts, style sheets, plotly.js and fonts (``fonts/``), package files
read by path: the dashboard serves them (`roads_app.ui.page_head`), the scorecard draws
with the font (`roads_app.render.fonts`)."""

TABLES_ENV = "ROADS_APP_TABLES"
"""Environment variable naming the user tables folder (``roads-app --tables DIR`` sets it)."""


def user_tables_dir() -> Path:
    """Where a user's own ``<name>.toml`` tables live: ``$ROADS_APP_TABLES``, else the
    platform's config folder (``~/.config/roads-app/tables`` on Linux)."""
    env = os.environ.get(TABLES_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return platformdirs.user_config_path("roads-app") / "tables"
