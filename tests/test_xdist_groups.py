"""The suite's own scheduling: a module's tests that share a wider fixture reach xdist's
``--dist loadgroup`` scheduler as one group (`tests/conftest.py`), so its server, Ray
instance or wheel is made once, on one worker, not on each."""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadGroupScheduling

from tests.conftest import join_group, shared_group


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
