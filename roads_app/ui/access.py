"""Who may enter results when the dashboard is open to the network (`roads-app --host`).

The API's rule, applied to the pages: on this machine only (the default) everyone may
do everything; once the dashboard listens on another address, a visitor needs a token
(`roads-app token`): a viewer token shows the board, only an operator token shows the
entry controls and the pages that change saved shoes. A token is typed once in the
sidebar, or given as ``?token=`` in the link (taken out of the address bar at once);
the tab keeps its hash, never the token.

A token holds only as long as the store keeps it: every run of the page and every
change (`writes`) looks its hash up again (one look-up by primary key), so after
``roads-app token --revoke-all`` an open tab is refused at its very next key press,
told why, and drops to what its token now allows.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from roads_app.store import db, tokens
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
    if given:
        del st.query_params[TOKEN_PARAM]  # out of the address bar, history and screenshots
        if len(given) > 1:  # which one counts would be a guess: none does
            _forget()
            st.session_state[REFUSED_KEY] = True
        else:
            _check(given[0])
    return _recheck()


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


def follow_refusal(token_hash: str | None, data_dir: Any) -> tuple[int, str] | None:
    """The pages' rule for the follow route, with no Streamlit session (it runs on the
    server's event loop): None when a tab with this token may see the shoe's page, else
    the status and the one line that says why. Looked up again on every request, as the
    pages do, so a revoked token stops following too."""
    if not exposed():
        return None
    if not token_hash:
        return 401, "follow: a viewer or operator token is needed (the dashboard is open)"
    if len(token_hash) != 64 or db.open_store(data_dir).tokens.role(token_hash) is None:
        return 403, "follow: this tab's token is not valid (revoked?)"
    return None


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
    with st.sidebar:
        current = st.session_state.get(ROLE_KEY)
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
