"""Shared fixtures and settings.

Every test starts with no store open (each opens its own folder's). Hypothesis'
per-example deadline is a wall-clock threshold: on a shared, loaded machine a first call
that pays for an import or a compile fails it at random, so it is off (speed lives in
``bench/``).

`python3 dev.py test` runs the suite on two workers (pytest-xdist, ``--dist loadgroup``).
A module whose tests share a module-scoped fixture (a dashboard server, a Ray instance,
an API app) runs whole on one worker, so its fixture starts once; the other tests are
dealt out one by one. Session-scoped fixtures (the browser, a database server) start
once per worker: each keeps its own temporary folder and free port.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from roads_app.store import db

settings.register_profile("roads", deadline=None)
settings.load_profile("roads")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep together on one xdist worker the tests of a module that share a fixture
    wider than a test (so it is set up once, not once per worker)."""
    if not config.pluginmanager.hasplugin("xdist"):  # ``-p no:xdist``: no such marker
        return
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d[-1].scope in ("module", "class", "package") for d in defs if d):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    db.forget_stores()
