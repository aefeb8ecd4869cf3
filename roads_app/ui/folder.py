"""The data folder the dashboard serves, and keeping its path out of what a page shows.

No Streamlit here and no page imports: `session` (the tab's shoe) and `words` (what a
page says) both read it, so neither needs the other at import.
"""

from __future__ import annotations

import os
from pathlib import Path

from roads_app.i18n import DEFAULT, word
from roads_app.shoefiles import files as shoe_files
from roads_app.store.location import DATA_ENV  # absolute, set by `serve.run_dashboard`


def data_dir() -> Path:
    """The folder whose ``roads.db`` holds the shoes (created on first use)."""
    path = Path(os.environ.get(DATA_ENV) or shoe_files.DATA_DIR).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def scrub(message: str, folder: Path | None = None, lang: str = DEFAULT) -> str:
    """A message fit for a browser: the server's own folder paths are not the reader's
    business (and may be another person's machine), so they become "the data folder".

    >>> scrub("no saved shoe 'x' in /srv/roads/data", Path("/srv/roads/data"))
    "no saved shoe 'x' in the data folder"
    >>> scrub("/srv/roads/data/roads.db: is busy", Path("/srv/roads/data"))
    'roads.db in the data folder: is busy'
    """
    if os.sep not in message:  # no path in it: spare the folder look-up (and its mkdir)
        return message
    root = str(folder or data_dir())
    message = message.replace(root + "/roads.db", word("db_in_data_folder", lang, db="roads.db"))
    return message.replace(root, word("the_data_folder", lang))
