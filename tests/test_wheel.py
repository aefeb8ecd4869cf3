"""The wheel, installed outside the repository, works as well as the checkout.

Builds the wheel from a copy of the sources (what an sdist holds), installs it without
``-e`` into a fresh virtual environment in a temporary folder whose only other packages
are those the wheel declares (and theirs, `pip check`ed), and runs the installed
``roads-app`` from another temporary folder, with its own user data and config folders:
``rules``; ``odds --rules`` for every built-in table (the same figures as the checkout);
``simulate`` -> ``import`` -> ``odds --shoe`` -> ``export`` -> ``import``; the sample shoes
found as package data; and the dashboard answering on ``/_stcore/health``.

Slow-ish (a build, an install, and kernels compiled afresh): its own marker, ``wheel``,
so ``-m "not wheel"`` leaves it out of a quick run. ``python3 dev.py test`` runs it.
"""

from __future__ import annotations

import contextlib
import email.parser
import importlib.metadata
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from roads_app.cli import main as checkout_main
from tests import procs

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parent.parent
BUILTIN = sorted(p.stem for p in (REPO / "rules").glob("*.toml"))
START_TIMEOUT_S = 120.0  # a hang guard for the dashboard, not a speed target


@dataclass
class Installed:
    venv: Path
    work: Path
    env: dict[str, str]

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.venv / "bin" / "roads-app"), *argv],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if check:
            assert done.returncode == 0, f"roads-app {' '.join(argv)}: {done.stderr}"
        return done

    def python(self, code: str, *argv: str) -> str:
        done = subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", code, *argv],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


def _sources(dest: Path) -> Path:
    """The files an sdist would carry: no venv, no caches, no user's shoes in data/."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, dest / name)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(REPO / "roads_app", dest / "roads_app", ignore=junk)
    shutil.copytree(REPO / "rules", dest / "rules", ignore=junk)
    (dest / "data").mkdir()
    for path in [REPO / "data" / "__init__.py", *(REPO / "data").glob("sample-*.parquet")]:
        shutil.copy2(path, dest / "data" / path.name)
    return dest


def _wheel_requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of the wheel's own metadata."""
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        meta = email.parser.BytesParser().parsebytes(z.read(name))
    return meta.get_all("Requires-Dist") or []


def _link_requirements(requirements: list[str], into: Path) -> Path:
    """A folder holding links to every distribution ``requirements`` need here (markers
    evaluated, extras followed), and to theirs: each one's top-level files as its
    ``RECORD`` lists them."""
    into.mkdir(parents=True)
    todo = [(line, "") for line in requirements]  # a requirement, the extra that asks it
    followed: set[tuple[str, str]] = set()
    while todo:
        line, under = todo.pop()
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate({"extra": under}):
            continue
        dist = importlib.metadata.distribution(req.name)
        name = canonicalize_name(req.name)
        if (name, "") not in followed:
            tops = {Path(f).parts[0] for f in dist.files or [] if ".." not in Path(f).parts}
            for top in tops:
                if not (into / top).exists():
                    (into / top).symlink_to(Path(dist.locate_file(top)))
        for extra in ("", *sorted(req.extras)):
            if (name, extra) not in followed:
                followed.add((name, extra))
                todo.extend((dep, extra) for dep in dist.requires or [])
    return into


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    pip = ["-m", "pip", "--disable-pip-version-check", "-q"]
    src = _sources(root / "src")
    subprocess.run(
        [sys.executable, *pip, "wheel", "--no-deps", "-w", str(root / "dist"), str(src)],
        check=True,
        cwd=root,
    )
    (wheel,) = (root / "dist").glob("roads_app-*.whl")
    venv = root / "venv"
    # A venv of its own, without pip (this one installs into it), whose dependencies are
    # the wheel's own declared ones: the distributions its metadata requires, followed
    # through theirs, linked from this environment (an install of the same files from
    # the index took 40 s, most of the wheel tests' time). Nothing else is importable
    # there: a module roads-app uses without declaring it fails these tests.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    # (a folder named as an install's: Streamlit runs in development mode elsewhere)
    deps = _link_requirements(_wheel_requirements(wheel), root / "deps" / "site-packages")
    (site / "roads_app_deps.pth").write_text(f"import site; site.addsitedir({str(deps)!r})\n")
    subprocess.run(
        [
            sys.executable,
            *pip,
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--no-compile",
            "--no-deps",
            str(wheel),
        ],
        check=True,
    )
    checked = subprocess.run(
        [sys.executable, *pip, "--python", str(venv / "bin" / "python"), "check"],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr  # every requirement met
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ROADS_APP_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        HOME=str(root / "home"),
        XDG_DATA_HOME=str(root / "home" / "share"),
        XDG_CONFIG_HOME=str(root / "home" / "config"),
    )
    work = root / "work"
    work.mkdir()
    yield Installed(venv=venv, work=work, env=env)
    # A fresh install's first dashboard starts the kernels' warm-up (`roads_app.sim.warmup`)
    # in a session of its own: it outlives the dashboard, compiling beside the next tests.
    left = procs.running_from(venv)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    procs.wait_exit(left, timeout=10)


def test_the_installed_package_is_the_wheel_not_the_checkout(installed: Installed) -> None:
    where = Path(installed.python("import roads_app; print(roads_app.__file__)").strip())
    assert installed.venv in where.parents
    assert not list(installed.venv.glob("lib/python*/site-packages/__editable__*"))


def test_rules_lists_every_builtin_table(installed: Installed) -> None:
    listed = [line.split()[0] for line in installed.run("rules").stdout.splitlines()]
    assert listed == BUILTIN and len(BUILTIN) >= 5


ODDS_OF_EVERY_TABLE = """
import contextlib, io, json, sys
from roads_app.cli import main
out = {}
for table in sys.argv[1:]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["odds", "--rules", table, "--json"])
    out[table] = (code, buf.getvalue())
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def installed_odds(installed: Installed) -> dict[str, tuple[int, str]]:
    """``odds --rules T --json`` of every built-in table by the installed package's CLI,
    all in one installed interpreter (a process start each cost more than the odds; the
    console script itself runs in the other tests), each table's exit code and output."""
    return json.loads(installed.python(ODDS_OF_EVERY_TABLE, *BUILTIN))


@pytest.mark.parametrize("table", BUILTIN)
def test_odds_for_every_builtin_table_match_the_checkout(
    installed_odds: dict[str, tuple[int, str]], table: str
) -> None:
    code, out = installed_odds[table]
    assert code == 0, out
    got = json.loads(out)
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert checkout_main(["odds", "--rules", table, "--json"]) == 0
    assert got == json.loads(buf.getvalue())
    assert len(got) >= 3  # every table offers at least three bets


def test_a_user_table_is_found_in_the_platform_config_folder(installed: Installed) -> None:
    folder = Path(installed.env["XDG_CONFIG_HOME"]) / "roads-app" / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    text = (REPO / "rules" / "classic.toml").read_text()
    (folder / "house.toml").write_text(text.replace('name = "classic"', 'name = "house"'))
    (folder / "classic.toml").write_text(text)
    try:
        done = installed.run("rules")
        assert [line.split()[0] for line in done.stdout.splitlines()] == sorted([*BUILTIN, "house"])
        assert "'classic' is the name of built-in rules" in done.stderr
    finally:
        shutil.rmtree(folder)


def test_the_good_road_catalogue_travels_and_a_users_replaces_it(installed: Installed) -> None:
    installed.run("simulate", "--shoes", "2", "--seed", "5", "--out", "gr.parquet")
    default = json.loads(installed.run("good-roads", "gr.parquet", "--json").stdout)
    assert [d["shoe"] for d in default] == [1, 2]
    assert any(keys for d in default for keys in d["after_round"])
    folder = Path(installed.env["XDG_CONFIG_HOME"]) / "roads-app" / "tables" / "good_roads"
    folder.mkdir(parents=True, exist_ok=True)
    text = (REPO / "rules" / "good_roads" / "default.toml").read_text(encoding="utf-8")
    all_off = text.replace("invites = ", "enabled = false\ninvites = ")
    (folder / "catalogue.toml").write_text(all_off, encoding="utf-8")
    try:
        off = json.loads(installed.run("good-roads", "gr.parquet", "--json").stdout)
        assert not any(keys for d in off for keys in d["after_round"])
        assert "good_roads" not in installed.run("rules").stdout  # not taken for a table
    finally:
        shutil.rmtree(folder.parent)


def test_simulate_import_odds_export_round_trip(installed: Installed) -> None:
    work = installed.work
    installed.run("simulate", "--shoes", "3", "--seed", "21", "--out", "sim.parquet")
    ids = installed.run("import", "sim.parquet").stdout.split()
    assert len(ids) == 3
    data = Path(installed.env["XDG_DATA_HOME"]) / "roads-app"  # the platform's folder
    assert any(data.iterdir())
    assert not (work / "data").exists()
    by_file = installed.run(
        "odds", "--shoe", "sim.parquet", "--shoe-index", "2", "--after", "10", "--json"
    ).stdout
    by_id = installed.run("odds", "--shoe", ids[1], "--after", "10", "--json").stdout
    assert json.loads(by_file) == json.loads(by_id)
    for fmt in ("csv", "json", "parquet"):
        out = installed.run("export", ids[1], "--format", fmt, "--out", f"two.{fmt}").stdout
        assert out.strip() == f"two.{fmt}"
        shown = installed.run("show", f"two.{fmt}").stdout
        assert shown.startswith("1 shoe(s), ")
    (again,) = installed.run("import", "two.csv", "--data", "elsewhere").stdout.split()
    back = installed.run(
        "odds", "--shoe", again, "--data", "elsewhere", "--after", "10", "--json"
    ).stdout
    assert json.loads(back) == json.loads(by_id)


def test_sample_shoes_travel_as_package_data(installed: Installed) -> None:
    code = (
        "from roads_app.shoefiles.samples import shipped_samples, sample_shoes\n"
        "got = {m.id: r for r, m in shipped_samples()}\n"
        "want = {m.id: r for r, m in sample_shoes()}\n"
        "print(sorted(got), all(got[k].equals(want[k]) for k in want))"
    )
    ids = sorted(p.stem for p in (REPO / "data").glob("sample-*.parquet"))
    assert installed.python(code).strip() == f"{ids} True"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _dashboard(installed: Installed, port: int) -> Iterator[subprocess.Popen[bytes]]:
    log = (installed.work / "dashboard.log").open("wb")
    proc = subprocess.Popen(
        [str(installed.venv / "bin" / "roads-app"), "--port", str(port), "--headless"],
        cwd=installed.work,
        env=installed.env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def test_the_dashboard_answers_its_health_check(installed: Installed) -> None:
    # a first start: its own user data folder (the other tests already made a library)
    fresh = installed.work / "first-start"
    installed = Installed(
        installed.venv, installed.work, {**installed.env, "XDG_DATA_HOME": str(fresh)}
    )
    port = _free_port()
    with _dashboard(installed, port) as proc:
        deadline = time.monotonic() + START_TIMEOUT_S
        answer = None
        while answer is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/_stcore/health", timeout=2
                ) as r:
                    answer = (r.status, r.read().decode())
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                with contextlib.suppress(subprocess.TimeoutExpired):  # the pause between polls
                    code = proc.wait(timeout=0.2)
                    log = (installed.work / "dashboard.log").read_text(errors="replace")
                    pytest.fail(f"the dashboard exited with {code}:\n{log[-3000:]}")
        assert answer == (200, "ok")
        # the page's plotly.js bundle travels in the wheel and is served beside the page
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/roads-app-plotly.min.js", timeout=10
        ) as r:
            head = r.read(200).decode()
        assert r.status == 200 and "plotly.js (basic - minified)" in head
    data = Path(installed.env["XDG_DATA_HOME"]) / "roads-app"
    assert data.is_dir()  # the platform's data folder, not one beside the working folder
    listed = json.loads(installed.run("shoes", "list", "--json").stdout)
    ids = {row["id"] for row in listed}
    want = {p.stem for p in (REPO / "data").glob("sample-*.parquet")}
    assert want <= ids  # the first start put the sample shoes into the new library
