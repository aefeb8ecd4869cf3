"""What each good road is worth, measured: the study behind ``good-roads --study``.

The shoes are the engine's (`roads_app.sim.bulk`, the compiled dealer: shoe k of seed S
is the backtest's shoe k), the bets are settled from the engine's per-cell net tables
(`roads_app.sim.kernel.make_plan`, generated from the bet spec), and the patterns are
matched by `roads_app.roads.good_roads.holds`, compiled in. One parallel kernel walks
each shoe hand by hand and, for every pattern, counts the rounds after which it holds,
its longest run of rounds, the next result, and one unit flat-bet on what it invites
(continue: the current column's side; switch: the other) each time it holds before a
hand. The first ``priced_shoes`` shoes also have every hand priced exactly from the
cards not yet seen (`roads_app.sim.study`), averaged over the hands that follow a hold.

Shoes are the independent units of every interval (ratio estimator, as the backtest),
and every total is exact (`roads_app.sim.exact`), so a run cut into ranges or Ray tasks
gives the one-piece run's figures to the last bit (`Part.__add__`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from roads_app.bets.tables import Table
from roads_app.errors import StrategyError
from roads_app.game.shoe import POINTS_BY_CARD, check_seed
from roads_app.roads import good_roads
from roads_app.roads.good_roads import Catalogue, add_result, holds
from roads_app.sim import bulk, kernel
from roads_app.sim.cache import depends_on
from roads_app.sim.exact import exact_sums, to_fraction, two_product

depends_on(__file__, good_roads)

Progress = Callable[[int, int], None]

BATCH = 8192
"""Shoes dealt and studied at a time (memory of one batch of cards)."""

PRICED_SHOES = 2000
"""Shoes priced exactly by default (the exact odds cost ~2,500 times a dealt hand)."""

RESULTS = ("B", "P", "T")
_SCALE = 1 << 1074  # an int count as an exact sum (units of 2**-1074)


@njit(cache=True, parallel=True, nogil=True)
def _study_kernel(
    cards: np.ndarray,  # int8 [hands, 6]
    offsets: np.ndarray,  # int64 [shoes + 1]
    pts: np.ndarray,  # int64 [52]
    net_b: np.ndarray,  # float64 [N_PLAY]: one unit on banker, per play cell
    net_p: np.ndarray,  # float64 [N_PLAY]: one unit on player
    arrays: tuple,
    probs: np.ndarray,  # float64 [hands, 3] B/P/T exact, or [0, 3] (none priced)
    priced_upto: int,  # shoes of this batch with probs
    held: np.ndarray,  # int64 [shoes, P]: rounds after which it holds
    longest: np.ndarray,  # int64 [shoes, P]
    nxt: np.ndarray,  # int64 [shoes, P, 3]: next result after a hold
    bets: np.ndarray,  # int64 [shoes, P, 2]: bets on banker, on player
    net: np.ndarray,  # float64 [shoes, P]
    exact: np.ndarray,  # float64 [shoes, P, 3]: exact B/P/T summed over priced holds
) -> None:
    c_side, c_len, c_min, p_first, p_count, p_invite = arrays
    n_pat = p_first.shape[0]
    for s in prange(offsets.shape[0] - 1):
        lo = offsets[s]
        hi = offsets[s + 1]
        lengths = np.zeros(hi - lo + 1, dtype=np.int64)
        run = np.zeros(n_pat, dtype=np.int64)
        bet = np.full(n_pat, -1, dtype=np.int64)  # side each pattern invites for this hand
        n_cols = 0
        side = -1
        for h in range(lo, hi):
            p0, p1, p2 = cards[h, 0], cards[h, 1], cards[h, 2]
            b0, b1, b2 = cards[h, 3], cards[h, 4], cards[h, 5]
            pp = pts[p0] + pts[p1]
            if p2 >= 0:
                pp += pts[p2]
            bp = pts[b0] + pts[b1]
            if b2 >= 0:
                bp += pts[b2]
            pp %= 10
            bp %= 10
            w = 0 if bp > pp else (1 if pp > bp else 2)
            play = ((pp * 10 + bp) * 2 + (p2 >= 0)) * 2 + (b2 >= 0)
            # --- settle what the patterns that held before this hand invited
            for p in range(n_pat):
                if bet[p] >= 0:
                    nxt[s, p, w] += 1
                    bets[s, p, bet[p]] += 1
                    net[s, p] += net_b[play] if bet[p] == 0 else net_p[play]
                    if s < priced_upto:
                        for r in range(3):
                            exact[s, p, r] += probs[h, r]
            # --- the road after it, and what holds now
            n_cols, side = add_result(lengths, n_cols, side, w)
            for p in range(n_pat):
                if holds(lengths, n_cols, side, c_side, c_len, c_min, p_first[p], p_count[p]):
                    held[s, p] += 1
                    run[p] += 1
                    if run[p] > longest[s, p]:
                        longest[s, p] = run[p]
                    bet[p] = side if p_invite[p] == 0 else 1 - side
                else:
                    run[p] = 0
                    bet[p] = -1


@dataclass(frozen=True)
class Part:
    """Exact totals of some shoes (any range; parts of a split add up to the whole).

    Ints are counts; ``sums`` are exact sums (ints in units of 2**-1074) per pattern.
    """

    keys: tuple[str, ...]
    shoes: int
    rounds: int
    priced_shoes: int
    held: tuple[int, ...]
    shoes_with: tuple[int, ...]
    longest: tuple[int, ...]
    counts: dict[str, tuple[int, ...]]  # next_B/P/T, bets_banker/player, moments of them
    sums: dict[str, tuple[int, ...]]  # net, net_net, net_wagered, exact_B/P/T

    def __add__(self, other: Part) -> Part:
        if self.keys != other.keys:
            raise ValueError("parts of different catalogues cannot be added")

        def add(a: dict[str, tuple[int, ...]], b: dict[str, tuple[int, ...]]) -> dict:
            return {k: tuple(x + y for x, y in zip(v, b[k], strict=True)) for k, v in a.items()}

        return Part(
            self.keys,
            self.shoes + other.shoes,
            self.rounds + other.rounds,
            self.priced_shoes + other.priced_shoes,
            tuple(a + b for a, b in zip(self.held, other.held, strict=True)),
            tuple(a + b for a, b in zip(self.shoes_with, other.shoes_with, strict=True)),
            tuple(max(a, b) for a, b in zip(self.longest, other.longest, strict=True)),
            add(self.counts, other.counts),
            add(self.sums, other.sums),
        )


@njit(cache=True, nogil=True)
def _to_results(full: np.ndarray, which: np.ndarray) -> np.ndarray:
    """[hands, 3] B/P/T probabilities from the events', each summed in event order."""
    out = np.zeros((full.shape[0], 3))
    for h in range(full.shape[0]):
        for e in range(full.shape[1]):
            r = which[e]
            if r >= 0:
                out[h, r] += full[h, e]
    return out


def _probability_matrix() -> np.ndarray:
    """Per exact-odds event: 0, 1, 2 where it is a Banker, Player, Tie result (-1 not one)."""
    from roads_app.bets.odds import N_EVENTS
    from roads_app.bets.spec import PLAY_CELLS

    which = np.full(N_EVENTS, -1, dtype=np.int64)
    for i, c in enumerate(PLAY_CELLS):
        which[i] = RESULTS.index(c.winner)
    return which


def _nets(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """One unit on banker / player, per play cell: the engine's tables from the bet spec."""
    from roads_app.sim.strategies import Resolved, make_strategy

    r = Resolved(1.0, 1.0, 0.0, math.inf, -math.inf, math.inf, ())
    plan = kernel.make_plan(make_strategy("flat", bet="banker"), r, table)
    return plan.net_play[kernel.BANKER].copy(), plan.net_play[kernel.PLAYER].copy()


def _columns_part(
    keys: tuple[str, ...], rounds: int, priced: int, h: np.ndarray, lg: np.ndarray,
    nxt: np.ndarray, bets: np.ndarray, net: np.ndarray, ex: np.ndarray,
) -> Part:  # fmt: skip
    shoes = h.shape[0]
    counts: dict[str, tuple[int, ...]] = {}
    n_next = nxt.sum(axis=2)  # holds followed by a hand = bets
    for r, name in enumerate(RESULTS):
        x = nxt[:, :, r]
        counts[f"next_{name}"] = tuple(int(v) for v in x.sum(axis=0))
        counts[f"next_{name}_sq"] = tuple(int(v) for v in (x * x).sum(axis=0))
        counts[f"next_{name}_n"] = tuple(int(v) for v in (x * n_next).sum(axis=0))
    counts["next_n_sq"] = tuple(int(v) for v in (n_next * n_next).sum(axis=0))
    counts["bets_banker"] = tuple(int(v) for v in bets[:, :, 0].sum(axis=0))
    counts["bets_player"] = tuple(int(v) for v in bets[:, :, 1].sum(axis=0))
    wag = n_next.astype(np.float64)
    cols = [net]
    for a, b in ((net, net), (net, wag)):
        cols.extend(two_product(a, b))
    cols.extend(ex[:, :, r] for r in range(3))
    n_pat = len(keys)
    if shoes:
        flat = np.concatenate([c.reshape(shoes, n_pat) for c in cols], axis=1)
        exact = exact_sums(flat)
    else:
        exact = [0] * (len(cols) * n_pat)
    block = [tuple(exact[i * n_pat : (i + 1) * n_pat]) for i in range(len(cols))]
    sums = {
        "net": block[0],
        "net_net": tuple(a + b for a, b in zip(block[1], block[2], strict=True)),
        "net_wagered": tuple(a + b for a, b in zip(block[3], block[4], strict=True)),
        "exact_B": block[5],
        "exact_P": block[6],
        "exact_T": block[7],
    }
    return Part(
        keys, shoes, rounds, priced,
        tuple(int(v) for v in h.sum(axis=0)),
        tuple(int(v) for v in (h > 0).sum(axis=0)),
        tuple(int(v) for v in (lg.max(axis=0) if shoes else np.zeros(n_pat, dtype=np.int64))),
        counts, sums,
    )  # fmt: skip


def study_range(
    catalogue: Catalogue, table: Table, seed: int, first: int, count: int, priced_shoes: int
) -> Part:
    """Shoes ``first .. first+count-1`` of run ``seed``, in batches; the same `Part`
    whatever the range's cut."""
    arrays = catalogue.arrays().as_tuple()
    keys = catalogue.keys
    net_b, net_p = _nets(table)
    to_bpt = _probability_matrix()
    total: Part | None = None
    for start in range(first, first + count, BATCH):
        n = min(BATCH, first + count - start)
        batch = bulk.deal_batch(check_seed(seed), table.shoe, start, n)
        offsets = batch.offsets
        priced = max(0, min(n, priced_shoes - start))
        if priced:
            from roads_app.bets.odds import _PARALLEL_LOCK, N_EVENTS
            from roads_app.sim.study import _hand_probabilities

            rows = int(offsets[priced])
            full = np.empty((rows, N_EVENTS))
            with _PARALLEL_LOCK:
                _hand_probabilities(
                    batch.cards[:rows], offsets[: priced + 1], batch.burn_card[:priced],
                    table.shoe.decks, full,
                )  # fmt: skip
            probs = _to_results(full, to_bpt)  # not a BLAS product: its sums vary by shape
        else:
            probs = np.zeros((0, 3))
        p = len(keys)
        held = np.zeros((n, p), dtype=np.int64)
        longest = np.zeros((n, p), dtype=np.int64)
        nxt = np.zeros((n, p, 3), dtype=np.int64)
        bets = np.zeros((n, p, 2), dtype=np.int64)
        net = np.zeros((n, p))
        ex = np.zeros((n, p, 3))
        with kernel._KERNEL_LOCK:
            _study_kernel(
                batch.cards, offsets, POINTS_BY_CARD, net_b, net_p, arrays, probs, priced,
                held, longest, nxt, bets, net, ex,
            )  # fmt: skip
        part = _columns_part(keys, int(offsets[-1]), priced, held, longest, nxt, bets, net, ex)
        total = part if total is None else total + part
    if total is None:
        raise StrategyError("a study range needs at least one shoe")
    return total


# --- the figures ----------------------------------------------------------------------------


def _ratio_ci(
    n: int, x: Any, w: Any, xx: Any, xw: Any, ww: Any, level: float
) -> tuple[float, float] | None:
    """The backtest's ratio estimator (`backtest.ratio_ci_of`) on exact totals."""
    from roads_app.sim.backtest import Totals, ratio_ci_of

    t = Totals(n, 0, 0, 0, (n, 0, 0, 0), {
        "wagered": w, "net": x, "final": 0, "net_net": xx, "net_wagered": xw,
        "wagered_wagered": ww,
    })  # fmt: skip
    return ratio_ci_of(t, level)


@dataclass(frozen=True)
class PatternFigures:
    key: str
    share_of_rounds: float
    share_of_shoes: float
    longest_run: int
    next_counts: dict[str, int]
    next_share: dict[str, float | None]
    next_ci: dict[str, tuple[float, float] | None]
    exact_next: dict[str, float | None]
    bets: int
    bets_banker: int
    bets_player: int
    ev: float | None
    ci: tuple[float, float] | None
    edge: float | None  # exact EV per unit of the bets it invited, weighted by count

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "share_of_rounds": self.share_of_rounds,
            "share_of_shoes": self.share_of_shoes,
            "longest_run": self.longest_run,
            "next": {
                r: {"count": self.next_counts[r], "share": self.next_share[r],
                    "ci": list(c) if (c := self.next_ci[r]) else None,
                    "exact": self.exact_next[r]}
                for r in RESULTS
            },
            "bets": self.bets,
            "bets_banker": self.bets_banker,
            "bets_player": self.bets_player,
            "ev": self.ev,
            "ci": list(self.ci) if self.ci else None,
            "exact_ev": self.edge,
        }


def figures(part: Part, table: Table, level: float = 0.95) -> list[PatternFigures]:
    """Per pattern: the shares, the next result, and the EV with its interval at ``level``."""
    from roads_app.sim.backtest import exact_evs

    edges = exact_evs(table)
    out = []
    n = part.shoes
    for i, key in enumerate(part.keys):
        c = {k: v[i] for k, v in part.counts.items()}
        s = {k: v[i] for k, v in part.sums.items()}
        bets = c["bets_banker"] + c["bets_player"]
        nn = c["next_n_sq"] * _SCALE
        share, ci, ex = {}, {}, {}
        for r in RESULTS:
            x = c[f"next_{r}"]
            share[r] = x / bets if bets else None
            ci[r] = _ratio_ci(n, x * _SCALE, bets * _SCALE, c[f"next_{r}_sq"] * _SCALE,
                              c[f"next_{r}_n"] * _SCALE, nn, level) if bets else None  # fmt: skip
            ex[r] = None
        if part.priced_shoes:
            total_p = sum(to_fraction(s[f"exact_{r}"]) for r in RESULTS)
            if total_p > 0:
                for r in RESULTS:
                    ex[r] = float(to_fraction(s[f"exact_{r}"]) / total_p)
        ev = float(to_fraction(s["net"]) / bets) if bets else None
        ev_ci = (
            _ratio_ci(n, s["net"], bets * _SCALE, s["net_net"], s["net_wagered"], nn, level)
            if bets
            else None
        )
        edge = (
            (c["bets_banker"] * edges["banker"] + c["bets_player"] * edges["player"]) / bets
            if bets
            else None
        )
        out.append(
            PatternFigures(
                key, part.held[i] / part.rounds if part.rounds else 0.0,
                part.shoes_with[i] / n if n else 0.0, part.longest[i],
                {r: c[f"next_{r}"] for r in RESULTS}, share, ci, ex, bets,
                c["bets_banker"], c["bets_player"], ev, ev_ci, edge,
            )
        )
    return out


def verdict(f: PatternFigures, lang: str = "en") -> str:
    """One line in plain words: does flat-betting what it invites beat the table's edge?"""
    from roads_app.render.i18n import word

    if f.ev is None or f.ci is None or f.edge is None:
        return word("good_verdict_rare", lang, bets=f"{f.bets:,}")
    lo, hi = f.ci
    fields = {"ev": f"{f.ev * 100:+.2f}%", "lo": f"{lo * 100:+.2f}%", "hi": f"{hi * 100:+.2f}%",
              "edge": f"{f.edge * 100:+.2f}%", "bets": f"{f.bets:,}"}  # fmt: skip
    if lo <= f.edge <= hi:
        return word("good_verdict_no_memory", lang, **fields)
    return word("good_verdict_differs", lang, **fields)


@dataclass(frozen=True)
class Study:
    catalogue: Catalogue
    table: Table
    seed: int
    part: Part
    patterns: list[PatternFigures]

    def to_dict(self) -> dict[str, Any]:
        from roads_app.sim.backtest import exact_evs

        edges = exact_evs(self.table)
        return {
            "shoes": self.part.shoes,
            "rounds": self.part.rounds,
            "seed": self.seed,
            "rules": self.table.name,
            "catalogue": self.catalogue.where,
            "priced_shoes": self.part.priced_shoes,
            "edges": {b: edges[b] for b in ("banker", "player")},
            "patterns": [
                {**f.to_dict(), "verdict": verdict(f)} for f in self.patterns
            ],
        }

    def text(self, lang: str = "en") -> str:
        p = self.part
        lines = [
            f"{p.shoes:,} shoes ({p.rounds:,} rounds), seed {self.seed}, table "
            f"{self.table.title}, good roads by {self.catalogue.where}; next-result exact "
            f"odds averaged over the first {p.priced_shoes:,} shoes",
            f"{'pattern':<24}{'rounds':>8}{'shoes':>8}{'run':>5}{'next B':>8}{'exact':>8}"
            f"{'next P':>8}{'exact':>8}{'bets':>11}{'EV':>9}  95% interval",
        ]
        for f in self.patterns:
            def pc(x: float | None) -> str:
                return "-" if x is None else f"{x * 100:.2f}%"

            ci = "-" if f.ci is None else f"{f.ci[0] * 100:+.2f}% to {f.ci[1] * 100:+.2f}%"
            lines.append(
                f"{f.key:<24}{pc(f.share_of_rounds):>8}{pc(f.share_of_shoes):>8}"
                f"{f.longest_run:>5}{pc(f.next_share['B']):>8}{pc(f.exact_next['B']):>8}"
                f"{pc(f.next_share['P']):>8}{pc(f.exact_next['P']):>8}{f.bets:>11,}"
                f"{'-' if f.ev is None else f'{f.ev * 100:+.2f}%':>9}  {ci}"
            )
        lines.append("")
        lines += [f"{f.key}: {verdict(f, lang)}" for f in self.patterns]
        return "\n".join(lines)


def _shard(
    first: int, count: int, catalogue: Catalogue, table: Table, seed: int, priced: int
) -> Part:
    return study_range(catalogue, table, seed, first, count, priced)


def study(
    catalogue: Catalogue,
    table: Table,
    *,
    seed: int,
    shoes: int,
    priced_shoes: int | None = None,
    cluster: str | None = None,
    shard_shoes: int = 50_000,
    progress: Progress | None = None,
    level: float = 0.95,
) -> Study:
    """The study of ``shoes`` shoes of run ``seed`` (on a Ray cluster with ``cluster``:
    the same figures to the last bit)."""
    from roads_app.sim import cluster as ray_cluster
    from roads_app.sim.backtest import _check_shoes

    _check_shoes(shoes)
    check_seed(seed)
    if not catalogue.keys:
        raise StrategyError(f"{catalogue.where}: every pattern is switched off")
    priced = min(shoes, PRICED_SHOES if priced_shoes is None else priced_shoes)
    if cluster is not None:
        parts_r = ray_cluster.shards(shoes, shard_shoes)
        ray_cluster.connect(cluster)
        parts: Sequence[Part] = ray_cluster.map_shards(
            _shard, parts_r, (catalogue, table, seed, priced), progress=progress
        )
    else:
        parts = []
        for r in ray_cluster.shards(shoes, BATCH * 4):
            parts.append(study_range(catalogue, table, seed, r.start, len(r), priced))
            if progress is not None:
                progress(r.stop, shoes)
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return Study(catalogue, table, seed, total, figures(total, table, level))
