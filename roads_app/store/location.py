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


def check_data_dir(path: str | Path) -> Path:
    """Refuse a data folder path the system cannot use (a name over 255 bytes, a path
    over its length limit, a loop of links) in one line, before any command uses it;
    a folder that does not exist yet is fine (the store creates it)."""
    from roads_app.errors import StorageError, shown_path
    from roads_app.messages import Message

    folder = Path(path).expanduser()
    try:
        os.stat(folder)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise StorageError(
            Message("msg_data_unusable", option="--data", path=shown_path(path), error=e.strerror)
        ) from None
    if folder.exists() and not folder.is_dir():
        raise StorageError(Message("msg_data_is_file", option="--data", path=shown_path(path)))
    return folder
