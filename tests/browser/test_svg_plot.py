"""The wall's tiles are drawn as plain SVG (`static/svg_plot.js`) from the same spec the
boards give Plotly: every mark must land where Plotly puts it, with its size and text.

Both renderers draw the same specs of real dealt shoes (pairs, naturals, ties) in one
page; the marks' centres, sizes and texts are read from each drawing and compared.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page

from roads_app.game.shoe import deal_shoe
from roads_app.ui import page_head, wall_tile

# Each mark of a drawing as [trace, centre x, centre y, width, height, text]: Plotly's
# marks are translated paths in the plot group, offset by the plot area's corner.
READ_JS = """(spec) => {
  const a = document.getElementById('a'), b = document.getElementById('b');
  Plotly.newPlot(a, spec.data, spec.layout, {staticPlot: true});
  drawSvg(b, spec);
  const size = a._fullLayout._size, out = {plotly: [], svg: []};
  const near = (v) => Math.round(v * 2) / 2;
  a.querySelectorAll('.scatterlayer .trace').forEach((t, i) => {
    t.querySelectorAll('path.point').forEach((p) => {
      const m = /translate\\(([-\\d.e]+),\\s*([-\\d.e]+)\\)/.exec(p.getAttribute('transform'));
      const bb = p.getBBox();
      out.plotly.push([i, near(+m[1] + size.l), near(+m[2] + size.t), near(bb.width),
                       near(bb.height), '']);
    });
    t.querySelectorAll('.textpoint text')
      .forEach((x) => out.plotly.push([i, 'text', x.textContent]));
  });
  b.querySelectorAll('svg > g[clip-path] > g').forEach((g, i) => {
    for (const e of g.children) {
      if (e.tagName === 'text') { out.svg.push([i, 'text', e.textContent]); continue; }
      const bb = e.getBBox();
      out.svg.push([i, near(bb.x + bb.width / 2), near(bb.y + bb.height / 2),
                    near(bb.width), near(bb.height), '']);
    }
  });
  return out;
}"""


@pytest.fixture(scope="module")
def canvas(browser: Browser) -> Iterator[Page]:
    pg = browser.new_page()
    pg.set_content("<div id='a'></div><div id='b'></div>")
    pg.add_script_tag(path=str(page_head.PLOTLY_BUNDLE))
    pg.add_script_tag(content=page_head.static_text("svg_plot.js"))
    yield pg
    pg.close()


def _specs(seed: int, lang: str) -> dict[str, dict]:
    roads = wall_tile.tile_roads(deal_shoe(seed).rounds, lang, derived=True)  # as a tile's
    return {spec["layout"]["meta"]["road"]: spec for spec in roads}


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(seed=st.integers(0, 2**32 - 1), lang=st.sampled_from(["en", "zh"]))
def test_svg_tiles_put_every_mark_where_plotly_does(canvas: Page, seed: int, lang: str) -> None:
    for name, spec in _specs(seed, lang).items():
        got = canvas.evaluate(READ_JS, spec)
        # a star's outline is Plotly's own shape: its centre must agree, not its box
        plotly = [m[:3] if _star(spec, m) else m for m in got["plotly"]]
        svg = [m[:3] if _star(spec, m) else m for m in got["svg"]]
        assert sorted(svg, key=str) == sorted(plotly, key=str), name


def _star(spec: dict, mark: list) -> bool:
    trace = spec["data"][mark[0]] if mark[1] != "text" else {}
    return trace.get("marker", {}).get("symbol") == "star"
