"""Where a whole test run's time goes: the CPU of every process it starts, by kind.

Run: ``nice .venv/bin/python bench/bench_suite.py [--json OUT] [-- PYTEST_ARGS...]``
(no arguments: the whole suite, as ``python3 dev.py test`` runs it)

A run's own ``time`` misses most of it: a process is counted only once its parent has
waited for it, and the servers a test kills by their process group, and Chromium's
processes, never are. This samples ``/proc`` twice a second instead: every process's CPU
(``utime + stime``), put under a kind by its command line (Chromium's processes by
type, the dashboards' Streamlit, the test workers, the API servers and commands, the
kernels' warm-ups, PostgreSQL, Ray), and the whole machine's busy and idle time from
``/proc/stat``. A process that starts and ends between two samples is not seen: the
machine's busy time less the kinds' sum is printed as "not seen". Other work on the
machine counts too: run it on a quiet one.

Target (issue 50): the suite within 14 minutes of a fresh clone's CI on 2 cores.

Figures (2 cores, nothing else running, three workers, main at 9a15875 with this
script; one run, its pytest 945 s, the slowest of the day's five, 761-842 s without it):
the two cores 99% busy (1,875 core-s busy, 21 idle); Chromium 726 core-s (39%: its
renderers 511, its browser 122, its GPU process 58, utilities 34), the test workers
themselves 422 (23%), the API servers and commands the tests start 242 (13%), the
dashboards' Streamlit 215 (11%), the kernels' warm-ups 40, Playwright's driver 35, Ray
31, PostgreSQL 10; "other" 64 (most of it this script's first version, which read every
command line twice a second), not seen 75. The suite is bound by CPU, not by waiting:
four workers took as long as three (825 s against 841 s, the same day).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.procs import cmdline  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
EVERY_S = 0.5

KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Chromium: renderers", re.compile(r"chrom.*--type=renderer")),
    ("Chromium: GPU process", re.compile(r"chrom.*--type=gpu-process")),
    ("Chromium: utilities", re.compile(r"chrom.*--type=(utility|zygote)")),
    ("Chromium: browser", re.compile(r"/chrom(e|ium)\b")),
    ("Playwright's driver", re.compile(r"playwright/driver")),
    ("dashboards (Streamlit)", re.compile(r"roads_app\.ui\.launch")),
    ("kernels' warm-ups", re.compile(r"roads_app\.sim\.warmup")),
    ("test workers (xdist)", re.compile(r"-c import sys;exec\(eval\(sys\.stdin")),
    ("pytest's controller", re.compile(r"-m pytest\b")),
    ("PostgreSQL", re.compile(r"postgres")),
    ("HAProxy", re.compile(r"haproxy")),
    ("Ray", re.compile(r"\bray\b|raylet|gcs_server|ray/")),
    ("roads-app: API servers, commands", re.compile(r"roads[-_]app")),
    ("install, byte-compile", re.compile(r"\bpip\b|compileall")),
)
"""A process's kind: the first whose pattern its command line matches (else "other")."""


def kind_of(cmdline: str) -> str:
    for name, pattern in KINDS:
        if pattern.search(cmdline):
            return name
    return "other"


def machine_ticks() -> tuple[int, int]:
    """(busy, idle) clock ticks of every core since boot (``/proc/stat``'s first line)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields[:8]) - idle, idle


def processes(kinds: dict[tuple[int, str], str]) -> dict[tuple[int, str], tuple[float, str]]:
    """Every process's CPU seconds so far and kind, by (pid, start time). ``kinds``
    keeps each process's kind: its command line is read once, and again only while
    it is "other" (``dev.py app`` becomes ``roads-app``; a zombie has none)."""
    seen: dict[tuple[int, str], tuple[float, str]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            key = (int(entry.name), fields[19])  # the pid and its start time: never reused
            kind = kinds.get(key, "")
            if kind in ("", "other"):
                line = cmdline(key[0])
                kind = kind_of(line) if line.strip() else kind or "other"
                kinds[key] = kind
        except OSError:
            continue
        seen[key] = ((int(fields[11]) + int(fields[12])) / TICK, kind)
    return seen


def sample(proc: subprocess.Popen[bytes]) -> tuple[Counter[str], float, float]:
    """Until ``proc`` ends: CPU seconds by kind, and the machine's busy and idle seconds."""
    by_kind: Counter[str] = Counter()
    kinds: dict[tuple[int, str], str] = {}
    busy0, idle0 = machine_ticks()
    counted = {key: cpu for key, (cpu, _) in processes(kinds).items()}  # not the run's
    while proc.poll() is None:
        time.sleep(EVERY_S)
        for key, (cpu, kind) in processes(kinds).items():
            by_kind[kind] += max(0.0, cpu - counted.get(key, 0.0))
            counted[key] = max(cpu, counted.get(key, 0.0))
    busy1, idle1 = machine_ticks()
    return by_kind, (busy1 - busy0) / TICK, (idle1 - idle0) / TICK


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("pytest_args", nargs="*", help="after --: what dev.py test passes on")
    args = parser.parse_args()
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, str(ROOT / "dev.py"), "test", *args.pytest_args])
    by_kind, busy, idle = sample(proc)
    wall = time.monotonic() - t0
    seen = sum(by_kind.values())
    print(f"\nwall {wall:.1f} s, exit {proc.returncode}, load {os.getloadavg()[0]:.1f} after")
    share = busy / (busy + idle)
    print(f"the machine's cores: busy {busy:.0f} core-s, idle {idle:.0f} ({share:.0%} busy)")
    for kind, cpu in by_kind.most_common():
        print(f"{cpu:9.1f} core-s {cpu / busy:5.1%}  {kind}")
    lost = busy - seen
    print(f"{lost:9.1f} core-s {lost / busy:5.1%}  not seen (short-lived, or the kernel's)")
    if args.json:
        figures = {"wall_s": wall, "busy_s": busy, "idle_s": idle, "by_kind": dict(by_kind)}
        args.json.write_text(json.dumps(figures, indent=2))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
