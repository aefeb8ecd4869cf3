"""Shared fixtures and settings.

Every test starts with no store open (each opens its own folder's). Hypothesis'
per-example deadline is a wall-clock threshold: on a shared, loaded machine a first call
that pays for an import or a compile fails it at random, so it is off (speed lives in
``bench/``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from roads_app.store import db

settings.register_profile("roads", deadline=None)
settings.load_profile("roads")


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    db.forget_stores()
