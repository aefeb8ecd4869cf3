"""Every road is drawn as plain SVG (`static/svg_plot.js`) from the spec that also makes
the Plotly figure (the PNG scorecard): every mark must land where Plotly puts it, with
its size and text, and each road's title where Plotly writes it.

Both renderers draw the same specs of real dealt shoes (pairs, naturals, ties, a
Banker six, the held last round, the ask marks, the display's framed last result) in one
page: the scoreboard's whole board at a laptop's and a phone's width, and the wall's
tiles. The marks' centres, sizes and texts are read from each drawing and compared.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page

from roads_app.game.shoe import deal_shoe
from roads_app.render import board
from roads_app.ui import page_head, wall_tile

# Each mark of a drawing as [trace, centre x, centre y, width, height], from the page's
# own boxes, relative to each drawing's corner; texts as [trace, 'text', text]; each
# road's title as ['note', text, left, bottom].
READ_JS = """(spec) => {
  const a = document.getElementById('a'), b = document.getElementById('b');
  Plotly.newPlot(a, spec.data, spec.layout, {staticPlot: true});
  drawSvg(b, spec);
  const out = {plotly: [], svg: []};
  const near = (v) => Math.round(v * 2) / 2;
  const box = (e, o) => {
    const r = e.getBoundingClientRect();
    return [near(r.left + r.width / 2 - o.left), near(r.top + r.height / 2 - o.top),
            near(r.width), near(r.height)];
  };
  const pa = a.querySelector('.main-svg').getBoundingClientRect();
  a.querySelectorAll('.scatterlayer .trace').forEach((t) => {
    const i = t.__data__[0].trace.index;
    t.querySelectorAll('path.point').forEach((p) => out.plotly.push([i, ...box(p, pa)]));
    t.querySelectorAll('.textpoint text')
      .forEach((x) => out.plotly.push([i, 'text', x.textContent]));
  });
  a.querySelectorAll('.annotation').forEach((n) => {
    const r = n.querySelector('.annotation-text').getBoundingClientRect();
    out.plotly.push(['note', n.textContent, Math.round(r.left - pa.left),
                     Math.round(r.bottom - pa.top)]);
  });
  const pb = b.querySelector('svg').getBoundingClientRect();
  b.querySelectorAll('.rd-trace').forEach((g) => {
    const i = +g.dataset.trace;
    for (const e of g.children) {
      if (e.tagName === 'text') out.svg.push([i, 'text', e.textContent]);
      else out.svg.push([i, ...box(e, pb)]);
    }
  });
  b.querySelectorAll('text.rd-note').forEach((n) => {
    const r = n.getBoundingClientRect();
    out.svg.push(['note', n.textContent, Math.round(r.left - pb.left),
                  Math.round(r.bottom - pb.top)]);
  });
  return out;
}"""


@pytest.fixture(scope="module")
def canvas(browser: Browser) -> Iterator[Page]:
    pg = browser.new_page(viewport={"width": 1600, "height": 1200})
    pg.set_content("<div id='a'></div><div id='b'></div>")
    pg.add_script_tag(path=str(page_head.PLOTLY_BUNDLE))
    pg.add_script_tag(content=page_head.static_text("svg_plot.js"))
    yield pg
    pg.close()


def _specs(seed: int, lang: str, rounds: int) -> dict[str, dict]:
    shoe = deal_shoe(seed).rounds.head(rounds)
    tiles = wall_tile.tile_roads(shoe, lang, derived=True)  # as a tile's
    out = {spec["layout"]["meta"]["road"]: spec for spec in tiles}
    for width in (980, 358):  # a laptop's scoreboard, a phone's (scrolls sideways)
        out[f"board {width}"] = board.board_spec(
            shoe, board.BoardLook(width_px=width, lang=lang, ask="B", hold_last=True, six=True)
        )
    out["display"] = board.board_spec(
        shoe, board.BoardLook(width_px=1872, height_px=800, lang=lang, last_mark_s=6.0)
    )
    return out


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1), lang=st.sampled_from(["en", "zh"]), rounds=st.integers(1, 90)
)
def test_svg_roads_put_every_mark_where_plotly_does(
    canvas: Page, seed: int, lang: str, rounds: int
) -> None:
    for name, spec in _specs(seed, lang, rounds).items():
        got = canvas.evaluate(READ_JS, spec)
        plotly = [_mark(spec, m) for m in got["plotly"] if m[0] != "note"]
        svg = [_mark(spec, m) for m in got["svg"] if m[0] != "note"]
        assert _unmatched(svg, plotly) == [], name
        # each road's title: the same words, where Plotly puts them (within a pixel:
        # the two measure a text's box a hair apart)
        notes = [sorted(m[1:] for m in got[k] if m[0] == "note") for k in ("svg", "plotly")]
        assert [n[0] for n in notes[0]] == [n[0] for n in notes[1]], name
        for ours, theirs in zip(*notes, strict=True):
            assert abs(ours[1] - theirs[1]) <= 1 and abs(ours[2] - theirs[2]) <= 1, (
                name,
                ours,
                theirs,
            )


def _unmatched(ours: list[list], theirs: list[list], tol: float = 0.75) -> list:
    """The marks of either drawing with no partner in the other: the same trace and
    text, and its centre and size within ``tol`` px (Plotly places a subplot on a
    fraction of a pixel its own way; a mark off by a cell is off by 3 px or more)."""

    def alike(m: list, t: list) -> bool:
        return len(t) == len(m) and all(
            a == b if isinstance(a, str) or a is b else abs(a - b) <= tol
            for a, b in zip(m, t, strict=True)
        )

    left = list(theirs)
    missing = []
    for m in ours:
        near = next((t for t in left if alike(m, t)), None)
        if near is None:
            missing.append(["svg only", *m])
        else:
            left.remove(near)
    return missing + [["plotly only", *t] for t in left]


def _mark(spec: dict, mark: list) -> list:
    """A mark as compared: a star's outline is Plotly's own shape, so only its centre
    must agree."""
    trace = spec["data"][mark[0]] if mark[1] != "text" else {}
    return mark[:3] if trace.get("marker", {}).get("symbol") == "star" else mark
