"""A revoke holds from its commit on, on every replica: two API servers (separate
processes) on one library, SQLite (one data folder) and PostgreSQL; once
``roads-app token --revoke-all`` has returned, a write with the revoked token is refused
on both at once (each had trusted it a moment before), a read too, and an event stream
opened with a revoked viewer token ends before the next change reaches it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from roads_app.store import db, tokens
from tests.api_server import ApiServer, SseFollower, roads_app


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def replicas(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ApiServer, ApiServer, Path]]:
    """Two API servers on one library (0.0.0.0: reads need a token), and a data folder
    to run the CLI with."""
    tmp = tmp_path_factory.mktemp("revoke")
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "postgresql":
            mp.setenv("ROADS_APP_DB", request.getfixturevalue("pg_server").new_database())
            folders = (tmp / "a", tmp / "b")
        else:
            mp.delenv("ROADS_APP_DB", raising=False)
            folders = (tmp / "data", tmp / "data")  # two servers on one folder
        db.open_store(folders[0])  # made once, before two servers race to make it
        a = ApiServer(folders[0], host="0.0.0.0").start()
        b = ApiServer(folders[1], host="0.0.0.0").start()
        try:
            yield a, b, folders[0]
        finally:
            a.stop()
            b.stop()


def test_a_revoke_holds_at_once_on_every_replica(
    replicas: tuple[ApiServer, ApiServer, Path],
) -> None:
    a, b, data = replicas
    operator = tokens.issue(data, "operator", again=True)
    viewer = tokens.issue(data, "viewer", again=True)
    with a.client(operator) as ca, b.client(operator) as cb:
        shoe = ca.post("/shoes", json={"name": "T"}).json()["id"]
        for c in (ca, cb, ca, cb):  # each replica has found the token and trusts it
            assert c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}).status_code == 201
        with b.client(viewer) as vb:
            assert vb.get(f"/shoes/{shoe}").status_code == 200
        with SseFollower(a.url, shoe, viewer) as follower:
            follower.wait_for(lambda f: len(f.rounds) == 4)
            roads_app("token", "--viewer", "--revoke-all", "--data", str(data))
            for c in (ca, cb):  # written after the viewers' revoke; each replica has
                # just found the operator's token again
                assert c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}).status_code == 201
            follower.wait_for(lambda f: f.ended, 30)  # the revoked viewer's stream ended ...
            assert len(follower.rounds) == 4  # ... before any change after the revoke
        with b.client(viewer) as vb:
            assert vb.get(f"/shoes/{shoe}").status_code == 401
        tokens.revoke_all(data, "operator")  # as the CLI does, without its start-up time
        for c in (ca, cb):  # at once: no moment of trust left on either replica
            r = c.post(f"/shoes/{shoe}/rounds", json={"winner": "P"})
            assert r.status_code == 401, r.text
    fresh = tokens.issue(data, "operator", again=True)
    with b.client(fresh) as cf:
        assert cf.post(f"/shoes/{shoe}/rounds", json={"winner": "T"}).status_code == 201
    assert db.open_store(data).shoes.load(shoe).rounds["winner"].to_list() == list("BBBBBBT")
