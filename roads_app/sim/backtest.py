"""Backtests: what a betting strategy really does over many shoes, measured honestly.

Two engines give the same per-shoe rows (a test holds them to it):

* the **fast** engine (`roads_app.sim.kernel`): Numba, all cores, simulated shoes only;
* the **plain** engine: `shoe.deal_shoe` (or a saved shoe), `settlement.settle` for what
  one unit on each bet nets, `roads.derived_marks_before_each_round` for the ask roads,
  and the strategy objects' own Python methods stepped hand by hand. It is the
  reference, and the only engine for saved shoes (which may lack cards).

The statistics of a run are `roads_app.sim.measures`' and the command line's progress
bar `roads_app.sim.progress`'s; their names are found here too, where callers have long
found them.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from roads_app.bets.tables import Limits, Table
from roads_app.errors import StrategyError, whole_number
from roads_app.game.hand import Winner
from roads_app.game.shoe import check_seed, deal_shoe, most_hands
from roads_app.messages import Message
from roads_app.sim import cluster, kernel, report, session
from roads_app.sim.measures import (
    STOP,
    STOPS,
    SUMS,
    Columns,
    Finding,
    Run,
    Say,
    Summary,
    Totals,
    Verdict,
    bands,
    exact_evs,
    judge,
    pct,
    ratio_ci,
    ratio_ci_of,
    summarize,
    totals_of,
    totals_of_columns,
)
from roads_app.sim.progress import COMPILING, PROGRESS_FROM, Progress, ProgressBar, progress_bar
from roads_app.sim.strategies import Resolved, Settings, Strategy, resolve, slots

MAX_SHOES = 10_000_000
"""Most shoes one backtest may run on this machine (about 810 million hands)."""

MAX_CLUSTER_SHOES = 10**12
"""Most shoes one backtest may run on a cluster (only per-shard totals come back)."""

SHARD_SHOES = cluster.SHARD_SHOES

PLAIN_SHOES_LIMIT = 5_000
"""The plain engine is a reference at roughly 100 shoes a second; beyond this use fast."""

__all__ = [  # the statistics' and the progress bar's names, found here by callers
    "COMPILING",
    "PROGRESS_FROM",
    "STOP",
    "STOPS",
    "SUMS",
    "Finding",
    "Progress",
    "ProgressBar",
    "Run",
    "Say",
    "Summary",
    "Totals",
    "Verdict",
    "bands",
    "exact_evs",
    "judge",
    "pct",
    "progress_bar",
    "ratio_ci",
    "ratio_ci_of",
    "summarize",
    "totals_of",
]


# --- running ---------------------------------------------------------------------------


def _per_shoe(
    shoe: Sequence[Any],
    ints: np.ndarray,
    floats: np.ndarray,
    slot_w: np.ndarray,
    slot_n: np.ndarray,
    names: tuple[str, ...],
    bankroll: float,
) -> pl.DataFrame:
    cols: dict[str, Any] = {
        "shoe": shoe,
        "hands": pl.Series(ints[:, 0], dtype=pl.Int32),
        "bets": pl.Series(ints[:, 1], dtype=pl.Int32),
        "stop": pl.Series(STOPS, dtype=STOP).gather(ints[:, 2]),
        "stop_hand": pl.Series(ints[:, 3], dtype=pl.Int32),
        "wagered": floats[:, 0],
        "net": floats[:, 1] - bankroll,
        "final": floats[:, 1],
        "low": floats[:, 2],
    }
    for i, b in enumerate(names):
        cols[f"wagered_{b}"] = slot_w[:, i]
        cols[f"net_{b}"] = slot_n[:, i]
    return pl.DataFrame(cols)


def run_fast(
    strategy: Strategy,
    resolved: Resolved,
    table: Table,
    *,
    seed: int,
    shoes: int,
    n_paths: int = 1000,
    rows: bool = True,
    progress: Progress | None = None,
    chunk: int = 16384,
) -> Run:
    """Shoes ``0 .. shoes-1`` of run ``seed`` through the compiled engine (``rows=False``:
    totals and paths only, no per-shoe rows)."""
    _check_shoes(shoes)
    return run_shard(
        strategy,
        resolved,
        table,
        seed=seed,
        first=0,
        shoes=shoes,
        n_paths=n_paths,
        rows=rows,
        progress=progress,
        chunk=chunk,
    )


def run_shard(
    strategy: Strategy,
    resolved: Resolved,
    table: Table,
    *,
    seed: int,
    first: int,
    shoes: int,
    n_paths: int = 1000,
    rows: bool = True,
    progress: Progress | None = None,
    chunk: int = 16384,
) -> Run:
    """Shoes ``first .. first+shoes-1`` of run ``seed`` through the compiled engine.

    A shoe's row does not depend on which shard dealt it; paths are kept for the shoes
    numbered below ``n_paths``; ``rows=False`` drops the per-shoe rows once totalled
    (a cluster task returns only what the driver merges).
    """
    plan = kernel.make_plan(strategy, resolved, table)
    keep = max(0, min(n_paths - first, shoes))
    r = kernel.run_fast(
        plan,
        check_seed(seed),
        shoes,
        first_shoe=first,
        n_paths=keep,
        progress=progress,
        chunk=chunk,
    )
    ints, floats = r.ints, r.floats  # the kernel's own arrays, not stacked again
    if not rows:  # totalled from the kernel's arrays: no frame made only to be dropped
        columns = Columns(
            hands=ints[:, 0],
            bets=ints[:, 1],
            stop=ints[:, 2],
            wagered=floats[:, 0],
            net=floats[:, 1] - resolved.bankroll,  # as `_per_shoe` writes it
            final=floats[:, 1],
            slots=[(r.slot_wagered[:, i], r.slot_net[:, i]) for i in range(len(plan.slots))],
        )
        return Run(None, r.paths, plan.slots, totals_of_columns(columns, plan.slots))
    numbers = pl.Int32 if first + shoes < 2**31 else pl.Int64  # a cluster run may go beyond
    frame = _per_shoe(
        pl.int_range(first + 1, first + shoes + 1, dtype=numbers, eager=True),
        ints,
        floats,
        r.slot_wagered,
        r.slot_net,
        plan.slots,
        resolved.bankroll,
    )
    return Run(frame, r.paths, plan.slots, totals_of(frame, plan.slots))


def join_shards(parts: Sequence[Run], n_paths: int, width: int) -> Run:
    """Shards' runs, given in shoe order, as one run: totals added (exactly, so in any
    grouping), rows and sampled paths concatenated."""
    if not parts:
        raise StrategyError(Message("msg_no_shards"))
    totals = parts[0].totals
    for p in parts[1:]:
        totals = totals + p.totals
    frames = [p.per_shoe for p in parts]
    per_shoe = pl.concat(frames) if all(f is not None for f in frames) else None  # type: ignore[misc]
    paths = np.concatenate([p.paths for p in parts], axis=0)[:n_paths]
    if paths.size == 0:
        paths = np.zeros((0, width))
    return Run(per_shoe, paths, parts[0].slots, totals)


def _check_shoes(shoes: object, most: int = MAX_SHOES) -> int:
    return whole_number(shoes, Message("msg_what_bt_shoes"), 1, most, error=StrategyError)


def _cluster_shard(
    first: int,
    count: int,
    strategy: Strategy,
    resolved: Resolved,
    table: Table,
    seed: int,
    n_paths: int,
    rows: bool,
) -> Run:
    """One Ray task's work: `run_shard`, rows kept only when asked for."""
    return run_shard(
        strategy,
        resolved,
        table,
        seed=seed,
        first=first,
        shoes=count,
        n_paths=n_paths,
        rows=rows,
        chunk=65536,
    )


def run_cluster(
    strategy: Strategy,
    resolved: Resolved,
    table: Table,
    *,
    seed: int,
    shoes: int,
    address: str,
    shard_shoes: int = SHARD_SHOES,
    n_paths: int = 1000,
    rows: bool = False,
    progress: Progress | None = None,
    task_cpus: int = 1,
) -> Run:
    """Shoes ``0 .. shoes-1`` of run ``seed``, one Ray task per shard of ``shard_shoes``.

    Identical totals (and, with ``rows``, rows and paths) to `run_fast` with the same
    seed and shoes, whatever the shard size or the number of workers (see `Totals`).
    Each task reserves ``task_cpus`` CPUs and runs the engine on that many threads.
    """
    _check_shoes(shoes, MAX_SHOES if rows else MAX_CLUSTER_SHOES)
    check_seed(seed)
    parts = cluster.shards(shoes, shard_shoes)
    cluster.connect(address)
    runs = cluster.map_shards(
        _cluster_shard,
        parts,
        (strategy, resolved, table, seed, n_paths, rows),
        progress=progress,
        threads=task_cpus,
    )
    return join_shards(runs, n_paths, most_hands(table.shoe.cards))


def unit_nets(
    rounds: pl.DataFrame, bets: Sequence[str], table: Table
) -> tuple[np.ndarray, np.ndarray]:
    """What one unit on each bet nets in each round, via `settlement.settle`.

    Returns (net[round, bet], settled[round, bet]); ``settled`` is False where the round
    lacks the data to decide the bet (a shoe entered by winner only). Limits and closing
    rounds are left to the caller: here every bet is settled as if open.
    """
    from roads_app.bets.settlement import settle

    open_table = dataclasses.replace(
        table,
        limits=Limits(0.0, math.inf),
        bets={b: dataclasses.replace(v, closes_after=None) for b, v in table.bets.items()},
    )
    n = rounds.height
    frame = pl.DataFrame(
        {
            "round": np.repeat(rounds["round"].to_numpy(), len(bets)),
            "bet": list(bets) * n,
            "stake": 1.0,
        },
        schema={"round": pl.Int32, "bet": pl.String, "stake": pl.Float64},
    )
    out = settle(rounds, frame, open_table)
    net = out["net"].to_numpy().reshape(n, len(bets))
    settled = (out["outcome"] != "refused").to_numpy().reshape(n, len(bets))
    return net, settled


def play_shoe(
    rounds: pl.DataFrame, strategy: Strategy, resolved: Resolved, table: Table
) -> tuple[tuple[list[int], list[float], list[float], list[float]], list[float], int]:
    """The plain engine on one shoe's rounds: ((ints, floats, slot wagered, slot net), path,
    unsettled). What one unit on each bet nets in each round comes from
    `settlement.settle` (NaN where the round lacks the data to settle it), each round its
    own play cell; the betting session that runs over them is the kernel's
    (`session.step`, through `session.play`)."""
    names = slots(strategy, resolved)
    n = rounds.height
    if not rounds["round"].equals(pl.Series("round", range(1, n + 1)), check_dtypes=False):
        raise ValueError("play_shoe: a rounds frame is numbered 1..n (a bug in its maker)")
    net_unit, settled = unit_nets(rounds, names, table)
    plan = kernel.make_plan(strategy, resolved, table)
    net_play = np.full((kernel.N_BETS, max(n, 1)), np.nan)
    for i, b in enumerate(names):
        net_play[kernel.BET_INDEX[b], :n] = np.where(settled[:, i], net_unit[:, i], np.nan)
    nets = session.Nets(
        net_play,
        np.zeros((kernel.N_BETS, 1)),
        np.zeros(kernel.N_BETS, dtype=np.bool_),
        plan.slot_of,
    )
    winners = rounds["winner"].cast(pl.String).to_list()
    hands = session.Hands(
        np.array([Winner(w).code for w in winners], dtype=np.int64),
        np.arange(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
    )
    slot_books = np.zeros((len(names), 2))
    path = np.zeros(n)
    w = session.play(
        plan.record, plan.patterns, nets, hands, np.zeros(n + 1, dtype=np.int64), slot_books, path
    )
    ints = [n, w.bets, w.stop, w.stop_hand]
    floats = [w.wagered, w.bankroll, w.low]
    return (
        (ints, floats, slot_books[:, 0].tolist(), slot_books[:, 1].tolist()),
        path.tolist(),
        w.unsettled,
    )


def _collect(
    shoe_keys: Sequence[Any],
    results: list[tuple[tuple[list[int], list[float], list[float], list[float]], list[float], int]],
    names: tuple[str, ...],
    bankroll: float,
    width: int,
    n_paths: int,
) -> Run:
    k = len(results)
    ints = np.array([x[0][0] for x in results], dtype=np.int64).reshape(k, 4)
    floats = np.array([x[0][1] for x in results], dtype=np.float64).reshape(k, 3)
    sw = np.array([x[0][2] for x in results], dtype=np.float64).reshape(k, len(names))
    sn = np.array([x[0][3] for x in results], dtype=np.float64).reshape(k, len(names))
    n_paths = min(n_paths, k)
    paths = np.zeros((n_paths, width))
    for i in range(n_paths):
        p = results[i][1][:width]
        paths[i, : len(p)] = p
        paths[i, len(p) :] = p[-1] if p else bankroll
    frame = _per_shoe(shoe_keys, ints, floats, sw, sn, names, bankroll)
    unsettled = sum(x[2] for x in results)
    return Run(frame, paths, names, totals_of(frame, names, unsettled), unsettled)


def run_plain(
    strategy: Strategy,
    resolved: Resolved,
    table: Table,
    *,
    seed: int,
    shoes: int,
    n_paths: int = 1000,
    progress: Progress | None = None,
) -> Run:
    """Shoes ``0 .. shoes-1`` of run ``seed`` through the plain (reference) engine."""
    _check_shoes(shoes)
    check_seed(seed)
    if shoes > PLAIN_SHOES_LIMIT:
        raise StrategyError(
            Message("msg_plain_engine_limit", most=f"{PLAIN_SHOES_LIMIT:,}", shoes=f"{shoes:,}")
        )
    results = []
    for k in range(shoes):
        results.append(play_shoe(deal_shoe(seed, table.shoe, k).rounds, strategy, resolved, table))
        if progress is not None and ((k + 1) % 50 == 0 or k + 1 == shoes):
            progress(k + 1, shoes)
    return _collect(
        pl.Series("shoe", range(1, shoes + 1), dtype=pl.Int32),
        results,
        slots(strategy, resolved),
        resolved.bankroll,
        most_hands(table.shoe.cards),
        n_paths,
    )


@dataclass(frozen=True)
class Saved:
    """Saved shoes to backtest, loaded by the caller (`store.library.saved_rounds`): the
    engine never opens the store."""

    ids: Sequence[str]
    rounds: Iterable[pl.DataFrame]  # one rounds frame per id, in order, read as run
    where: str  # where they are kept, for the report's source line


def run_saved(
    strategy: Strategy,
    resolved: Resolved,
    table: Table,
    saved: Saved,
    *,
    n_paths: int = 1000,
    progress: Progress | None = None,
) -> Run:
    """The ``saved`` shoes through the plain engine.

    Bets a shoe lacks the data for (cards, totals) are not placed and are counted in
    ``unsettled``.
    """
    ids = list(saved.ids)
    if not ids:
        raise StrategyError(Message("msg_no_saved_to_backtest", where=saved.where))
    results = []
    for k, rounds in enumerate(saved.rounds):
        results.append(play_shoe(rounds, strategy, resolved, table))
        if progress is not None:
            progress(k + 1, len(ids))
    return _collect(
        pl.Series("shoe", ids, dtype=pl.String),
        results,
        slots(strategy, resolved),
        resolved.bankroll,
        most_hands(table.shoe.cards),
        n_paths,
    )


# --- one call for the CLI and the dashboard ----------------------------------------------


@dataclass(frozen=True)
class Backtest:
    """A finished backtest: what was run, its rows, and the summary."""

    strategy: Strategy
    resolved: Resolved
    table: Table
    source: str  # where the shoes came from, in words (`report.simulated_source`, ...)
    engine: str
    run: Run
    summary: Summary
    seconds: float

    def to_dict(self, say: Say) -> dict[str, Any]:
        """The ``--json`` document, the verdict in the words ``say`` gives."""
        s = self.summary
        return {
            "strategy": self.strategy.label,
            "rules": self.table.name,
            "source": self.source,
            "engine": self.engine,
            "bankroll": self.resolved.bankroll,
            "unit": self.resolved.unit,
            **s.to_dict(say),
            "seconds": round(self.seconds, 3),
            "hands_per_second": round(s.hands / self.seconds) if self.seconds > 0 else None,
        }


@dataclass(frozen=True)
class Betting:
    """What a backtest bets and where: the ``strategy``, the money it plays with
    (``settings``: bankroll, unit, limits, stops, side bets) and the ``table``'s rules."""

    strategy: Strategy
    settings: Settings
    table: Table


@dataclass(frozen=True)
class Simulated:
    """Simulated shoes to backtest: shoes ``0 .. shoes-1`` of run ``seed``."""

    seed: int
    shoes: int


@dataclass(frozen=True)
class RunOptions:
    """How a backtest runs, not what it finds (a run's summary is the same whatever these
    are, but for ``n_paths``, the paths it samples).

    ``engine``: ``"fast"`` (Numba) or ``"plain"`` (the reference; saved shoes always run
    on it); ``n_paths``: the bankroll paths kept for the chart; ``chunk``: shoes per
    block the fast engine deals. With ``cluster`` (``"auto"`` or a Ray head's
    ``HOST:PORT``) the fast engine runs as Ray tasks of ``shard_shoes`` shoes, and
    ``rows=False`` keeps no per-shoe rows there (what a billion-shoe run needs) and in
    the fast engine here (what a caller that reads only the summary needs).
    """

    engine: str = "fast"
    n_paths: int = 1000
    chunk: int = 16384
    cluster: str | None = None
    shard_shoes: int = SHARD_SHOES
    rows: bool = True


def backtest(
    betting: Betting,
    shoes: Simulated | Saved,
    options: RunOptions = RunOptions(),
    *,
    progress: Progress | None = None,
) -> Backtest:
    """Run a strategy over N simulated shoes from a seed, or over the ``Saved`` shoes the
    caller loaded; settings are checked first (`StrategyError` / `BetError`).

    On a cluster (`RunOptions`) the summary is the single-machine one to the last bit.
    ``progress(0, total)`` is called before any work, so a caller can say what the wait
    is for (`kernel.needs_compile`).
    """
    strategy, table, engine = betting.strategy, betting.table, options.engine
    resolved = resolve(betting.settings, strategy, table)
    start = time.perf_counter()
    if options.cluster is not None:
        if not isinstance(shoes, Simulated) or engine != "fast":
            raise StrategyError(Message("msg_cluster_fast_only", flag="--cluster"))
        if progress is not None:
            progress(0, shoes.shoes)
        run = run_cluster(
            strategy,
            resolved,
            table,
            seed=shoes.seed,
            shoes=shoes.shoes,
            address=options.cluster,
            shard_shoes=options.shard_shoes,
            n_paths=options.n_paths,
            rows=options.rows,
            progress=progress,
        )
        source = report.simulated_source(shoes.seed, shoes.shoes)
    elif isinstance(shoes, Saved):
        run = run_saved(
            strategy, resolved, table, shoes, n_paths=options.n_paths, progress=progress
        )
        source, engine = report.saved_source(run.per_shoe.height, shoes.where), "plain"
    else:
        if engine not in ("fast", "plain"):
            raise StrategyError(
                Message("msg_unknown_engine", engine=repr(engine), fast="fast", plain="plain")
            )
        if progress is not None:
            progress(0, shoes.shoes)
        if engine == "fast":
            run = run_fast(
                strategy,
                resolved,
                table,
                seed=shoes.seed,
                shoes=shoes.shoes,
                n_paths=options.n_paths,
                rows=options.rows,
                progress=progress,
                chunk=options.chunk,
            )
        else:
            run = run_plain(
                strategy,
                resolved,
                table,
                seed=shoes.seed,
                shoes=shoes.shoes,
                n_paths=options.n_paths,
                progress=progress,
            )
        source = report.simulated_source(shoes.seed, shoes.shoes)
    seconds = time.perf_counter() - start
    return Backtest(
        strategy,
        resolved,
        table,
        source,
        engine,
        run,
        summarize(run, table, resolved.bankroll),
        seconds,
    )


# --- threads for the CLI ----------------------------------------------------------------


def check_threads(n: object) -> int:
    """A thread count from 1 to the machine's cores, else `StrategyError`."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    what = Message("msg_what_threads", flag="--threads")
    return whole_number(n, what, 1, most, error=StrategyError)
