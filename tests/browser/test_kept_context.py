"""The worker's kept browser context (conftest's ``page``) leaves nothing of one test to
the next: cookies, local storage and IndexedDB are gone, each test has its own page."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from conftest import KeptContext

pytestmark = pytest.mark.browser

LEAVE_JS = """() => new Promise((ok, fail) => {
  document.cookie = 'screen=key; max-age=3600; path=/';
  localStorage.setItem('theme', 'dark');
  const r = indexedDB.open('left', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('s');
  r.onsuccess = () => { r.result.close(); ok(); };
  r.onerror = () => fail(r.error);
})"""

FOUND_JS = """async () => ({
  cookie: document.cookie,
  local: localStorage.length,
  idb: (await indexedDB.databases()).map(d => d.name),
})"""


class Blank(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>blank</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    """A page on localhost (an origin with cookies and storage; no dashboard needed)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Blank)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://localhost:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_a_kept_context_page_finds_nothing_the_last_test_left(
    kept_context: KeptContext, site: str
) -> None:
    first = kept_context.new_page()
    first.goto(site)
    first.evaluate(LEAVE_JS)
    assert first.evaluate(FOUND_JS) == {"cookie": "screen=key", "local": 1, "idb": ["left"]}
    kept_context.done(first)

    second = kept_context.new_page()
    assert second is not first
    second.goto(site)
    assert second.evaluate(FOUND_JS) == {"cookie": "", "local": 0, "idb": []}
    kept_context.done(second)
    assert first.is_closed()  # the last parked page goes once the next test is done
