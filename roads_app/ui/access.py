"""Who may enter results when the dashboard is open to the network (`roads-app --host`).

The API's rule, applied to the pages: on this machine only (the default) everyone may
do everything; once the dashboard listens on another address, a visitor needs a token
(`roads-app token`): a viewer token shows the board, only an operator token shows the
entry controls and the pages that change saved shoes. A token is typed once in the
sidebar, or given as ``?token=`` in the link (taken out of the address bar at once);
the tab keeps its hash, never the token.

A screen key (`roads-app token --screen`) is a TV's or a kiosk's: given as ``?token=`` on
``/display`` or ``/lobby`` it stays in the link, so a reload, a restart or another
dashboard process brings the same board back with no prompt; it opens those two pages
only, read-only, and a screen whose key was revoked (or is wrong, or is for another
table) shows one line and nothing else (`screen_refusal`).

A token holds only as long as the store keeps it: every run of the page and every
change (`writes`) looks its hash up again (one look-up by primary key), so after
``roads-app token --revoke-all`` an open tab is refused at its very next key press,
told why, and drops to what its token now allows.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import streamlit as st

from roads_app.store import db, tokens
from roads_app.store.watch import TABLE_KEY
from roads_app.ui import session
from roads_app.ui.words import tr

F = TypeVar("F", bound=Callable[..., Any])

HOST_ENV = "ROADS_APP_HOST"
"""The address the dashboard listens on, set by the launcher."""
ROLE_KEY = "roads_app.access.role"
HASH_KEY = "roads_app.access.token_hash"  # the tab's token, as the store keeps it
REVOKED_KEY = "roads_app.access.revoked"  # the token stopped holding: say so once
REFUSED_KEY = "roads_app.access.refused"  # the token typed or linked was not taken
TOKEN_PARAM = "token"
SCREEN = "screen"
SCREEN_PAGES = frozenset({"display", "lobby"})
"""The pages a screen key opens (the display and the wall)."""
TABLE_PARAM = "table"
"""A page's floor table (a screen key for another table is refused there)."""
_SCREEN_LINE = "roads_app.access.screen_line"  # why this screen's key does not hold
_SCREEN_TABLE = "roads_app.access.screen_table"  # the floor table of the screen's key


def exposed() -> bool:
    """Whether the dashboard listens on more than this machine."""
    host = os.environ.get(HOST_ENV, "127.0.0.1")
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a host name: assume the network can reach it


def role() -> str | None:
    """``operator`` or ``viewer`` for this tab, None for a visitor without a token: what
    the store says of the tab's token now, not when it was typed."""
    if not exposed():
        return "operator"
    given = st.query_params.get_all(TOKEN_PARAM)
    if len(given) == 1 and given[0].strip().startswith(tokens.SCREEN_PREFIX):
        return _screen(given[0].strip())  # kept in the link: a reload shows the board
    if given:
        del st.query_params[TOKEN_PARAM]  # out of the address bar, history and screenshots
        if len(given) > 1:  # which one counts would be a guess: none does
            _forget()
            st.session_state[REFUSED_KEY] = True
        else:
            _check(given[0])
    return _recheck()


def _screen(key: str) -> str | None:
    """The tab's role by the screen key in its link, looked up at every run (a revoke
    holds at the next one); why it does not hold is kept for `screen_refusal`."""
    token_hash = tokens.hash_token(key)
    found = session.store().tokens.key(token_hash)
    holds = found is not None and found.role == SCREEN and not found.revoked
    st.session_state[ROLE_KEY] = SCREEN if holds else None
    st.session_state[HASH_KEY] = token_hash if holds else None
    st.session_state[_SCREEN_TABLE] = found.table if holds and found else None
    if holds:
        st.session_state.pop(_SCREEN_LINE, None)
        return SCREEN
    revoked = found is not None and found.revoked
    st.session_state[_SCREEN_LINE] = "screen_key_revoked" if revoked else "screen_key_invalid"
    return None


def screen_refusal(path: str | None = None) -> str | None:
    """The one line a screen shows instead of anything else (the catalogue's key), or
    None: its key was revoked or is wrong, it is for another table than the page's
    ``?table=`` or than the table the page's ``?shoe=`` was dealt at (a shoe of no table
    too), or (``path``: the page opened) the page is not the display or the wall."""
    if not exposed():
        return None
    now = role()
    if now != SCREEN:
        return st.session_state.get(_SCREEN_LINE) if now is None else None
    table = st.query_params.get(TABLE_PARAM)  # the display follows it over ``?shoe=``
    shown = TABLE_KEY + table if table else st.query_params.get(session.URL_PARAM)
    own = st.session_state.get(_SCREEN_TABLE)  # as `_screen` found it in this run
    if shown and not tokens.screen_sees(session.store(), own, shown):
        return "screen_key_other_table"  # another table, a shoe of one, or of none
    if path is not None and path not in SCREEN_PAGES:
        return "screen_key_not_here"
    return None


def screen_table() -> str | None:
    """The one floor table this tab's screen key shows (None: any, or no screen key)."""
    return st.session_state.get(_SCREEN_TABLE) if role() == SCREEN else None


def screen_keeps(shoe_ids: Iterable[str]) -> set[str]:
    """Those of ``shoe_ids`` this tab may show: all but for a table's screen key, whose
    wall shows that table's shoes only (`tokens.screen_keeps`)."""
    return tokens.screen_keeps(session.store(), screen_table(), shoe_ids)


def _recheck() -> str | None:
    """The tab's role by its token's hash, looked up again; a token revoked (or given
    another role) since is noted, for `notice` to say."""
    was = st.session_state.get(ROLE_KEY)
    token_hash = st.session_state.get(HASH_KEY)
    now = session.store().tokens.role(token_hash) if token_hash else None
    if was is not None and now != was:
        st.session_state[ROLE_KEY] = now
        st.session_state[REVOKED_KEY] = True
        if now is None:
            st.session_state[HASH_KEY] = None
    return now


def may_enter() -> bool:
    """Only an operator enters, edits or deletes results."""
    return role() == "operator"


def may_view() -> bool:
    return role() is not None


def still_allowed() -> None:
    """For a fragment that shows saved shoes (the display, the wall), which the page's
    own check does not rerun: the whole page again once the tab's key stopped holding
    (its follower was refused after a revoke), which then shows what the key allows."""
    if exposed() and not may_view():
        st.rerun()


def may_write() -> bool:
    """Whether a change from this tab may be saved, asked at the moment of saving."""
    return role() == "operator"


def writes(fn: F) -> F:
    """Mark a callback that changes saved data: it runs only while the tab's token is
    still an operator's (looked up again now); otherwise nothing is saved and the page
    says why (`notice`)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        if not may_write():
            st.session_state[REVOKED_KEY] = True
            return None
        return fn(*args, **kwargs)

    return run  # type: ignore[return-value]


def follow_pass() -> str:
    """What this tab's followers (`follow`) show the ``/_roads/follow`` route: the tab's
    token as the store keeps it (its hash) when the dashboard is exposed, else nothing."""
    if not exposed():
        return ""
    return str(st.session_state.get(HASH_KEY) or "")


FOLLOW_HEADER = "X-Roads-Tab"
"""The header a page's follower sends `follow_pass` in."""


def follow_admit(
    token_hash: str | None, data_dir: Any, shown: str | None = None
) -> tuple[tuple[int, str] | None, str | None]:
    """The pages' rule for the follow and tile routes, with no Streamlit session (they
    run on the server's event loop): whether a tab with this token may see ``shown`` (a
    shoe id or ``table:<code>``; None: the wall, whose answer the route filters by
    `tokens.screen_keeps`): the status and the one line that says why not (None: it
    may), and the one floor table the tab's key shows (None: any). Looked up again on
    every request, as the pages do, so a revoked token stops following too."""
    if not exposed():
        return None, None
    if not token_hash:
        return (401, "follow: a viewer or operator token is needed (the dashboard is open)"), None
    store = db.open_store(data_dir)
    found = store.tokens.key(token_hash) if len(token_hash) == 64 else None
    if found is None or found.revoked:
        return (403, "follow: this tab's token is not valid (revoked?)"), None
    if shown is not None and not tokens.screen_sees(store, found.table, shown):
        return (403, "follow: this screen's key is for another table"), found.table
    return None, found.table


def _forget() -> None:
    st.session_state[ROLE_KEY] = None
    st.session_state[HASH_KEY] = None


def _check(token: str) -> None:
    token_hash = tokens.hash_token(token.strip())
    found = session.store().tokens.role(token_hash)
    st.session_state[ROLE_KEY] = found
    st.session_state[HASH_KEY] = token_hash if found else None
    st.session_state.pop(REVOKED_KEY, None)
    if found is None:
        st.session_state[REFUSED_KEY] = True


def _on_token() -> None:
    _check(st.session_state.pop("roads_app.access.input", "") or "")


def sidebar() -> None:
    """The token box, shown only when the dashboard is open to the network."""
    if not exposed():
        return
    current = st.session_state.get(ROLE_KEY)
    if current == SCREEN:  # a screen has no keyboard, and its key is in its link
        return
    with st.sidebar:
        if current:
            st.caption(tr("signed_in_as", role=current))
        st.text_input(
            tr("token"),
            type="password",
            key="roads_app.access.input",
            on_change=_on_token,
            help="`roads-app token` prints one on the server",
        )
        if st.session_state.pop(REFUSED_KEY, False):
            st.error(tr("token_invalid"))


def rerun_if_refused() -> None:
    """For a fragment, whose own rerun cannot take the page's controls away: the whole
    page again once this tab's token stopped holding (a change was just refused)."""
    if st.session_state.get(REVOKED_KEY):
        st.rerun()


def notice() -> None:
    """Once, on the page itself (a sidebar may be folded away): the tab's token stopped
    holding, so what it tried was not saved and the controls are gone."""
    if exposed() and st.session_state.pop(REVOKED_KEY, False):
        st.error(tr("token_revoked"), icon=":material/key_off:")


def viewer_notice() -> None:
    """Why the controls are missing."""
    if role() is None:
        st.info(tr("viewer_ask_token"))
    else:
        st.caption(tr("viewer_only"))
