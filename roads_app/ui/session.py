"""The shoe a browser tab is working on: its state, and keeping it on disk.

The saved file is the truth. A tab remembers which shoe it shows through the URL
(``?shoe=<id>``) and keeps a copy of the rounds in ``st.session_state``; every change
is written atomically with `storage.save_shoe` *before* the tab's copy moves on, so a
refresh, a closed tab or a server restart finds the shoe where it was.

Two tabs on two shoes write two different files. Two tabs on the *same* shoe are
guarded: a tab only saves over the file if the file still holds the rounds that tab
last saw (`save_checked`); otherwise the change is refused with a message and the tab
reloads the newer rounds. A new shoe is created lazily, on its first result (or by the
"Start new shoe" button), so opening the page never piles up empty files.

The persistence half (`data_dir`, `save_checked`, `ShoeState`) has no Streamlit in it
and is tested directly; the rest reads and writes ``st.session_state``/``st.query_params``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError, StorageError
from roads_app.game.rounds import ShoeMeta, empty_rounds
from roads_app.store import files as storage

DATA_ENV = "ROADS_APP_DATA"
"""Absolute data folder, set by `launch.run_dashboard`; ``./data`` when absent."""
DEFAULT_TABLE = "classic"
DEFAULT_DECKS = 8

STATE_KEY = "roads_app.game.shoe"
ERRORS_KEY = "roads_app.errors"
NEW_SHOE_KEY = "roads_app.new_shoe"  # (rules, decks) of the shoe to create on first entry
URL_PARAM = "shoe"


class StaleShoeError(StorageError):
    """The saved shoe changed since this tab read it (another tab or window wrote it)."""


# --- persistence, no Streamlit ---------------------------------------------------------


def data_dir() -> Path:
    """The folder shoes are saved in (created on first use)."""
    path = Path(os.environ.get(DATA_ENV) or storage.DATA_DIR).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


_SAVE_LOCK = storage.WRITE_LOCK
"""One check-then-write at a time, shared with the library's rename (tabs are threads)."""


def _fingerprint(path: Path) -> tuple[int, int, int] | None:
    """Identity of the file's current version: every atomic save is a new inode."""
    try:
        st_ = path.stat()
    except FileNotFoundError:
        return None
    return st_.st_ino, st_.st_mtime_ns, st_.st_size


@dataclass(frozen=True)
class ShoeState:
    """One tab's copy of one shoe: what it shows and what it last read from disk.

    ``saved`` is False for a new shoe that has no file yet; ``stamp`` is the file's
    (inode, mtime, size) when it was last read or written, to notice other tabs' writes.
    """

    rounds: pl.DataFrame
    meta: ShoeMeta
    saved: bool = False
    stamp: tuple[int, int, int] | None = None

    @property
    def round_count(self) -> int:
        return self.rounds.height


def new_state(rules: str = DEFAULT_TABLE, decks: int = DEFAULT_DECKS) -> ShoeState:
    """A shoe entered by hand that exists only in this tab until its first change."""
    return ShoeState(empty_rounds(), ShoeMeta(source="hand", rules=rules, decks=decks))


def load_state(shoe_id: str, folder: Path) -> ShoeState:
    """Read a saved shoe (checked by `storage.load_shoe`) into a tab's state."""
    path = storage.shoe_path(shoe_id, folder)
    stamp = _fingerprint(path)
    rounds, meta = storage.load_shoe(shoe_id, folder)
    return ShoeState(rounds, meta, saved=True, stamp=stamp)


def is_current(state: ShoeState, folder: Path) -> bool:
    """Whether the file still is what this tab last read or wrote (one stat call)."""
    if not state.saved:
        return True
    return _fingerprint(storage.shoe_path(state.meta.id, folder)) == state.stamp


def save_checked(
    state: ShoeState, rounds: pl.DataFrame, folder: Path, meta: ShoeMeta | None = None
) -> ShoeState:
    """Save ``rounds`` as this shoe's new content, unless the file moved on meanwhile.

    The file must still hold exactly the rounds this tab shows. Unless ``meta`` is
    given, the metadata is taken from the file (so a rename made in the library is
    kept, not overwritten by this tab's older copy).
    """
    with _SAVE_LOCK:
        on_file = _check_unchanged(state, folder)
        meta = meta or on_file
        try:
            storage.save_shoe(rounds, meta, folder)
        except StorageError:
            raise
        except OSError as e:  # disk full, folder gone: the old file is still whole
            raise StorageError(
                f"could not save shoe {meta.id} in {folder}: {e.strerror or e}; "
                "nothing was changed"
            ) from None
        stamp = _fingerprint(storage.shoe_path(meta.id, folder))
    return ShoeState(rounds, meta, saved=True, stamp=stamp)


def _check_unchanged(state: ShoeState, folder: Path) -> ShoeMeta:
    """Refuse if the file is not what ``state`` last saw; return the file's metadata."""
    meta = state.meta
    path = storage.shoe_path(meta.id, folder)
    if not state.saved:
        if path.exists():
            raise StaleShoeError(f"shoe id {meta.id} is already taken: start a new shoe")
        return meta
    if not path.exists():
        raise StaleShoeError(f"shoe {meta.id} was deleted elsewhere: start a new shoe to go on")
    if _fingerprint(path) != state.stamp:
        on_disk, meta = storage.load_shoe(meta.id, folder)
        if not on_disk.equals(state.rounds):
            raise StaleShoeError(
                f"shoe {meta.id} was changed in another tab or window "
                f"({on_disk.height} rounds saved there, {state.rounds.height} here): "
                "it has been reloaded, enter your result again"
            )
    return meta


def shoe_version(shoe_id: str) -> tuple[int, int, int] | None:
    """The saved shoe's current version (None when there is no such shoe).

    The one place a follower (the display page) asks whether a shoe moved: one stat
    call today; the store's version number once shoes live in the database.
    """
    try:
        path = storage.shoe_path(storage.check_shoe_id(shoe_id), data_dir())
    except RoadsAppError:
        return None
    return _fingerprint(path)


@st.cache_data(max_entries=32, show_spinner=False)
def _load_version(shoe_id: str, folder: str, version: tuple) -> tuple[pl.DataFrame, ShoeMeta]:
    return storage.load_shoe(shoe_id, Path(folder))


def load_for_display(shoe_id: str) -> tuple[pl.DataFrame, ShoeMeta]:
    """A saved shoe as it is now, read again only when its version moved."""
    return _load_version(shoe_id, str(data_dir()), shoe_version(shoe_id) or ())


# --- the tab's state (Streamlit) ----------------------------------------------------------


def _url_shoe() -> str | None:
    value = st.query_params.get(URL_PARAM)
    return value or None


def _set_url(shoe_id: str | None) -> None:
    if shoe_id is None:
        if URL_PARAM in st.query_params:
            del st.query_params[URL_PARAM]
    elif st.query_params.get(URL_PARAM) != shoe_id:
        st.query_params[URL_PARAM] = shoe_id


def errors() -> dict[str, str]:
    """Messages waiting to be shown next to the input that caused them, by area."""
    return st.session_state.setdefault(ERRORS_KEY, {})


def set_error(area: str, message: str) -> None:
    errors()[area] = message


def clear_errors() -> None:
    st.session_state[ERRORS_KEY] = {}


def current() -> ShoeState:
    """This tab's shoe: the URL's, reloaded if another tab wrote it, else a new one.

    A bad or unknown ``?shoe=`` id is reported (area ``"shoe"``) and the tab starts a
    new shoe; the bad file itself is left alone.
    """
    folder = data_dir()
    state: ShoeState | None = st.session_state.get(STATE_KEY)
    wanted = _url_shoe()
    if wanted is None and state is not None and state.saved:
        # Coming back from another page drops the query string: keep the tab's shoe.
        _set_url(state.meta.id)
        wanted = state.meta.id
    if wanted is not None and (
        state is None or state.meta.id != wanted or not is_current(state, folder)
    ):
        try:
            state = load_state(wanted, folder)
        except RoadsAppError as e:
            set_error("shoe", f"could not open shoe {wanted!r}: {e}")
            _set_url(None)
            state = None
    if state is None or (wanted is None and state.saved):
        rules, decks = st.session_state.get(NEW_SHOE_KEY, (DEFAULT_TABLE, DEFAULT_DECKS))
        state = new_state(rules, decks)
    st.session_state[STATE_KEY] = state
    return state


def apply(area: str, change: Callable[[pl.DataFrame, ShoeMeta], pl.DataFrame]) -> bool:
    """Run one entry action on the tab's shoe and save it; errors go next to ``area``.

    ``change`` gets the current rounds and metadata and returns the new rounds (the
    `rounds` entry functions are pure, so on an error nothing has changed). Returns
    whether the change was saved.
    """
    clear_errors()
    folder = data_dir()
    # What this tab showed when the person acted, not a fresher copy: a shoe moved on
    # by another tab must be refused and shown, never silently added to.
    state = st.session_state.get(STATE_KEY) or current()
    try:
        new_rounds = change(state.rounds, state.meta)
        saved = save_checked(state, new_rounds, folder)
    except StaleShoeError as e:
        set_error(area, str(e))
        st.session_state.pop(STATE_KEY, None)
        return False
    except RoadsAppError as e:
        set_error(area, str(e))
        return False
    st.session_state[STATE_KEY] = saved
    _set_url(saved.meta.id)
    return True


def start_new_shoe(rules: str, decks: int) -> ShoeState:
    """Begin a new shoe on this tab with a chosen table and deck count; saved at once."""
    clear_errors()
    st.session_state[NEW_SHOE_KEY] = (rules, decks)
    state = new_state(rules, decks)
    saved = save_checked(state, state.rounds, data_dir())
    st.session_state[STATE_KEY] = saved
    _set_url(saved.meta.id)
    return saved


def open_shoe(shoe_id: str) -> ShoeState:
    """Make a saved shoe this tab's shoe (e.g. from the library), then show it."""
    clear_errors()
    state = load_state(shoe_id, data_dir())
    st.session_state[STATE_KEY] = state
    _set_url(state.meta.id)
    return state


def update_meta(**changes: object) -> ShoeState:
    """Change this shoe's metadata (name, notes, rules...) and save it, rounds unchanged."""
    state = current()
    meta = replace(state.meta, **changes)  # type: ignore[arg-type]
    saved = save_checked(state, state.rounds, data_dir(), meta=meta)
    st.session_state[STATE_KEY] = saved
    _set_url(saved.meta.id)
    return saved
