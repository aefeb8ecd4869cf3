"""A dashboard started for a test is the one that answers: another server that took the
port between `free_port` and the start answers health checks too, and a test that asked it
for its shoes waited for names that server never had (seen once in a whole run)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import AppServer, PortTaken


class _Healthy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def squatter() -> Iterator[int]:
    """Another server on a port, answering every health check."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_port_taken_by_another_server_is_never_taken_for_ours(
    squatter: int, tmp_path: Path
) -> None:
    given = AppServer(tmp_path / "a", tmp_path / "a.log", port=squatter)
    with pytest.raises(PortTaken):  # a port the test chose itself: said, not changed
        given.start()
    chosen = AppServer(tmp_path / "b", tmp_path / "b.log", port=squatter)
    chosen.port_chosen = True  # as `free_port` chose it: started again on another
    chosen.start()
    try:
        assert chosen.port != squatter
        assert f"server started on 127.0.0.1:{chosen.port}" in chosen.log_path.read_text()
    finally:
        chosen.stop()
