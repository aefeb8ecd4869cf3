"""Run a job's shards as Ray tasks: one shard a range of shoe numbers of one seed.

Generic over the job: a *shard function* ``fn(first, count, *args)`` computes a partial
result for shoes ``first .. first+count-1``; `map_shards` runs one Ray task per shard
and hands the results back **in shard order**, whatever order they finished in, so the
caller merges them in a fixed order (or, for the backtest, adds exact totals, which is
order-free anyway). The results are identical to running the shard function over the
same ranges in one process, which is what the single-machine path does.

Ray is imported only here and only when a cluster is asked for (`--cluster`); it is the
optional extra ``roads-app[cluster]``.

* ``--cluster auto``: join the Ray instance already running on this machine (``ray start
  --head``), or start one for this process.
* ``--cluster HOST:PORT``: a running cluster's head (the address ``ray start --head``
  prints). It is checked with a plain TCP connection first, because Ray itself retries an
  unreachable address for minutes.

Faults: a task whose worker dies is retried by Ray (``max_retries``); a shard computes
the same whichever worker runs it, so the result is unchanged. Ctrl-C while waiting
cancels every task still pending or running.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from typing import Any

from roads_app.errors import ClusterError, whole_number
from roads_app.messages import Message

Progress = Callable[[int, int], None]

RETRIES = 3
"""Times Ray reruns a shard whose worker died (beyond the first attempt)."""

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a cluster head to accept a TCP connection."""


def shards(total: int, size: int) -> list[range]:
    """Shoes ``0 .. total-1`` in consecutive ranges of ``size`` (the last may be shorter).

    >>> shards(10, 4)
    [range(0, 4), range(4, 8), range(8, 10)]
    """
    size = whole_number(size, Message("msg_what_shard_size"), 1, error=ClusterError)
    return [range(a, min(a + size, total)) for a in range(0, total, size)]


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        command = "pip install 'roads-app[cluster]'"
        raise ClusterError(
            Message("msg_cluster_needs_ray", flag="--cluster", command=command)
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ClusterError(
            Message(
                "msg_cluster_address",
                address=repr(address),
                form="HOST:PORT",
                command="`ray start --head`",
                auto="auto",
            )
        )
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise ClusterError(
            Message("msg_cluster_unreachable", address=address, why=reason)
        ) from None


def check(address: str) -> None:
    """Fail fast, before any progress bar: Ray missing, a bad or unreachable address."""
    _ray()
    if address != "auto":
        _check_reachable(address)


_joined: list[str] = []  # the address this process joined through `connect`, if it did


def connect(address: str) -> None:
    """Join (or for ``auto`` possibly start) a Ray instance for this process.

    Ray allows one per process: the same address again is a no-op, another one (the
    dashboard's setting changed) leaves the first; ``auto`` accepts whatever this process
    is already connected to (a test's or a notebook's own ``ray.init``).
    """
    ray = _ray()
    if address != "auto":
        _check_reachable(address)
    if ray.is_initialized():
        if address == "auto" or _joined[-1:] == [address]:
            return
        ray.shutdown()
    _joined.clear()
    _joined.append(address)
    quiet = {"log_to_driver": False, "logging_level": "ERROR", "configure_logging": True}
    if address == "auto":
        try:
            ray.init(address="auto", **quiet)
        except ConnectionError:  # no instance running here: start one for this run
            start_local(**quiet)
        return
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(Message("msg_cluster_cannot_join", address=address, why=first)) from None


def start_local(**options: Any) -> None:
    """``ray.init`` of a new local instance, tried again if Ray's startup times out.

    Ray gives its node 30 s to come up, which a machine busy with other work can
    exceed; a second or third try then finds it warm.
    """
    ray = _ray()
    for attempt in range(3):
        try:
            ray.init(include_dashboard=False, **options)
            return
        except Exception as e:  # Ray raises a bare Exception for this timeout
            if "timed out during startup" not in str(e):
                raise
            ray.shutdown()
            if attempt == 2:
                raise ClusterError(Message("msg_ray_start_timeout")) from None


def _task(fn: Callable[..., Any], first: int, count: int, threads: int, args: tuple) -> Any:
    """One shard on a worker, with the engine limited to the task's CPUs."""
    from roads_app.sim.kernel import set_threads

    set_threads(threads)
    return fn(first, count, *args)


_remotes: dict[tuple[int, int], Any] = {}


def map_shards(
    fn: Callable[..., Any],
    parts: Sequence[range],
    args: tuple = (),
    *,
    progress: Progress | None = None,
    threads: int = 1,
    retries: int = RETRIES,
) -> list[Any]:
    """``[fn(r.start, len(r), *args) for r in parts]``, each call a Ray task (connect first).

    ``progress(done, total)`` counts shoes of finished shards. A shard that still fails
    after its retries is a `ClusterError`; an interruption cancels the tasks left.
    """
    ray = _ray()
    if not ray.is_initialized():
        raise ClusterError(Message("msg_ray_not_connected", call="connect"))
    key = (threads, retries)
    if key not in _remotes:  # one remote function per shape: Ray exports it once
        _remotes[key] = ray.remote(num_cpus=threads, max_retries=retries)(_task)
    remote = _remotes[key]
    shared = ray.put(args)  # the strategy and table go to the object store once
    refs = [remote.remote(fn, r.start, len(r), threads, shared) for r in parts]
    where = {ref: i for i, ref in enumerate(refs)}
    out: list[Any] = [None] * len(parts)
    total = sum(len(r) for r in parts)
    done = 0
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
            for ref in ready:
                i = where[ref]
                try:
                    out[i] = ray.get(ref)
                except ray.exceptions.RayError as e:
                    raise ClusterError(
                        Message(
                            "msg_shard_failed",
                            shard=i + 1,
                            first=f"{parts[i].start + 1:,}",
                            last=f"{parts[i].stop:,}",
                            retries=retries,
                            error=type(e).__name__,
                        )
                    ) from None
                done += len(parts[i])
                if progress is not None:
                    progress(done, total)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    return out


# --- applications -------------------------------------------------------------------------
# The backtest's shard function is `roads_app.sim.backtest._cluster_shard`; the odds
# study's is here (the study lives in `bets`, which must not import `sim`).

SHARD_SHOES = 50_000
"""Shoes per Ray task in a backtest by default: a second or so of work, 20 tasks for 1M."""

STUDY_SHARD_SHOES = 2048
"""Shoes per Ray task in the odds study by default (a few seconds each on one core)."""


def _study_shard(first: int, count: int, seed: int, table: Any, closing: bool) -> Any:
    from roads_app.sim.study import study_range

    return study_range(seed, range(first, first + count), table, None, closing)


def odds_study(
    seed: int,
    n_shoes: int,
    table: Any,
    *,
    address: str,
    shard_shoes: int = STUDY_SHARD_SHOES,
    closing: bool = True,
    progress: Progress | None = None,
) -> Any:
    """The odds study with one Ray task per shard of shoes.

    Each task returns its range's `live_odds.StudyPart` (`sim.study.study_range`, the
    compiled study); the parts are joined in shoe order by the same `summarize_study` the
    single-machine study uses, and a part does not depend on how the shoes were cut, so
    the result is identical to it.
    """
    from roads_app.bets.live_odds import check_study_size, summarize_study
    from roads_app.game.shoe import check_seed

    check_study_size(n_shoes)
    check_seed(seed)
    parts = shards(n_shoes, shard_shoes)
    connect(address)
    if progress is not None:
        progress(0, n_shoes)
    results = map_shards(_study_shard, parts, (seed, table, closing), progress=progress)
    return summarize_study(results, seed, table, closing)
