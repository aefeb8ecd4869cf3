"""A real PostgreSQL 15 server for the tests: ``initdb`` into a temporary folder, started
with ``pg_ctl`` on a free loopback port, stopped and removed at the end.

PostgreSQL refuses to run as root, so when the tests run as root the server's folder is
given to the ``postgres`` user and its commands run as that user (``runuser``). Password
logins over TCP (``scram-sha-256``), so a wrong password is refused as it is on a real
server; the tests' role owns one fresh database per test (`PgServer.new_database`).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path

BIN_DIRS = ("/usr/lib/postgresql/15/bin",)
USER = "roads"
PASSWORD = "Pw-never-shown-7Qx"  # tests assert this text is in no output
ADMIN_PASSWORD = "Admin-pw-never-shown-3Kd"


def pg_bin(name: str) -> str | None:
    """A PostgreSQL program: Debian's version 15 folder first, then PATH."""
    for d in BIN_DIRS:
        p = Path(d) / name
        if p.exists():
            return str(p)
    return shutil.which(name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """A running server: its port, the tests' role and an admin URL."""

    folder: Path
    port: int
    opts: str = ""
    """The server's options, as started (`start` gives them again)."""
    _n = count(1)

    def url(
        self, dbname: str, *, user: str = USER, password: str = PASSWORD, host: str = "127.0.0.1"
    ) -> str:
        """``host``: one of the addresses it listens on (`running_server`'s ``listen``)."""
        return f"postgresql://{user}:{password}@{host}:{self.port}/{dbname}"

    @property
    def admin_url(self) -> str:
        return self.url("postgres", user="postgres", password=ADMIN_PASSWORD)

    def sql(self, statement: str, dbname: str = "postgres") -> None:
        """Run one statement as the superuser (autocommit: CREATE DATABASE needs it)."""
        import psycopg

        url = self.url(dbname, user="postgres", password=ADMIN_PASSWORD)
        with psycopg.connect(url, autocommit=True) as con:
            con.execute(statement)  # type: ignore[arg-type]

    def restart(self) -> None:
        """``pg_ctl restart`` (its options as it was started): every connection is cut.
        The server is shared by a test session: whoever restarts it waits for it."""
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl is not None
        subprocess.run(
            as_postgres(
                [
                    pg_ctl,
                    "-D",
                    str(self.folder / "data"),
                    "-l",
                    str(self.folder / "log"),
                    "-m",
                    "fast",
                    "-w",
                    "-t",
                    "60",
                    "restart",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=90,
        )

    def stop(self) -> None:
        """``pg_ctl stop -m fast``: every connection cut, the server gone until `start`."""
        self._ctl("-m", "fast", "stop")

    def start(self) -> None:
        """Start a stopped server again, on its port, with its options."""
        self._ctl("-l", str(self.folder / "log"), "-o", self.opts, "start")

    def _ctl(self, *args: str) -> None:
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl is not None
        cmd = [pg_ctl, "-D", str(self.folder / "data"), "-w", "-t", "60", *args]
        subprocess.run(as_postgres(cmd), check=True, capture_output=True, timeout=90)

    def new_database(self, prefix: str = "t") -> str:
        """A fresh, empty database owned by the tests' role; its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._n)}"
        self.sql(f"CREATE DATABASE {name} OWNER {USER}")
        return self.url(name)


def as_postgres(cmd: list[str]) -> list[str]:
    """A PostgreSQL program's command, run as the ``postgres`` user when we are root."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@contextlib.contextmanager
def running_server(
    *, fsync: bool = False, listen: tuple[str, ...] = (), allow: str | None = None
) -> Iterator[PgServer]:
    """Start a throwaway server; stop it and remove its folder on the way out.

    ``fsync`` off for the tests (a crash of the machine loses a test database, nothing
    else); the benchmarks keep PostgreSQL's defaults. It listens on the loopback and on
    the addresses ``listen`` (another host's gateway, `tests.netns`), and lets password
    logins in from the network ``allow`` (e.g. "10.213.7.0/24") besides the loopback.
    """
    initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError("PostgreSQL 15 is not installed: apt-get install postgresql-15")
    folder = Path(tempfile.mkdtemp(prefix="roads-pg-"))
    data, sock = folder / "data", folder / "sock"
    pwfile = folder / "pw"
    pwfile.write_text(ADMIN_PASSWORD + "\n")
    sock.mkdir()
    if os.geteuid() == 0:
        pg = pwd.getpwnam("postgres")
        for p in (folder, sock, pwfile):
            os.chown(p, pg.pw_uid, pg.pw_gid)
    subprocess.run(
        as_postgres(
            [
                initdb,
                "-D",
                str(data),
                "-U",
                "postgres",
                f"--pwfile={pwfile}",
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                *([] if fsync else ["--no-sync"]),  # nor its files synced at the end
            ]
        ),
        check=True,
        capture_output=True,
    )
    if allow:
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {allow} scram-sha-256\n")
    port = free_port()
    opts = (
        f"-c listen_addresses={','.join(('127.0.0.1', *listen))} -c port={port} "
        f"-c unix_socket_directories={sock} "
        f"-c max_connections=300 -c fsync={'on' if fsync else 'off'}"
    )
    subprocess.run(
        as_postgres(
            [
                pg_ctl,
                "-D",
                str(data),
                "-l",
                str(folder / "log"),
                "-o",
                opts,
                "-w",
                "-t",
                "60",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )
    server = PgServer(folder, port, opts)
    try:
        server.sql(f"CREATE ROLE {USER} LOGIN CREATEDB PASSWORD '{PASSWORD}'")
        yield server
    finally:
        subprocess.run(
            as_postgres([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
            check=False,
        )
        for _ in range(50):  # the server's processes let go of the folder
            try:
                shutil.rmtree(folder)
                break
            except OSError:
                time.sleep(0.1)
