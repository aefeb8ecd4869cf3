"""The served page's head: Streamlit's own page with the key queue and the Plotly preload.

Checked on the Streamlit installed here (its hashed bundle names change per release), so a
Streamlit upgrade that moves the page or renames the chart bundle fails here, not silently.
"""

from __future__ import annotations

import re
from pathlib import Path

from streamlit import file_util

from roads_app.ui import board_host, page_head


def test_the_served_page_is_streamlits_with_the_queue_first_and_the_chart_bundle_preloaded(
    tmp_path: Path,
):
    src = Path(file_util.get_static_dir())
    out = page_head.serve_with_early_keys(src, tmp_path / "static")
    page = (out / "index.html").read_text(encoding="utf-8")
    original = (src / "index.html").read_text(encoding="utf-8")
    # the queue runs before any of Streamlit's scripts, and only once
    assert page.count(page_head.MARK) == 1
    assert page.index(page_head.MARK) < page.index("<script type=\"module\"")
    # nothing of Streamlit's page is lost
    assert all(line in page for line in original.splitlines())
    # the preloaded bundle is a real file of this Streamlit
    links = re.findall(r'rel="modulepreload" crossorigin href="\./([^"]+)"', page)
    assert any("PlotlyChart" in link for link in links)
    for link in links:
        assert (out / link).is_file()
    # every other entry is Streamlit's own, linked not copied
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in src.iterdir())
    for entry in out.iterdir():
        if entry.name != "index.html":
            assert entry.is_symlink() and entry.resolve() == (src / entry.name).resolve()


def test_the_component_and_the_page_run_the_same_queue():
    """One source of truth: the component installs the very queue the page carries."""
    assert page_head.QUEUE_JS in board_host._JS
    assert board_host.KEYS == page_head.KEYS
