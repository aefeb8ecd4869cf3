"""The separate hosts the replica tests use (`tests.netns`): where namespaces can be
made, each host has a network stack of its own (this machine's loopback is not its
loopback), reaches this machine and the other hosts over the switch, everything is
gone after the block, after a failure too, and nothing of this machine's own links or
addresses changed meanwhile (a browser on it drops its loads when they do). Without
namespaces the hosts are this machine's loopback, and the tests say so."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator

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


def present(names: set[str], switch: str) -> set[str]:
    """Which of these namespaces and the switch's interfaces exist now."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = ip("-n", switch, "-o", "link")
    words = set(listed.split()) | {w.split("@")[0] for w in links.replace(":", " ").split()}
    return names & words


def ip(*args: str) -> str:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=True).stdout


@contextlib.contextmanager
def changes_to_this_machine() -> Iterator[list[bytes]]:
    """The changes to this machine's links and addresses (what Chromium watches) made in
    the block, as the kernel announced them."""
    groups = 0x1 | 0x10 | 0x100  # RTMGRP_LINK, RTMGRP_IPV4_IFADDR, RTMGRP_IPV6_IFADDR
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as s:
        s.bind((0, groups))
        seen: list[bytes] = []
        yield seen
        s.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            while True:
                seen.append(s.recv(65536))


def test_hosts_are_separate_network_stacks_and_are_removed_after_a_failure() -> None:
    made: dict[str, str] = {}
    names: set[str] = set()
    with (
        changes_to_this_machine() as changes,
        pytest.raises(RuntimeError, match="the test failed here"),
        lan("a", "b") as hosts,
    ):
        print(f"hosts as {hosts.kind}")
        made = {n: h.ip for n, h in hosts.hosts.items()}
        if not namespaces_usable():
            assert hosts.kind == LOCALHOST and set(made.values()) == {"127.0.0.1"}
            raise RuntimeError("the test failed here")
        assert hosts.kind == NAMESPACES and len(set(made.values())) == 2
        assert hosts.switch is not None
        switch = hosts.switch
        block = made["a"].split(".")[2]  # the lan's third address byte names its links
        names = {*(h.netns for h in hosts.hosts.values() if h.netns), f"h{block}x1", f"h{block}x2"}
        assert present(names, switch) == names and len(names) == 4  # 2 hosts, 2 links
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
        assert present(names, switch) == set(), "a namespace or link was left behind"
        assert changes == [], "making or removing the hosts changed this machine's links"
