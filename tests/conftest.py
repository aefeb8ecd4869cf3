"""Shared fixtures: every test starts with no store open (each opens its own folder's)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from roads_app.store import db


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    db.forget_stores()
