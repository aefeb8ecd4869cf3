"""The page's scripts, styles and fonts served from memory, compressed once.

A new browser's first load of the scoreboard fetches some 85 files (3.5 MB) before
Streamlit's page can start: its hashed bundle under ``static/``, our plotly.js and
CJK font. Streamlit's own static route (Starlette's ``StaticFiles``) reads each file
from disk per request in 64 kB pieces, each through a worker thread, and sends them
uncompressed (it bypasses its gzip on ``static/`` because gzip at the origin would
compress the same bytes again on every request); our files at the page's root went
through that gzip on every request. On this 2-core machine the browser's main thread
sat idle for about a second waiting for those bytes.

Here every file is read and gzipped once, the first time it is asked for, and kept:
later requests are one send of the bytes in memory (gzipped when the browser takes
gzip). The files are the installed package's and Streamlit's: they change only with
an upgrade, which restarts the server.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

IMMUTABLE = "public, immutable, max-age=31536000"
"""Streamlit's own cache header for its hashed bundle (the names change with content)."""
REVALIDATE = "no-cache"
"""Ours keep their names across versions: the browser asks again (a 304 when unchanged)."""
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


@dataclass(frozen=True)
class Asset:
    """One file's bytes, gzipped too when that helps, and its headers."""

    body: bytes
    gz: bytes | None
    media_type: str
    etag: str


def load(path: Path) -> Asset:
    """``path`` read once, gzipped when it is text."""
    body = path.read_bytes()
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    gz = None
    if media_type.startswith(COMPRESSIBLE) and len(body) > 1024:
        gz = gzip.compress(body, compresslevel=6, mtime=0)
    return Asset(body, gz, media_type, f'"{hashlib.blake2b(body, digest_size=8).hexdigest()}"')


class Assets:
    """Files under ``root`` served from memory (`load`), each read the first time."""

    def __init__(self, root: Path, cache_control: str) -> None:
        self.root = root
        self.cache_control = cache_control
        self._kept: dict[str, Asset | None] = {}

    def get(self, name: str) -> Asset | None:
        """The file ``name`` (relative to the root), or None when there is none."""
        if name in self._kept:
            return self._kept[name]
        parts = Path(name).parts
        path = self.root / name
        found = bool(parts) and not Path(name).is_absolute() and ".." not in parts
        found = found and path.is_file()
        asset = load(path) if found else None
        self._kept[name] = asset
        return asset

    def response(self, request: Request, name: str) -> Response:
        """The file as the browser asked for it: gzipped when it takes gzip, 304 when
        its copy is current, 404 when there is no such file."""
        asset = self.get(name)
        if asset is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        headers = {"Cache-Control": self.cache_control, "ETag": asset.etag}
        if request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers=headers)
        body = asset.body
        if asset.gz is not None:
            headers["Vary"] = "Accept-Encoding"
            if "gzip" in request.headers.get("accept-encoding", ""):
                body, headers["Content-Encoding"] = asset.gz, "gzip"
        return Response(body, media_type=asset.media_type, headers=headers)


def routes(served: Path) -> list:
    """Routes for Streamlit's bundle (``static/``) and our files at the page's root,
    ahead of Streamlit's own static route."""
    from starlette.routing import Route

    from roads_app.ui import page_head

    bundle = Assets(served / "static", IMMUTABLE)
    ours = Assets(served, REVALIDATE)

    async def from_bundle(request: Request) -> Response:
        return bundle.response(request, request.path_params["name"])

    def one(name: str) -> Route:
        async def endpoint(request: Request) -> Response:
            return ours.response(request, name)

        return Route(f"/{name}", endpoint, methods=["GET"])

    names = (page_head.PLOTLY_SRC, page_head.FONT_SRC, page_head.FONT_CSS_SRC)
    return [
        Route("/static/{name:path}", from_bundle, methods=["GET"]),
        *(one(n.removeprefix("./")) for n in names),
    ]
