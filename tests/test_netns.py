"""The separate hosts the replica tests use (`tests.netns`): where namespaces can be
made, each host has a network stack of its own (this machine's loopback is not its
loopback), reaches this machine and the other hosts over the bridge, and everything is
gone after the block, after a failure too. Without namespaces the hosts are this
machine's loopback, and the tests say so."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from tests.netns import LOCALHOST, NAMESPACES, lan, namespaces_usable

CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5).close()\n"
    "    print('reached')\n"
    "except OSError as e:\n"
    "    print('refused', e)\n"
)


def reaches(prefix: list[str], host: str, port: int) -> bool:
    """Whether a process run under ``prefix`` connects to ``host:port``."""
    out = subprocess.run(
        [*prefix, sys.executable, "-c", CONNECT, host, str(port)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return out.startswith("reached")


def present(names: set[str]) -> set[str]:
    """Which of these namespaces and interfaces exist now."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    words = set(listed.split()) | {w.split("@")[0] for w in links.replace(":", " ").split()}
    return names & words


def test_hosts_are_separate_network_stacks_and_are_removed_after_a_failure() -> None:
    made: dict[str, str] = {}
    names: set[str] = set()
    with pytest.raises(RuntimeError, match="the test failed here"), lan("a", "b") as hosts:
        print(f"hosts as {hosts.kind}")
        made = {n: h.ip for n, h in hosts.hosts.items()}
        if not namespaces_usable():
            assert hosts.kind == LOCALHOST and set(made.values()) == {"127.0.0.1"}
            raise RuntimeError("the test failed here")
        assert hosts.kind == NAMESPACES and len(set(made.values())) == 2
        assert hosts.bridge is not None
        names = {hosts.bridge, *(h.netns for h in hosts.hosts.values() if h.netns)}
        assert present(names) == names
        with (
            socket.create_server((hosts.gateway, 0)) as on_bridge,
            socket.create_server(("127.0.0.1", 0)) as on_loopback,
        ):
            # this machine over the bridge: yes; its loopback from host a: not there
            assert reaches(hosts["a"].prefix(), hosts.gateway, on_bridge.getsockname()[1])
            assert not reaches(hosts["a"].prefix(), "127.0.0.1", on_loopback.getsockname()[1])
        # host b, listening on its own address, reached from host a over the bridge
        server = subprocess.Popen(
            [
                *hosts["b"].prefix(),
                sys.executable,
                "-u",
                "-m",
                "http.server",
                "-b",
                made["b"],
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert server.stdout is not None
        port = int(server.stdout.readline().split(" port ")[1].split()[0])
        assert reaches(hosts["a"].prefix(), made["b"], port)
        assert not reaches([], "127.0.0.1", port)  # it is not on this machine's loopback
        raise RuntimeError("the test failed here")  # left running: the teardown ends it
    if namespaces_usable():
        assert server.wait(timeout=10) is not None  # ended by the teardown
        assert present(names) == set(), "a namespace or bridge was left behind"
