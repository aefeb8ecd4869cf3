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

RULES_ENV = "ROADS_APP_RULES"
"""Environment variable naming the user's rules folder (``roads-app --rules-dir DIR`` sets it)."""

TABLES_ENV = RULES_ENV
"""The same variable under the constant's old name, which other modules import: a
"table" is now a place on the floor, the rule sets are "rules"."""

OLD_RULES_ENV = "ROADS_APP_TABLES"
"""The variable's old spelling: still read for one version when ``RULES_ENV`` is unset
(the CLI says it is deprecated, `roads_app.cli`)."""


def user_tables_dir() -> Path:
    """Where a user's own ``<name>.toml`` rules live: ``$ROADS_APP_RULES`` (or the old
    ``$ROADS_APP_TABLES``), else the platform's config folder (``~/.config/roads-app/tables``
    on Linux, kept where existing files are)."""
    env = os.environ.get(RULES_ENV) or os.environ.get(OLD_RULES_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return platformdirs.user_config_path("roads-app") / "tables"
