"""Separate hosts on one machine for the replica tests: Linux network namespaces.

`lan("a", "b", "c")` gives each named host its own network namespace (its own network
stack: interfaces, addresses, routes, ports, loopback), joined by a veth pair to a bridge
on this machine, which holds the gateway address the database server listens on. A
process started with `Host.prefix` (``ip netns exec NS``) reaches the others only over
that bridge, as separate hosts on one switch do.

Namespaces need root (``ip netns add``; a container may refuse it even to root). Without
it (or without ``ip``, or with
``ROADS_APP_NETNS=off``) the same tests run with plain processes on this machine's
loopback: `Lan.kind` says which, and the
tests print it. Everything made is removed on the way out, after a failure too: the
namespaces (with their ends of the veth pairs), the bridge, and any process of ours
still inside a namespace.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import ipaddress
import os
import random
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

NAMESPACES = "network namespaces"
LOCALHOST = "plain processes on localhost"
_LOCK = Path("/tmp/roads-app-netns.lock")  # test workers pick their subnets one at a time
_n = count(1)


@dataclass(frozen=True)
class Host:
    """One host of the LAN: its address, and its namespace (None: this machine)."""

    name: str
    ip: str
    netns: str | None = None

    def prefix(self) -> list[str]:
        """What a command is run under to run on this host."""
        return ["ip", "netns", "exec", self.netns] if self.netns else []


@dataclass
class Lan:
    """Hosts by name, the gateway address (this machine's, where the database listens)
    and the subnet the database lets in."""

    kind: str
    gateway: str
    subnet: str
    hosts: dict[str, Host] = field(default_factory=dict)
    bridge: str | None = None

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)


OFF_ENV = "ROADS_APP_NETNS"
"""Set to "off" to run the replica tests as plain processes even as root (to try that
path on a machine that has namespaces)."""


def namespaces_usable() -> bool:
    """Whether ``ip netns add`` works here (root, ``ip``, and a machine or container
    that lets us: tried once per process with a namespace made and removed)."""
    if os.environ.get(OFF_ENV) == "off":
        return False
    return _can_make_namespaces()


@functools.cache
def _can_make_namespaces() -> bool:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    probe = f"roads-probe-{os.getpid()}"
    try:
        _ip("netns", "add", probe)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return False
    with contextlib.suppress(subprocess.CalledProcessError):
        _ip("netns", "del", probe)
    return True


def _free_subnet() -> ipaddress.IPv4Network:
    """A /24 in 10.213.0.0/16 no interface of this machine is on."""
    out = subprocess.run(
        ["ip", "-o", "-4", "addr"], capture_output=True, text=True, check=True
    ).stdout
    used = {ipaddress.ip_interface(w).network for w in out.split() if "/" in w}
    free = [
        n
        for n in ipaddress.ip_network("10.213.0.0/16").subnets(new_prefix=24)
        if n.network_address.packed[2] != 0 and not any(n.overlaps(u) for u in used)
    ]
    return random.choice(free)


@contextlib.contextmanager
def lan(*names: str) -> Iterator[Lan]:
    """The hosts ``names`` on one LAN with this machine: namespaces where we may make
    them, else all on this machine's loopback."""
    if not namespaces_usable():
        yield Lan(LOCALHOST, "127.0.0.1", "127.0.0.1/32", {n: Host(n, "127.0.0.1") for n in names})
        return
    tag = f"r{os.getpid() % 100000}{next(_n)}"  # interface names are 15 characters at most
    bridge = f"{tag}br"
    made_ns: list[str] = []
    made_bridge = False
    try:
        with _LOCK.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            net = _free_subnet()
            addrs = list(net.hosts())
            _ip("link", "add", bridge, "type", "bridge")
            made_bridge = True
            _ip("addr", "add", f"{addrs[0]}/{net.prefixlen}", "dev", bridge)
        _ip("link", "set", bridge, "up")
        result = Lan(NAMESPACES, str(addrs[0]), str(net), bridge=bridge)
        for i, name in enumerate(names, start=1):
            ns = f"roads-{tag}-{name}"
            _ip("netns", "add", ns)
            made_ns.append(ns)
            outside, inside = f"{tag}h{i}", f"{tag}n{i}"
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", ns)
            _ip("link", "set", outside, "master", bridge)
            _ip("link", "set", outside, "up")
            _ip("-n", ns, "addr", "add", f"{addrs[i]}/{net.prefixlen}", "dev", inside)
            _ip("-n", ns, "link", "set", inside, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "route", "add", "default", "via", str(addrs[0]))
            result.hosts[name] = Host(name, str(addrs[i]), ns)
        yield result
    finally:
        for ns in made_ns:
            _end_processes_in(ns)
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("netns", "del", ns)  # its end of the veth goes, and the pair with it
        if made_bridge:
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("link", "del", bridge)


def _end_processes_in(ns: str) -> None:
    """Kill what a failed test left running in namespace ``ns`` (only processes started
    there, by their ids)."""
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
    for pid in out.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
