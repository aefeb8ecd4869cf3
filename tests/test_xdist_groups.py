"""The suite's own scheduling: a module's tests that share a wider fixture reach xdist's
``--dist loadgroup`` scheduler as one group (`tests/conftest.py`), so its server, Ray
instance or wheel is made once, on one worker, not on each."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from xdist.scheduler import LoadGroupScheduling

from tests.conftest import SLOW_FIRST, join_group, shared_group, slow_first


@pytest.fixture(scope="module")
def shared() -> str:
    return "made once for the module"


def _scope(nodeid: str) -> str:
    """The work unit xdist's scheduler deals this id out in (its method reads no state)."""
    return LoadGroupScheduling._split_scope(None, nodeid)  # type: ignore[arg-type]


def _twin(item: pytest.Item) -> pytest.Function:
    """A new item for the same test, so the running one keeps its id."""
    assert isinstance(item, pytest.Function)
    return pytest.Function.from_parent(item.parent, name=item.name, callobj=item.obj)


def test_a_test_of_a_module_fixture_is_dealt_out_with_its_module(
    request: pytest.FixtureRequest, shared: str
) -> None:
    module = "tests/test_xdist_groups.py"
    assert shared_group(request.node) == module
    item = _twin(request.node)
    alone = item.nodeid
    join_group(item, module)
    assert _scope(item.nodeid) == module
    join_group(item, module)  # again (as if xdist had named it first): one suffix
    assert item.nodeid == f"{alone}@{module}"


def test_a_test_of_its_own_fixtures_is_dealt_out_alone(request: pytest.FixtureRequest) -> None:
    assert shared_group(request.node) is None
    assert _scope(request.node.nodeid) == request.node.nodeid


def test_the_slowest_modules_are_dealt_out_first_and_each_group_stays_whole() -> None:
    slowest, next_slowest = SLOW_FIRST[0], SLOW_FIRST[1]
    ids = [
        "tests/test_a.py::test_1",
        f"{next_slowest}::test_x@{next_slowest}",
        "tests/test_b.py::test_2",
        f"{slowest}::test_y",
        f"{next_slowest}::test_z@{next_slowest}",
        "tests/test_a.py::test_3",
    ]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    slow_first(items)  # type: ignore[arg-type]
    order = [i.nodeid for i in items]
    assert order == [ids[3], ids[1], ids[4], ids[0], ids[2], ids[5]]
    units = [_scope(i) for i in order]
    assert units[1] == units[2] == next_slowest  # one unit, dealt out whole


def test_the_slow_modules_named_are_there() -> None:
    """A module renamed or gone would silently lose its place at the front."""
    root = Path(__file__).resolve().parents[1]
    assert [m for m in SLOW_FIRST if not (root / m).is_file()] == []
