"""A dashboard server stops promptly after its pages have gone: a page's follow request
(`/_roads/follow`, held open up to 25 s) that the page closed used to hold the server's
shutdown until it timed out (24 s a stop, about 20 s of every browser test module's
teardown). Real server, real HTTP."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest
from conftest import AppServer

from tests import procs


def test_a_closed_follow_request_does_not_hold_the_servers_stop(fresh_server: AppServer):
    with socket.create_connection(("localhost", fresh_server.port)) as sk:
        sk.sendall(b"GET /_roads/follow?shoe=x&v= HTTP/1.1\r\nHost: localhost\r\n\r\n")
        sk.settimeout(2.0)
        with pytest.raises(TimeoutError):  # the request waits: nothing to answer yet
            sk.recv(1)
    t0 = time.monotonic()
    fresh_server.stop()
    assert time.monotonic() - t0 < 12  # 24 s before (a bound far from both figures)


def test_the_readme_command_stopped_by_kill_stops_the_dashboard(fresh_server: AppServer):
    """``python3 dev.py app`` stopped as ``kill PID`` or a service manager stops it (a
    SIGTERM to the process started, not to its group): the dashboard ends with it and
    its port is free. It used to leave ``roads-app`` and Streamlit running."""
    assert fresh_server.proc is not None
    group = procs.group_members(fresh_server.proc.pid)
    assert len(group) >= 2  # the command and the Streamlit server it started
    os.kill(fresh_server.proc.pid, signal.SIGTERM)
    assert procs.wait_exit(group, timeout=60), [
        procs.cmdline(p) for p in procs.group_members(group[0])
    ]
    with socket.socket() as s:  # free again: nobody listens (as a server binds it)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", fresh_server.port))
