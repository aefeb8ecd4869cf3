#!/usr/bin/env python3
"""One entry point for a fresh machine: `python3 dev.py app` or `python3 dev.py test`.

Needs only Python 3.11+. Creates `.venv` beside this file and installs the package
into it (again only when pyproject.toml changed), then runs the dashboard or the tests.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"
CHROMIUM = "/usr/bin/chromium"
INITDB = "/usr/lib/postgresql/15/bin/initdb"
HAPROXY = "/usr/sbin/haproxy"  # the balancer in front of replicas (tests/test_health.py)


def ensure_venv() -> None:
    """Create the venv and install the package with its test and cluster extras, idempotently.

    The cluster extra (Ray) comes too so that the tests marked ``cluster`` run here.
    """
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py may be started by an older python3)
        sys.exit("roads-app needs Python 3.11 or newer")
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == want:
        return
    if not (BIN / "python").exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.check_call([*pip, "--no-compile", "-e", f"{ROOT}[dev,cluster]"])
    # Byte-compiled after the install, on every core (pip compiles on one: 75 s against
    # 63 s here): where PYTHONDONTWRITEBYTECODE is set, as on CI, Python would otherwise
    # compile every module again in every process the tests start.
    site = subprocess.check_output(
        [str(BIN / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        text=True,
    )
    byte_compile(site.strip(), workers=0)
    # compile the kernels now, once, with a line that says so, not on a first page or run
    subprocess.call([str(BIN / "python"), "-m", "roads_app.sim.warmup"])
    STAMP.write_text(want)


def missing_system_packages() -> list[str]:
    """The OS packages the tests drive for real that this machine lacks: the system
    Chromium (browser tests), fontconfig (``fc-list``: the font tests hide the machine's
    CJK fonts with it; no CJK font is installed, the pages carry their own),
    PostgreSQL 15 (the store's tests ``initdb`` a temporary server as ``postgres``) and
    HAProxy (a balancer's health checks take a replica out of rotation)."""
    need = []
    if not (Path(CHROMIUM).exists() or os.environ.get("ROADS_APP_CHROMIUM")):
        need.append("chromium")
    if not shutil.which("fc-list"):
        need.append("fontconfig")
    if not (Path(INITDB).exists() or shutil.which("initdb")):
        need.append("postgresql-15")
    if not (Path(HAPROXY).exists() or shutil.which("haproxy")):
        need.append("haproxy")
    return need


def ensure_system_packages() -> None:
    """Install what `missing_system_packages` names from the OS packages, if we can."""
    need = missing_system_packages()
    if need and shutil.which("apt-get") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.check_call(["apt-get", "update", "-qq"], env=env)
        subprocess.check_call(["apt-get", "install", "-y", "-qq", *need], env=env)
    elif need:
        print(
            f"note: install {' '.join(need)} (apt-get install ...) or the tests that "
            "need them will fail",
            file=sys.stderr,
        )
    has_user = (
        subprocess.call(["id", "postgres"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        == 0
    )
    if not has_user and os.geteuid() == 0 and shutil.which("useradd"):
        subprocess.check_call(
            [
                "useradd",
                "--system",
                "--home-dir",
                "/var/lib/postgresql",
                "--shell",
                "/bin/bash",
                "postgres",
            ]
        )


def workers(args: list[str]) -> list[str]:
    """Three test workers (pytest-xdist), unless the arguments choose (``-n``, ``-p no:xdist``)
    or only list the tests: the tests spend much of their time waiting on a server, a
    page or a subprocess (a whole run on two workers kept the two cores about a third
    busy), so three share two cores well: a fresh clone's run took 684 s against 794-898 s
    on two; four took the same as three. Tests of a module that share a module-wide
    fixture stay on one worker (``tests/conftest.py``)."""
    chosen = any(
        a.startswith(("-n", "--numprocesses", "--co", "--collect-only")) or a == "no:xdist"
        for a in args
    )
    return (
        []
        if chosen
        else ["-n", os.environ.get("ROADS_APP_TEST_WORKERS", "3"), "--dist", "loadgroup"]
    )


def byte_compile(*paths: str, workers: int = 1) -> None:
    """Write the byte code of the modules under ``paths`` (absolute, or from this checkout),
    ``workers`` processes at a time (0: one per core). Python keeps byte code it compiles
    only where ``PYTHONDONTWRITEBYTECODE`` is unset; compiling here writes it whatever
    the setting, and a file changed since is compiled afresh on import, never run stale."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.call(
        [str(BIN / "python"), "-m", "compileall", "-q", "-j", str(workers), *paths],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def compile_sources() -> None:
    """The package's and the tests' byte code, written once before a test run. Where
    ``PYTHONDONTWRITEBYTECODE`` is set (CI, this machine) every process the tests start
    (servers, CLI runs, workers: hundreds) would compile the package again."""
    byte_compile("roads_app", "tests", "bench")


def main(argv: list[str]) -> int:
    cmd, rest = (argv[0], argv[1:]) if argv else ("app", [])
    ensure_venv()
    if cmd == "app":  # a checkout keeps its shoes in its own data/ (an install: platformdirs)
        env = {**os.environ}
        env.setdefault("ROADS_APP_DATA", str(ROOT / "data"))
        app = [str(BIN / "roads-app"), *rest]
        if os.name == "posix":  # roads-app takes this process's place: `kill` stops it too
            sys.stdout.flush()
            sys.stderr.flush()
            os.chdir(ROOT)
            os.execve(app[0], app, env)
        return subprocess.call(app, cwd=ROOT, env=env)
    if cmd == "test":
        ensure_system_packages()
        compile_sources()
        return subprocess.call(
            [str(BIN / "python"), "-m", "pytest", *workers(rest), *rest], cwd=ROOT
        )
    if cmd == "bench":
        return subprocess.call([str(BIN / "python"), "bench/run.py", *rest], cwd=ROOT)
    sys.exit(f"usage: python3 dev.py [app|test|bench] [args...]  (unknown command {cmd!r})")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
