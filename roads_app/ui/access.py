"""Who may enter results when the dashboard is open to the network (`roads-app --host`).

The API's rule, applied to the pages: on this machine only (the default) everyone may
do everything; once the dashboard listens on another address, a visitor needs a token
(`roads-app token`): a viewer token shows the board, only an operator token shows the
entry controls and the pages that change saved shoes. A token is typed once in the
sidebar, or given as ``?token=`` in the link (taken out of the address bar at once),
and kept in the tab's session.
"""

from __future__ import annotations

import ipaddress
import os

import streamlit as st

from roads_app.store import tokens
from roads_app.ui import session
from roads_app.ui.words import tr

HOST_ENV = "ROADS_APP_HOST"
"""The address the dashboard listens on, set by the launcher."""
ROLE_KEY = "roads_app.access.role"
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
    """``operator`` or ``viewer`` for this tab, None for a visitor without a token."""
    if not exposed():
        return "operator"
    given = st.query_params.get(TOKEN_PARAM)
    if given:
        del st.query_params[TOKEN_PARAM]  # out of the address bar, history and screenshots
        _check(given)
    return st.session_state.get(ROLE_KEY)


def may_enter() -> bool:
    """Only an operator enters, edits or deletes results."""
    return role() == "operator"


def may_view() -> bool:
    return role() is not None


def _check(token: str) -> None:
    found = tokens.role_of(session.data_dir(), token.strip())
    st.session_state[ROLE_KEY] = found
    if found is None:
        st.session_state["roads_app.access.refused"] = True


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
        st.text_input(tr("token"), type="password", key="roads_app.access.input",
                      on_change=_on_token, help="`roads-app token` prints one on the server")
        if st.session_state.pop("roads_app.access.refused", False):
            st.error(tr("token_invalid"))


def viewer_notice() -> None:
    """Why the controls are missing."""
    if role() is None:
        st.info(tr("viewer_ask_token"))
    else:
        st.caption(tr("viewer_only"))
