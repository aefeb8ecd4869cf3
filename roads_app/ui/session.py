"""The shoe a browser tab is working on: its state, and keeping it on disk.

The database (`roads_app.store.db`) is the truth. A tab remembers which shoe it shows
through the URL (``?shoe=<id>``) and keeps a copy of the rounds in ``st.session_state``
with the version it read; every change is committed *before* the tab's copy moves on,
so a refresh, a closed tab or a server restart finds the shoe where it was.

Two tabs (or two servers, or a script) on the *same* shoe are guarded: a change carries
the version the tab read and is refused by the store if the rounds moved on since
(`save_checked`); the tab shows the message and reloads the newer rounds. A new shoe is
created lazily, on its first result (or by the "Start new shoe" button), so opening the
page never piles up empty shoes.

The persistence half (`data_dir`, `save_checked`, `ShoeState`) has no Streamlit in it
and is tested directly; the rest reads and writes ``st.session_state``/``st.query_params``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError, quote
from roads_app.game.rounds import ShoeMeta, check_name, check_shoe_id, default_name, empty_rounds
from roads_app.messages import Message
from roads_app.places import DEFAULT_TABLE
from roads_app.shoefiles.samples import SAMPLE_PREFIX
from roads_app.store import db
from roads_app.ui.folder import DATA_ENV, data_dir  # noqa: F401  (pages and tests read them here)
from roads_app.ui.words import md_text, say, tr

DEFAULT_DECKS = 8

STATE_KEY = "roads_app.game.shoe"
ERRORS_KEY = "roads_app.errors"
NEW_SHOE_KEY = "roads_app.new_shoe"  # (rules, decks) of the shoe to create on first entry
URL_PARAM = "shoe"
appended_hooks: list[Callable[[float], None]] = []
"""Told the seconds each result entered on a page took to save, or to be refused (the
dashboard's ``/metrics``: `roads_app.ui.server_metrics`)."""


StaleShoeError = db.StaleShoeError
"""The saved shoe changed since this tab read it (another tab, server or script wrote it)."""


# --- persistence, no Streamlit ---------------------------------------------------------


def store(folder: Path | None = None) -> db.Store:
    """The library database of the data folder (one per process, a connection per thread)."""
    return db.open_store(folder or data_dir())


@dataclass(frozen=True)
class ShoeState:
    """One tab's copy of one shoe: what it shows and the version it last read or wrote.

    ``saved`` is False for a new shoe not in the database yet; ``version`` is the
    store's version number of the shoe when this tab last read or wrote it.
    """

    rounds: pl.DataFrame
    meta: ShoeMeta
    saved: bool = False
    version: int | None = None
    ended: str | None = None
    """When the shoe ended (its rounds are read-only since), None while it is played."""

    @property
    def round_count(self) -> int:
        return self.rounds.height


def new_state(
    rules: str = DEFAULT_TABLE, decks: int = DEFAULT_DECKS, name: str | None = None
) -> ShoeState:
    """A shoe entered by hand that exists only in this tab until its first change,
    named ``name`` or after its table and the minute it started (`default_name`)."""
    name = check_name(name) if name and name.strip() else default_name(rules)
    return ShoeState(empty_rounds(), ShoeMeta(name=name, source="hand", rules=rules, decks=decks))


def load_state(shoe_id: str, folder: Path) -> ShoeState:
    """Read a saved shoe (rounds, metadata and version in one snapshot) into a tab's state."""
    saved = store(folder).shoes.load(check_shoe_id(shoe_id))
    return ShoeState(saved.rounds, saved.meta, saved=True, version=saved.version, ended=saved.ended)


def is_current(state: ShoeState, folder: Path) -> bool:
    """Whether the shoe is still at the version this tab last read or wrote (one lookup)."""
    if not state.saved:
        return True
    return store(folder).shoes.version(state.meta.id) == state.version


def save_checked(
    state: ShoeState, rounds: pl.DataFrame, folder: Path, meta: ShoeMeta | None = None
) -> ShoeState:
    """Save ``rounds`` as this shoe's new content, unless its rounds moved on meanwhile.

    The store refuses (`StaleShoeError`, across threads and processes) when another
    writer changed the rounds since ``state.version``; a rename made in the library is
    kept, not overwritten by this tab's older copy of the metadata (unless ``meta`` is
    given). Only the difference is written: a new result is one INSERT.
    """
    db_ = store(folder)
    if not state.saved:
        version = db_.shoes.create(meta or state.meta, rounds)
        return ShoeState(rounds, meta or state.meta, saved=True, version=version)
    version = db_.rounds.save(state.meta.id, state.rounds, rounds, state.version)
    if meta is not None and meta != state.meta:
        version = db_.shoes.update_meta(meta, version)
    return ShoeState(rounds, db_.shoes.meta(state.meta.id), saved=True, version=version)


def shoe_version(shoe_id: str) -> int | None:
    """The saved shoe's current version in the store (None: no such shoe, or trashed).

    The one place a follower (the display page) asks whether a shoe moved: one indexed
    read of the database, so any writer (a tab, the CLI, the HTTP API) is seen.
    """
    try:
        return store().shoes.version(check_shoe_id(shoe_id))
    except RoadsAppError:
        return None


@lru_cache(maxsize=32)
def _load_version(shoe_id: str, folder: str, version: int) -> tuple[pl.DataFrame, ShoeMeta]:
    """Read once per version for every screen that shows it. Not ``st.cache_data``:
    Streamlit keeps a lock and a key for every argument tuple that cache ever saw, past
    its ``max_entries``, and a floor's screens read a new version of every table's shoe
    every hand, all day (about 200 bytes a version, kept for good). Shared: the frame and
    the metadata are not changed by a caller (a Polars frame is not changed in place)."""
    saved = store(Path(folder)).shoes.load(shoe_id)
    return saved.rounds, saved.meta


def load_for_display(shoe_id: str, version: int) -> tuple[pl.DataFrame, ShoeMeta]:
    """A saved shoe at ``version``, read from the store only when the version moved."""
    return _load_version(shoe_id, str(data_dir()), version)


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


def set_error(area: str, message: str | BaseException) -> None:
    """Show ``message`` (an error, a `Message`, text) next to ``area``, in the page's
    language where the message has a translation."""
    errors()[area] = say(message)  # scrubbed of the server's folder paths


def by_name(error: BaseException, meta: ShoeMeta) -> BaseException | Message:
    """The store's message about this shoe with the shoe called by its name (quoted),
    as the page calls it, where it has one: people know a table by its name, not its id.
    Any other error as it is."""
    message = error.args[0] if len(error.args) == 1 else None
    if not (meta.name and isinstance(message, Message) and message.fields.get("id") == meta.id):
        return error
    return Message(message.key, **{**message.fields, "id": quote(meta.name)})


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
            set_error("shoe", tr("could_not_open", id=md_text(quote(wanted)), why=say(e)))
            _set_url(None)
            state = None
    if state is None or (wanted is None and state.saved):
        rules, decks, *_ = st.session_state.get(NEW_SHOE_KEY, (DEFAULT_TABLE, DEFAULT_DECKS))
        state = new_state(rules, decks)  # a name of its own, not the last shoe's
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
    start = time.perf_counter()
    try:
        new_rounds = change(state.rounds, state.meta)
        saved = save_checked(state, new_rounds, folder)
    except StaleShoeError as e:
        set_error(area, by_name(e, state.meta))
        st.session_state.pop(STATE_KEY, None)
        _timed(start, new_rounds.height > state.rounds.height)
        return False
    except RoadsAppError as e:
        set_error(area, by_name(e, state.meta))
        return False
    _timed(start, new_rounds.height > state.rounds.height)
    st.session_state[STATE_KEY] = saved
    _set_url(saved.meta.id)
    return True


def _timed(start: float, appended: bool) -> None:
    """Tell `appended_hooks` how long a result's save (or its refusal) took."""
    if appended:
        for hook in appended_hooks:
            hook(time.perf_counter() - start)


def can_bring_back(state: ShoeState) -> bool:
    """Whether an undone round of this shoe can be brought back (from the history)."""
    return state.saved and store().rounds.redoable(state.meta.id).height > 0


def bring_back(area: str = "result") -> bool:
    """Undo the last undo: the round it took back returns, as the store's history kept it."""
    clear_errors()
    folder = data_dir()
    state = st.session_state.get(STATE_KEY) or current()
    try:
        if not state.saved:
            raise db.StorageError(Message("msg_bring_back_unsaved"))
        store(folder).rounds.redo(state.meta.id, state.version)
        st.session_state[STATE_KEY] = load_state(state.meta.id, folder)
    except StaleShoeError as e:
        set_error(area, by_name(e, state.meta))
        st.session_state.pop(STATE_KEY, None)
        return False
    except RoadsAppError as e:
        set_error(area, by_name(e, state.meta))
        return False
    return True


def last_shoe() -> dict | None:
    """The most recently changed shoe that has rounds (not a shipped sample), if any:
    what a bare URL offers to continue, instead of piling up empty shoes."""
    try:
        shoes = store().shoes.list()
    except RoadsAppError:
        return None
    mine = shoes.filter((pl.col("rounds") > 0) & ~pl.col("id").str.starts_with(SAMPLE_PREFIX))
    return mine.row(0, named=True) if mine.height else None


def start_new_shoe(rules: str, decks: int, name: str | None = None) -> ShoeState:
    """Begin a new shoe on this tab with a chosen table, deck count and name (an
    explicit "Start": saved at once, empty)."""
    clear_errors()
    st.session_state[NEW_SHOE_KEY] = (rules, decks)
    state = new_state(rules, decks, name)
    saved = save_checked(state, state.rounds, data_dir())
    st.session_state[STATE_KEY] = saved
    _set_url(saved.meta.id)
    return saved


def end_shoe(area: str = "new") -> bool:
    """End this tab's shoe ("End shoe"): read-only from now on, gone from the wall."""
    clear_errors()
    state = st.session_state.get(STATE_KEY) or current()
    try:
        if not state.saved:
            raise db.StorageError(Message("msg_end_unsaved"))
        store().shoes.end(state.meta.id)
        st.session_state[STATE_KEY] = load_state(state.meta.id, data_dir())
    except RoadsAppError as e:
        set_error(area, by_name(e, state.meta))
        return False
    return True


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
