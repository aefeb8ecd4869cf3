"""Compiling the kernels once, out of a user's way.

Numba compiles a kernel the first time it runs on an install (and after an upgrade: the
cache is keyed by the source files, `roads_app.jit_cache`), which took the first
backtest from under a second to 18. Each `Step` here calls kernels the way the app does,
on a few rounds, so their code lands in the cache:

* ``dev.py``'s install step runs ``python -m roads_app.sim.warmup`` once, which says
  so on one line with a progress bar (`prepare`);
* the dashboard and ``roads-app api`` start it in a background process
  (`start_in_background`) and serve at once; a request that needs a kernel before the
  warm-up ends waits for it to be compiled there (`roads_app.jit_cache`) and loads its code
  rather than compiling beside it;
* a command that must compile first (``backtest``, ``simulate``) says so on one line
  with a progress bar (`prepare`), never a silent pause;
* a small backtest needs no compiling: it runs the engine's source interpreted
  (`roads_app.sim.kernel.PLAIN_UP_TO`) while the engine compiles for the next run in a
  background process, said on the same one line (`later`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from roads_app import jit_cache
from roads_app.i18n import word


@dataclass(frozen=True)
class Step:
    """Calls that compile some kernels, and about how long that takes (CPU seconds on
    the 2-core machine the figures come from: the bar's scale, not a promise)."""

    name: str
    seconds: float
    run: Callable[[], object]
    kernels: Callable[[], Sequence[Any]]  # the dispatchers it compiles


def _roads() -> None:
    from roads_app.game.rounds import rounds_from_winners
    from roads_app.roads import good_roads, grids

    rounds = rounds_from_winners("BBPTPBBBPPBPB")
    grids.all_roads(rounds)
    grids.ask_roads(rounds)
    good_roads.good_road_masks(rounds)


def _roads_kernels() -> Sequence[Any]:
    from roads_app.roads import derived, good_roads, grids

    return (grids._roads_kernel, derived.mark_colours, good_roads._masks)


def _backtest(engine: str) -> None:
    from roads_app.bets.tables import load_table
    from roads_app.places import DEFAULT_TABLE
    from roads_app.sim import backtest
    from roads_app.sim.strategies import Settings, make_strategy

    betting = backtest.Betting(make_strategy("flat"), Settings(), load_table(DEFAULT_TABLE))
    backtest.backtest(betting, backtest.Simulated(1, 2), backtest.RunOptions(engine=engine))


def _engine() -> None:
    from roads_app.bets.tables import load_table
    from roads_app.places import DEFAULT_TABLE
    from roads_app.sim import kernel
    from roads_app.sim.strategies import Settings, make_strategy, resolve

    _backtest("fast")  # a small run: the block alone (`kernel.SERIAL_UP_TO`)
    table = load_table(DEFAULT_TABLE)
    strategy = make_strategy("flat")
    plan = kernel.make_plan(strategy, resolve(Settings(), strategy, table), table)
    kernel.run_fast(plan, 1, 2, parallel=True)  # a large run's parallel loop around it


def _first_engine_kernels() -> Sequence[Any]:
    from roads_app.sim import exact, kernel, pcg64

    # the summary's exact edge runs interpreted (`bets.odds.full_shoe_outcomes`)
    return (kernel._run_block, pcg64.shoe_states, exact._accumulate, exact.two_products_into)


def _engine_kernels() -> Sequence[Any]:
    from roads_app.sim import kernel

    return (*_first_engine_kernels(), kernel._run_kernel)


def _plain_kernels() -> Sequence[Any]:
    from roads_app.sim import exact, session

    return (session.play, exact._accumulate, exact.two_products_into)


def _odds() -> None:
    from roads_app.bets import odds

    odds.outcomes(odds.full_shoe_counts(8))


def _odds_kernels() -> Sequence[Any]:
    from roads_app.bets import odds

    return (odds.outcomes_into,)


def _simulate() -> None:
    from roads_app.sim import bulk

    bulk.deal_shoes_fast(1, 2)


def _simulate_kernels() -> Sequence[Any]:
    from roads_app.sim import bulk

    return (bulk._deal_batch, bulk._round_columns)


ROADS = Step("roads", 4.0, _roads, _roads_kernels)
ENGINE = Step("engine", 8.0, _engine, _engine_kernels)
SMALL_ENGINE = Step("engine", 6.0, lambda: _backtest("fast"), _first_engine_kernels)
"""What a run of at most `kernel.SERIAL_UP_TO` shoes needs: the engine but its parallel
loop (a second of CPU less to compile on a new install)."""
PLAIN = Step("plain", 2.0, lambda: _backtest("plain"), _plain_kernels)
SIMULATE = Step("simulate", 4.0, _simulate, _simulate_kernels)
ODDS = Step("odds", 3.0, _odds, _odds_kernels)  # the pages' odds of the shoe left
STEPS: tuple[Step, ...] = (ROADS, ENGINE, PLAIN, SIMULATE, ODDS)
"""Every kernel a page or a command calls first (the studies compile on their own)."""


def missing(steps: Sequence[Step] = STEPS) -> list[Step]:
    """The steps whose kernels this machine's cache does not hold yet."""
    return [s for s in steps if not all(jit_cache.is_cached(k) for k in s.kernels())]


def _ticking(bar: Any, done: threading.Event) -> None:
    """Move the bar with the time spent, short of its end until the compile is done."""
    start = time.monotonic()
    while not done.wait(0.25):
        bar.n = min(bar.total * 0.97, time.monotonic() - start)
        bar.refresh()


def prepare(steps: Sequence[Step] = STEPS, stream: Any = None, bar: bool = True) -> None:
    """Compile what ``steps`` need and the cache lacks, saying so on one line of
    ``stream`` (stderr) with a progress bar over the expected seconds; nothing when the
    cache holds it all."""
    todo = missing(steps)
    if not todo:
        return
    stream = sys.stderr if stream is None else stream
    seconds = round(sum(s.seconds for s in todo))
    print(word("warm_preparing", seconds=seconds), file=stream, flush=True)
    if not bar:
        _compile(todo, beside=True)
        return
    from tqdm import tqdm

    done = threading.Event()
    shape = "{l_bar}{bar}| {elapsed}"
    with tqdm(total=seconds, file=stream, bar_format=shape, mininterval=0.5) as shown:
        ticker = threading.Thread(target=_ticking, args=(shown, done), daemon=True)
        ticker.start()
        try:
            _compile(todo, beside=True)
        finally:
            done.set()
            ticker.join()
        shown.n = shown.total
        shown.refresh()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def halves(steps: Sequence[Step]) -> tuple[list[Step], list[Step]]:
    """``steps`` in two groups of about the same seconds, for two processes: steps that
    compile a kernel in common go together (each kernel compiled once)."""
    groups: list[list[Step]] = []
    for step in steps:
        mine = set(step.kernels())
        joined = [g for g in groups if mine & {k for s in g for k in s.kernels()}]
        merged = [s for g in joined for s in g] + [step]
        groups = [g for g in groups if not any(g is j for j in joined)] + [merged]
    here: list[Step] = []
    there: list[Step] = []
    for group in sorted(groups, key=lambda g: -sum(s.seconds for s in g)):
        lighter = here if sum(s.seconds for s in here) <= sum(s.seconds for s in there) else there
        lighter.extend(group)
    return [s for s in steps if s in here], [s for s in steps if s in there]


def _compile(steps: Sequence[Step], beside: bool = False) -> None:
    """Run ``steps`` here; ``beside``: half of them in a helper process at the same time
    where there are two cores (the compiler is one thread: the install step's warm-up
    took 24 s on two cores). Whatever the helper did not compile is compiled here."""
    with jit_cache.warming() as fd:
        here, there = halves(steps) if beside and _cores() > 1 else (list(steps), [])
        helper = _helper(there, fd) if there else None
        if helper is None:  # none wanted, or it could not start: all of them here
            here = list(steps)
        try:
            for step in here:
                step.run()
        except BaseException:
            if helper is not None:
                helper.kill()
            raise
        if helper is not None and helper.wait() != 0:
            for step in missing(there):
                step.run()


def _helper(
    steps: Sequence[Step], fd: int | None, detached: bool = False
) -> subprocess.Popen[bytes] | None:
    """``python -m roads_app.sim.warmup --quiet STEP...`` for ``steps``, holding the
    warm-up's lock (``fd``) with us or, ``detached``, after us in a session of its own;
    None if it cannot start."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "roads_app.sim.warmup", "--quiet", *(s.name for s in steps)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=() if fd is None else (fd,),
            env={**os.environ, jit_cache.WARMING_ENV: "1"},
            start_new_session=detached,
        )
    except OSError:
        return None


def later(steps: Sequence[Step], stream: Any = None) -> subprocess.Popen[bytes] | None:
    """Compile what ``steps`` need and the cache lacks in a background process
    (`start_in_background`), saying so on one line of ``stream`` (stderr) as `prepare`
    does; nothing when the cache holds it all."""
    todo = missing(steps)
    if not todo:
        return None
    stream = sys.stderr if stream is None else stream
    print(word("warm_preparing", seconds=round(sum(s.seconds for s in todo))), file=stream)
    return start_in_background(todo)


def start_in_background(steps: Sequence[Step] = STEPS) -> subprocess.Popen[bytes] | None:
    """Compile what ``steps`` need and the cache lacks in another process, silently,
    holding the warm-up's lock until it ends (a kernel missing here meanwhile waits for
    it). None when nothing is missing, or another warm-up holds the lock."""
    todo = missing(steps)
    if not todo:
        return None
    fd = jit_cache.lock_warming()
    if fd is None:
        return None
    try:
        return _helper(todo, fd, detached=True)
    finally:
        os.close(fd)  # the child holds the lock now


def main(argv: Sequence[str]) -> int:
    """``python -m roads_app.sim.warmup [--quiet [STEP...]]``: compile what the cache
    lacks (quietly: for the steps named, all when none is)."""
    if "--quiet" in argv:
        names = [a for a in argv if a != "--quiet"]
        try:
            _compile(missing([s for s in STEPS if s.name in names] if names else STEPS))
        except Exception:  # a background helper: the pages compile what it could not
            return 1
        return 0
    prepare()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
