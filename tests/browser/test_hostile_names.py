"""A name is text on every screen: shoes named with HTML, Markdown, links, directives and
LaTeX, and the same in ``?shoe=``, walked through every page in the real browser.

Each page must show the name literally and nothing of it may act: the title stays, no
element carries the payload (an iframe, image, link, meta refresh, style or form), no
request reaches a sink server the names point at (nor the evil.example they link to),
and the page stays where it was opened.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import AppServer, free_port, wait_idle
from playwright.sync_api import Page, expect

from roads_app.errors import quote
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db

pytestmark = pytest.mark.browser

SINK_PORT = free_port()
SINK = f"127.0.0.1:{SINK_PORT}"
NAMES = (
    "<iframe srcdoc=\"<script>top.document.title='PWNED'</script>\">",
    '<meta http-equiv=refresh content="0;url=about:blank">',
    "<style>body{display:none}</style>",
    f"<img src=http://{SINK}/x>",
    f"![x](http://{SINK}/y) <link rel=stylesheet href=http://{SINK}/z>",
    "**bold** [link](http://evil.example) http://evil.example www.evil.example",
    ":red[x] $x^2$ :streamlit: :smile: me@evil.example a -> b",
    "<form action=http://evil.example><button>go</button></form> _it_ `code`",
)
URL_PARAMS = (NAMES[0], NAMES[3], NAMES[5])
ICONS = "https://fonts.gstatic.com/s/i/"  # Streamlit's own material icons
MARKERS = ("evil.example", SINK, "srcdoc", "about:blank", "PWNED", "http-equiv")

# Anything in the page's body built from a name: an attribute (name or value) holding
# a payload marker, a style rule from one, or Markdown from one. Returns what it found.
FOUND_JS = """(markers) => {
  const found = [];
  for (const el of document.body.querySelectorAll('*')) {
    for (const a of el.attributes) {
      // a heading's id and its anchor link are a slug of its text, an input's value is
      // what it shows: inert
      if (a.name === 'id' || (a.name === 'href' && a.value.startsWith('#'))) continue;
      if (el.tagName === 'INPUT' && a.name === 'value') continue;
      const both = a.name + '=' + a.value;
      if (markers.some(m => both.includes(m))) found.push(el.tagName + ' ' + both);
    }
    if (el.tagName === 'STYLE' && el.textContent.includes('body{display:none}'))
      found.push('style ' + el.textContent);
  }
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  for (const el of main.querySelectorAll('strong, em, code, .katex, .stMarkdownColoredText')) {
    const t = el.textContent.trim();
    if (['bold', 'it', 'code', 'x'].includes(t) || el.classList.contains('katex'))
      found.push(el.tagName + ' ' + t);
  }
  if (getComputedStyle(document.body).display === 'none') found.push('body hidden');
  return found;
}"""
SHOWS_JS = """(texts) => {
  const body = document.body.innerText.replaceAll('\\u2060', '');
  return texts.every(t => body.includes(t));
}"""


class _Sink(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Sink.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def sink() -> Iterator[list[str]]:
    server = ThreadingHTTPServer(("127.0.0.1", SINK_PORT), _Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield _Sink.hits
    server.shutdown()
    server.server_close()


def _visit(page: Page, app: AppServer, path: str, texts: tuple[str, ...]) -> None:
    """Open ``path``, wait until ``texts`` show (as typed), then check nothing acted."""
    page.goto(f"{app.url}/{path}")
    wait_idle(page)
    page.wait_for_function(SHOWS_JS, arg=list(texts))
    wait_idle(page)
    where = f"/{path}"
    assert page.evaluate(FOUND_JS, list(MARKERS)) == [], where
    assert "PWNED" not in page.title(), where
    assert urllib.parse.urlsplit(page.url).path == urllib.parse.urlsplit(f"/{path}").path, where
    assert page.locator('[data-testid="stException"]').count() == 0, where


def test_hostile_names_are_text_on_every_page(
    app_server: AppServer, page: Page, sink: list[str], tmp_path: Path
) -> None:
    page.set_default_timeout(120_000)  # a hang guard on a shared, loaded machine
    requests: list[str] = []  # every request the page makes: none may leave the app
    page.on("request", lambda r: requests.append(r.url))
    left: list[str] = []
    page.on("framenavigated", lambda f: left.append(f.url) if f == page.main_frame else None)
    store = db.open_store(app_server.data_dir)
    ids = []
    for name in NAMES:
        meta = ShoeMeta(name=name, source="hand")
        store.shoes.create(meta, rounds_from_winners("BPBBT"))
        ids.append(meta.id)

    for sid, name in zip(ids, NAMES, strict=True):
        _visit(page, app_server, f"?shoe={sid}", (name,))
        _visit(page, app_server, f"display?shoe={sid}", (name,))
        _visit(page, app_server, f"replay?shoe={sid}&round=3", (name,))
    _visit(page, app_server, "lobby", NAMES)
    _visit(page, app_server, "library", NAMES)
    _visit(page, app_server, "replay", ())
    _visit(page, app_server, "backtest", ())
    _visit(page, app_server, "odds-study", ())
    for value in URL_PARAMS:
        param = urllib.parse.quote(value, safe="")
        _visit(page, app_server, f"?shoe={param}", (quote(value),))
        _visit(page, app_server, f"replay?shoe={param}", (quote(value),))
        _visit(page, app_server, f"display?shoe={param}", ())

    # the library's own message quotes the name it added
    f = tmp_path / "three.csv"
    f.write_text("winner\nB\nP\nT\n")
    page.goto(f"{app_server.url}/library")
    wait_idle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(f))
    expect(page.get_by_text("Ready to add: three.csv")).to_be_visible()
    page.locator(".st-key-library_import_name input").fill(NAMES[5])
    page.locator(".st-key-lib_import button").click()
    page.wait_for_function(SHOWS_JS, arg=[f"added {quote(NAMES[5])}"])
    assert page.evaluate(FOUND_JS, list(MARKERS)) == []

    assert sink == [], sink
    own = (app_server.url, "data:", "blob:", ICONS)
    assert [u for u in requests if not u.startswith(own)] == []
    assert [u for u in left if not u.startswith(app_server.url)] == []
