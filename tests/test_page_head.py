"""The served page's head: Streamlit's own page with the key queue and plotly.js.

Checked on the Streamlit installed here (its hashed bundle names change per release), so a
Streamlit upgrade that moves the page or moves plotly.js fails here, not silently.
"""

from __future__ import annotations

import re
from pathlib import Path

from streamlit import file_util

from roads_app.ui import board_host, page_head


def test_the_served_page_is_streamlits_with_the_queue_first_and_plotly_js_beside_it(
    tmp_path: Path,
):
    src = Path(file_util.get_static_dir())
    out = page_head.serve_with_early_keys(src, tmp_path / "static")
    page = (out / "index.html").read_text(encoding="utf-8")
    original = (src / "index.html").read_text(encoding="utf-8")
    # the queue runs before any of Streamlit's scripts, and only once
    assert page.count(page_head.MARK) == 1
    assert page.index(page_head.MARK) < page.index('<script type="module"')
    # nothing of Streamlit's page is lost
    assert all(line in page for line in original.splitlines())
    # plotly.js is the package's basic bundle, served beside the page, prefetched and not
    # run by the head (no script of it: a chart adds it, `plot_host`)
    tag = re.search(r'<link rel="prefetch" id="([^"]+)" href="\./([^"]+)" as="script">', page)
    assert tag and tag[1] == page_head.PREFETCH_ID
    assert "plotly" not in " ".join(re.findall(r"<script[^>]*>", page))
    served = out / tag[2]
    assert served.is_file() and served.stat().st_size > 1_000_000
    assert served.read_bytes()[:200] == page_head.plotly_js().read_bytes()[:200]
    assert b"plotly.js (basic - minified)" in served.read_bytes()[:200]
    # every other entry is Streamlit's own, linked not copied
    ours = {served.name, "roads-app-cjk.otf", "roads-app-cjk.css"}  # the page's own font
    assert sorted(p.name for p in out.iterdir() if p.name not in ours) == sorted(
        p.name for p in src.iterdir()
    )
    assert (out / "roads-app-cjk.otf").read_bytes() == page_head.CJK_FONT.read_bytes()
    for entry in out.iterdir():
        if entry.name != "index.html" and entry.name not in ours:
            assert entry.is_symlink() and entry.resolve() == (src / entry.name).resolve()


def test_the_component_and_the_page_run_the_same_queue():
    """One source of truth: the component installs the very queue the page carries."""
    assert page_head.QUEUE_JS in board_host._JS
    assert board_host.KEYS == page_head.KEYS
