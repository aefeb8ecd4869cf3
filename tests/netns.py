"""Separate hosts on one machine for the replica tests: Linux network namespaces.

`lan("a", "b", "c")` gives each named host its own network namespace (its own network
stack: interfaces, addresses, routes, ports, loopback), joined by a veth pair to a switch:
a bridge in a namespace of its own, with one veth pair to this machine, whose end holds
the gateway address the database server listens on. A process started with
`Host.prefix` (``ip netns exec NS``) reaches the others only over that switch, as
separate hosts on one switch do.

The switch is made once for a test session (`session_switch`, from the controller's
``pytest_sessionstart``, before any worker starts) and every host's veth pair is made
inside the switch's and the host's namespaces, never here: Chromium drops the loads
waiting for a connection (``net::ERR_NETWORK_CHANGED``) whenever this machine's own
links or addresses change, and the browser tests run beside these on other workers. A
`lan` changes nothing this machine sees.

Namespaces need root (``ip netns add``; a container may refuse it even to root). Without
it (or without ``ip``, or with ``ROADS_APP_NETNS=off``) the same tests run with plain
processes on this machine's loopback: `Lan.kind` says which, and the tests print it.
Everything made is removed on the way out, after a failure too: a lan's namespaces
(with their veth pairs) and any process of ours still inside one after its block, the
switch (with its pair to this machine) after the session.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import ipaddress
import os
import random
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

NAMESPACES = "network namespaces"
LOCALHOST = "plain processes on localhost"
_LOCK = Path("/tmp/roads-app-netns.lock")  # test processes make their parts one at a time
SWITCH_ENV = "ROADS_APP_NETNS_SWITCH"
"""The session's switch, for the workers: its namespace and this machine's address on it."""
BRIDGE, UPLINK = "br0", "up0"  # in the switch: the bridge, its end of the pair to here
_SWITCH_PREFIX = "roads-sw-"  # then the id of the process that made it


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
    """Hosts by name, the gateway address (this machine's, where the database listens),
    the subnet the database lets in and the switch's namespace (None: no namespaces)."""

    kind: str
    gateway: str
    subnet: str
    hosts: dict[str, Host] = field(default_factory=dict)
    switch: str | None = None

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]


@dataclass(frozen=True)
class Switch:
    """A switch's namespace and this machine's end on it (address and subnet)."""

    netns: str
    gateway: ipaddress.IPv4Interface

    def encode(self) -> str:
        return f"{self.netns} {self.gateway}"

    @staticmethod
    def decode(text: str) -> Switch | None:
        """The switch `encode` wrote, if it is still there."""
        words = text.split()
        if len(words) != 2 or words[0] not in _namespaces():
            return None
        return Switch(words[0], ipaddress.IPv4Interface(words[1]))


def _ip(*args: str) -> str:
    return subprocess.run(
        ["ip", *args], check=True, capture_output=True, text=True, timeout=30
    ).stdout


def _namespaces() -> set[str]:
    return {line.split()[0] for line in _ip("netns", "list").splitlines() if line.split()}


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
    """A /16 of 10.200.0.0-10.254.255.255 no interface of this machine is on."""
    out = _ip("-o", "-4", "addr")
    used = {ipaddress.ip_interface(w).network for w in out.split() if "/" in w}
    free = [
        n
        for n in (ipaddress.ip_network(f"10.{b}.0.0/16") for b in range(200, 255))
        if not any(n.overlaps(u) for u in used)
    ]
    return random.choice(free)


def _sweep() -> None:
    """Remove the switches of test sessions that were killed before they could."""
    for ns in _namespaces():
        pid = ns.removeprefix(_SWITCH_PREFIX)
        if ns.startswith(_SWITCH_PREFIX) and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("netns", "del", ns)


@contextlib.contextmanager
def switch() -> Iterator[Switch]:
    """A switch made for the hosts of a test session, and removed on the way out."""
    name = f"{_SWITCH_PREFIX}{os.getpid()}"
    here = f"rsw{os.getpid()}"  # this machine's end (interface names: 15 characters)
    with _LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _sweep()
        net = _free_subnet()
        gateway = ipaddress.IPv4Interface(f"{net.network_address + 1}/{net.prefixlen}")
        _ip("netns", "add", name)
        try:
            _ip("-n", name, "link", "add", BRIDGE, "type", "bridge")
            _ip("-n", name, "link", "set", BRIDGE, "up")
            peer = f"link add {UPLINK} type veth peer name {here} netns {os.getpid()}"
            _ip("-n", name, *peer.split())
            _ip("-n", name, "link", "set", UPLINK, "master", BRIDGE)
            _ip("-n", name, "link", "set", UPLINK, "up")
            _ip("link", "set", here, "addrgenmode", "none")  # no IPv6 address turning up later
            _ip("addr", "add", str(gateway), "dev", here)
            _ip("link", "set", here, "up")
        except BaseException:
            _ip("netns", "del", name)  # the pair with it, both ends
            raise
    try:
        yield Switch(name, gateway)
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            _ip("netns", "del", name)


_made = contextlib.ExitStack()  # what `session_switch` made, removed by `end_session_switch`


def session_switch() -> None:
    """Make the session's switch, for the processes started after (the test workers),
    if namespaces can be made here and none was given."""
    if namespaces_usable() and Switch.decode(os.environ.get(SWITCH_ENV, "")) is None:
        os.environ[SWITCH_ENV] = _made.enter_context(switch()).encode()


def end_session_switch() -> None:
    """Remove what `session_switch` made."""
    _made.close()


def _switch() -> Switch:
    """The session's switch; else one of this process's own, until it exits (a test run
    without the session hook: a helper script)."""
    given = Switch.decode(os.environ.get(SWITCH_ENV, ""))
    if given is None:
        session_switch()
        atexit.register(end_session_switch)
        given = Switch.decode(os.environ[SWITCH_ENV])
        assert given is not None, "the switch just made is not there"
    return given


def _free_block(sw: Switch) -> int:
    """A third address byte no lan on this switch holds (its hosts' links say which)."""
    held = {int(n) for n in re.findall(r"\bh(\d+)x1[@:]", _ip("-n", sw.netns, "-o", "link"))}
    return min(set(range(1, 255)) - held)


@contextlib.contextmanager
def lan(*names: str) -> Iterator[Lan]:
    """The hosts ``names`` on one LAN with this machine: namespaces where we may make
    them, else all on this machine's loopback."""
    if not namespaces_usable():
        yield Lan(LOCALHOST, "127.0.0.1", "127.0.0.1/32", {n: Host(n, "127.0.0.1") for n in names})
        return
    sw = _switch()
    net = sw.gateway.network
    result = Lan(NAMESPACES, str(sw.gateway.ip), str(net), switch=sw.netns)
    made_ns: list[str] = []
    made_links: list[str] = []
    try:
        with _LOCK.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            block = _free_block(sw)
            for i, name in enumerate(names, start=1):
                ns = f"roads-{sw.netns.removeprefix(_SWITCH_PREFIX)}-{block}-{name}"
                _ip("netns", "add", ns)
                made_ns.append(ns)
                link = f"h{block}x{i}"  # the switch's end; the host's is its eth0
                _ip("-n", sw.netns, *f"link add {link} type veth peer name eth0 netns {ns}".split())
                made_links.append(link)
                _ip("-n", sw.netns, "link", "set", link, "master", BRIDGE)
                _ip("-n", sw.netns, "link", "set", link, "up")
                address = net.network_address + block * 256 + i
                _ip("-n", ns, "addr", "add", f"{address}/{net.prefixlen}", "dev", "eth0")
                _ip("-n", ns, "link", "set", "eth0", "up")
                _ip("-n", ns, "link", "set", "lo", "up")
                _ip("-n", ns, "route", "add", "default", "via", str(sw.gateway.ip))
                result.hosts[name] = Host(name, str(address), ns)
        yield result
    finally:
        for link in made_links:  # the pair goes at once (a namespace goes when the
            with contextlib.suppress(subprocess.CalledProcessError):  # kernel gets to it)
                _ip("-n", sw.netns, "link", "del", link)
        for ns in made_ns:
            _end_processes_in(ns)
            with contextlib.suppress(subprocess.CalledProcessError):
                _ip("netns", "del", ns)


def _end_processes_in(ns: str) -> None:
    """Kill what a failed test left running in namespace ``ns`` (only processes started
    there, by their ids)."""
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
    for pid in out.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
