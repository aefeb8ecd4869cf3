"""Where saved shoes live when no ``--data DIR`` is given.

An installed app keeps them where the platform keeps user data (``platformdirs``:
``~/.local/share/roads-app`` on Linux), never in whatever folder it was started from.
``ROADS_APP_DATA`` overrides; ``python3 dev.py app`` sets it to the checkout's ``data/``.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "ROADS_APP_DATA"
"""Environment variable naming the data folder (also how the dashboard process learns it)."""

APP_NAME = "roads-app"


def default_data_dir() -> Path:
    """``$ROADS_APP_DATA`` if set, else the platform's user data folder for roads-app."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return platformdirs.user_data_path(APP_NAME)
