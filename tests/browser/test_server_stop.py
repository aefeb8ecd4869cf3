"""A dashboard server stops promptly after its pages have gone: a page's follow request
(`/_roads/follow`, held open up to 25 s) that the page closed used to hold the server's
shutdown until it timed out (24 s a stop, about 20 s of every browser test module's
teardown). Real server, real HTTP."""

from __future__ import annotations

import socket
import time

import pytest
from conftest import AppServer


def test_a_closed_follow_request_does_not_hold_the_servers_stop(fresh_server: AppServer):
    with socket.create_connection(("localhost", fresh_server.port)) as sk:
        sk.sendall(b"GET /_roads/follow?shoe=x&v= HTTP/1.1\r\nHost: localhost\r\n\r\n")
        sk.settimeout(2.0)
        with pytest.raises(TimeoutError):  # the request waits: nothing to answer yet
            sk.recv(1)
    t0 = time.monotonic()
    fresh_server.stop()
    assert time.monotonic() - t0 < 12  # 24 s before (a bound far from both figures)
