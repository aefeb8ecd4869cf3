"""The page's files served from memory (`roads_app.ui.assets`): the bytes on disk, gzipped
for a browser that takes gzip, revalidated by ETag, and nothing outside the folder."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from streamlit import file_util

from roads_app.ui import assets, page_head


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the dashboard serves (Streamlit's, with our page and files linked in)."""
    src = Path(file_util.get_static_dir())
    return page_head.serve_with_early_keys(src, tmp_path_factory.mktemp("page") / "static")


@pytest.fixture(scope="module")
def client(served: Path) -> TestClient:
    return TestClient(Starlette(routes=assets.routes(served)))


def _a_script(served: Path) -> Path:
    return max((served / "static" / "js").glob("index.*.js"), key=lambda p: p.stat().st_size)


def test_streamlits_bundle_comes_gzipped_and_whole(client: TestClient, served: Path):
    script = _a_script(served)
    got = client.get(f"/static/js/{script.name}", headers={"Accept-Encoding": "gzip"})
    assert got.status_code == 200
    assert got.headers["content-encoding"] == "gzip"
    assert got.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert "immutable" in got.headers["cache-control"]  # hashed names, as Streamlit says
    assert got.content == script.read_bytes()  # httpx undid the gzip
    assert int(got.headers["content-length"]) < script.stat().st_size // 2


def test_a_browser_without_gzip_gets_the_file_as_it_is(client: TestClient, served: Path):
    script = _a_script(served)
    got = client.get(f"/static/js/{script.name}", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in got.headers
    assert got.content == script.read_bytes()


def test_our_files_at_the_pages_root_are_served_and_revalidated(client: TestClient):
    for src, path in (
        (page_head.PLOTLY_SRC, page_head.plotly_js()),
        (page_head.FONT_SRC, page_head.CJK_FONT),
        (page_head.FONT_CSS_SRC, page_head.CJK_CSS),
    ):
        got = client.get(src.removeprefix("."), headers={"Accept-Encoding": "gzip"})
        assert got.status_code == 200 and got.content == path.read_bytes()
        assert got.headers["cache-control"] == "no-cache"
        again = client.get(src.removeprefix("."), headers={"If-None-Match": got.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
    font = client.get(page_head.FONT_SRC.removeprefix("."), headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in font.headers  # a font is not text: sent as it is


@pytest.mark.parametrize(
    "name", ["nope.js", "../index.html", "js/../../index.html", "%2e%2e/index.html", ""]
)
def test_nothing_else_is_served(client: TestClient, name: str):
    got = client.get(f"/static/{name}")
    assert got.status_code == 404


def test_a_file_is_read_once(tmp_path: Path):
    """Kept after the first request: the file's later change (none, for an installed
    package) is not read again."""
    (tmp_path / "a.js").write_text("let a = 1;" * 500)
    kept = assets.Assets(tmp_path, assets.IMMUTABLE)
    first = kept.get("a.js")
    (tmp_path / "a.js").write_text("changed")
    assert kept.get("a.js") is first
    assert first is not None and gzip.decompress(first.gz or b"") == b"let a = 1;" * 500


def test_a_name_reaching_out_of_the_folder_is_no_file(tmp_path: Path):
    (tmp_path / "secret.txt").write_text("not for the page")
    (tmp_path / "in").mkdir()
    kept = assets.Assets(tmp_path / "in", assets.IMMUTABLE)
    for name in ("../secret.txt", str(tmp_path / "secret.txt"), "a/../../secret.txt"):
        assert kept.get(name) is None
