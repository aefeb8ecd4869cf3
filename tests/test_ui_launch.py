"""`roads-app` (the dashboard launcher): the command it runs and the one-line refusals."""

from __future__ import annotations

import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from roads_app import serve
from roads_app.cli import main
from roads_app.errors import RoadsAppError, StorageError


def test_the_command_serves_app_py_with_nothing_to_configure():
    cmd = serve.streamlit_command(8600, headless=True)
    assert Path(cmd[cmd.index("run") + 1]) == serve.APP_PATH and serve.APP_PATH.exists()
    flags = dict(zip(cmd[cmd.index("run") + 2 :: 2], cmd[cmd.index("run") + 3 :: 2], strict=True))
    assert flags["--server.port"] == "8600"
    assert flags["--server.headless"] == "true"
    assert flags["--server.showEmailPrompt"] == "false"  # no first-run question
    assert flags["--browser.gatherUsageStats"] == "false"
    windowed = serve.streamlit_command(8501, headless=False)
    assert windowed[windowed.index("--server.headless") + 1] == "false"


@pytest.fixture
def busy_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        s.listen(1)
        yield s.getsockname()[1]


def test_a_port_in_use_is_refused_in_one_line(busy_port: int, tmp_path: Path, capsys):
    with pytest.raises(RoadsAppError, match="already in use"):
        serve.check_port(busy_port)
    code = main(["--port", str(busy_port), "--data", str(tmp_path / "d"), "--headless"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1 and str(busy_port) in err


def test_a_port_out_of_range_is_refused(capsys):
    assert main(["--port", "70000", "--headless"]) == 2
    assert "out of range" in capsys.readouterr().err


def test_the_data_folder_is_created_and_made_absolute(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = serve.prepare_data_dir(Path("some/where"))
    assert path.is_absolute() and path.is_dir() and path == tmp_path / "some" / "where"


def test_a_data_folder_that_is_a_file_is_refused(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match="cannot create the data folder"):
        serve.prepare_data_dir(blocker / "data")


def _nodelay_of_accepted(bind: Callable[[str, int, int], socket.socket]) -> int:
    """TCP_NODELAY of a connection as the dashboard's asyncio server holds it, on a socket
    bound by ``bind`` (the server's own transport, as uvicorn gets it)."""
    import asyncio

    async def run() -> int:
        got: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                got.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        listening = bind("127.0.0.1", 0, 8)
        server = await asyncio.get_running_loop().create_server(Probe, sock=listening)
        port = listening.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return await asyncio.wait_for(got, 10)
        finally:
            writer.close()
            server.close()

    # in a thread of its own: a worker that ran Playwright's sync API before this test has
    # an event loop running in the main thread, where asyncio.run refuses to start
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run()).result()


def test_the_dashboard_sends_small_answers_at_once(monkeypatch: pytest.MonkeyPatch):
    """Nagle's algorithm is off on the dashboard's connections
    (`launch.send_small_answers_at_once`): with it on, an answer written as headers then
    body waited 40 ms for the browser's delayed acknowledgement on every reused
    connection (`bench/bench_first_load.py`)."""
    from streamlit.web.server.starlette import starlette_server

    from roads_app.ui import launch

    monkeypatch.setattr(starlette_server, "_bind_socket", starlette_server._bind_socket)
    launch.send_small_answers_at_once()
    assert _nodelay_of_accepted(starlette_server._bind_socket) != 0
