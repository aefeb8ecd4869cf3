"""A backtest's verdict in words: the engine decides (`sim.backtest.judge`), the pages
and the CLI say it in the page's language from the catalogue's ``verdict_...`` sentences.

>>> from roads_app.sim.measures import judge
>>> verdict_text(judge(-0.01, (-0.02, 0.0), -0.0106, 100))[:36]
'Measured -1.000% per unit wagered ov'
>>> "Within chance" in verdict_text(judge(-0.01, (-0.02, 0.0), -0.0106, 100))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roads_app.i18n import DEFAULT, word
from roads_app.sim.measures import Finding, Verdict, pct

if TYPE_CHECKING:  # the study (and the bulk dealer it reads) only when a study is said
    from roads_app.sim.good_road_study import PatternFigures


def verdict_text(v: Verdict, lang: str = DEFAULT) -> str:
    """The verdict ``v`` in ``lang``: whether the result differs from the edge beyond
    chance, with the measured and exact figures."""
    if v.finding is Finding.NO_BETS or v.ev is None:
        return word("verdict_no_bets", lang)
    if v.finding is Finding.NO_EDGE or v.exact is None:
        return word("verdict_no_edge", lang, ev=pct(v.ev))
    if v.finding is Finding.ONE_SHOE or v.ci is None:
        return word("verdict_one_shoe", lang, ev=pct(v.ev), exact=pct(v.exact))
    lo, hi = v.ci
    head = word(
        "verdict_head",
        lang,
        ev=pct(v.ev),
        shoes=f"{v.shoes:,}",
        lo=pct(lo),
        hi=pct(hi),
        exact=pct(v.exact),
    )
    return word(f"verdict_{v.finding}", lang, head=head)


def study_verdict_text(f: PatternFigures, lang: str = DEFAULT) -> str:
    """A good road's study in one line in ``lang`` (the study decides, `finding`): does
    flat-betting what it invites beat the table's edge?"""
    from roads_app.sim.good_road_study import StudyFinding, finding

    found = finding(f)
    if found is StudyFinding.RARE or f.ev is None or f.ci is None or f.edge is None:
        return word("good_verdict_rare", lang, bets=f"{f.bets:,}")
    lo, hi = f.ci
    fields = {
        "ev": f"{f.ev * 100:+.2f}%",
        "lo": f"{lo * 100:+.2f}%",
        "hi": f"{hi * 100:+.2f}%",
        "edge": f"{f.edge * 100:+.2f}%",
        "bets": f"{f.bets:,}",
    }
    return word(f"good_verdict_{found}", lang, **fields)
