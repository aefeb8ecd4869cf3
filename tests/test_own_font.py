"""The page's own CJK font (`tools/build_cjk_font.py`): exactly the CJK characters the
pages can show, declared where the pages' text asks for it, and drawn by the server's
PNG scorecard on a machine with no CJK font.

The pages' side, in a browser without CJK fonts, is `tests/browser/test_own_font.py`.
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
from pathlib import Path

import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from roads_app import places
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.render import fonts, scorecard
from roads_app.ui import page_head
from tests.fontless import ENV, fontless_config

REPO = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location(
        "build_cjk_font", REPO / "tools" / "build_cjk_font.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _tool()


def font_chars(path: Path = page_head.CJK_FONT) -> set[str]:
    with TTFont(path) as font:
        return {chr(c) for c in font.getBestCmap()}


def unmatched(held: set[str], shown: str) -> tuple[list[str], list[str]]:
    """The characters the pages show that the font lacks, and those it holds for nothing."""
    return sorted(set(shown) - held), sorted(held - set(shown))


def test_the_font_holds_exactly_the_cjk_characters_the_pages_can_show():
    lacking, spare = unmatched(font_chars(), tool.shown_text())
    assert (lacking, spare) == ([], []), (
        "rerun tools/build_cjk_font.py (see its docstring): the font lacks "
        f"{''.join(lacking)!r} and holds {''.join(spare)!r} for nothing"
    )


def test_the_words_the_pages_show_come_from_every_catalogue_and_table():
    shown = set(tool.shown_text())
    files = {p.relative_to(REPO).as_posix() for p in tool.shown_files()}
    assert {"roads_app/i18n.toml", "rules/good_roads/default.toml", "rules/classic.toml"} <= files
    for name in ("逢庄跳", "排排连", "双跳"):  # good-road names, not all in the word catalogue
        assert set(name) <= shown, name
    assert set("庄闲和珠盘路曱甴") <= shown
    assert set("上传") <= shown  # the uploader's button, said in Chinese by chrome.zh.css
    assert not {c for c in shown if c.isascii() or c.isspace()}  # Latin stays with the page's


def test_a_word_added_without_its_glyphs_is_caught(tmp_path: Path):
    catalogue = tmp_path / "i18n.toml"
    text = (REPO / "roads_app" / "i18n.toml").read_text(encoding="utf-8")
    catalogue.write_text(text + '\n[xx]\nnew_word = "龘靐"\n', encoding="utf-8")
    files = [catalogue, *tool.shown_files()[1:]]
    lacking, spare = unmatched(font_chars(), tool.shown_text(files))
    assert lacking == ["靐", "龘"] and spare == []


def test_the_tool_writes_the_font_where_the_pages_and_the_scorecard_read_it():
    """The tool runs without the package (a bare venv), so it names the static folder
    itself: it must be the package's one (`places.STATIC_DIR`)."""
    assert REPO / tool.STATIC == places.STATIC_DIR
    assert tool.OUT_DIR / tool.FONT_NAME == fonts.FONT_FILE == page_head.CJK_FONT
    assert tool.OUT_DIR / tool.CSS_NAME == page_head.CJK_CSS


def test_the_style_sheet_is_the_tools_and_names_the_family_the_figures_ask_for():
    css = page_head.CJK_CSS.read_text(encoding="utf-8")
    assert css == tool.font_css(), "rerun tools/build_cjk_font.py"
    families = set(re.findall(r'font-family: "([^"]+)"', css))
    assert fonts.CJK_FAMILY in families
    assert f'"{fonts.CJK_FAMILY}"' in fonts.TEXT_FONT and f'"{fonts.CJK_FAMILY}"' in fonts.MARK_FONT
    assert css.count(f'url("{page_head.FONT_SRC}")') == css.count("@font-face")


def test_our_faces_join_streamlits_own_with_the_same_descriptors():
    """Streamlit's faces of the families we join (from the Streamlit installed here): a
    face of ours with other descriptors would never be chosen for that text."""
    from streamlit import file_util

    theirs = set()
    for sheet in (Path(file_util.get_static_dir()) / "static" / "css").glob("*.css"):
        for face in re.findall(r"@font-face\{([^}]*)\}", sheet.read_text(encoding="utf-8")):
            desc = dict(re.findall(r"(font-family|font-weight|font-style):([^;]+)", face))
            if desc.get("font-family", "").strip('"') in tool.STREAMLIT_FAMILIES:
                theirs.add(
                    (
                        desc["font-family"].strip('"'),
                        desc.get("font-weight", "400"),
                        desc.get("font-style", "normal"),
                    )
                )
    ours = {
        (family, "100 900", style)
        for family in tool.STREAMLIT_FAMILIES
        for style in ("normal", "italic")
    }
    assert {f for f, _, _ in theirs} == set(tool.STREAMLIT_FAMILIES)
    assert theirs == ours


# --- the PNG scorecard, drawn by the server ------------------------------------------------


@pytest.fixture
def no_cjk_fonts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process (and so kaleido's Chromium) sees no CJK font of the machine."""
    monkeypatch.setenv(ENV, str(fontless_config(tmp_path)))


@pytest.mark.parametrize("before", [None, "/elsewhere/fonts.conf"])
def test_the_fonts_are_ours_only_while_drawing(before: str | None, monkeypatch):
    """Inside, fontconfig's file is one holding the file in force and our folder; after,
    the process's environment is as it was."""
    if before is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, before)
    with fonts.fonts_with_ours():
        conf = Path(os.environ[ENV]).read_text(encoding="utf-8")
        assert f"<dir>{fonts.FONT_DIR}</dir>" in conf and fonts.FONT_FILE.is_file()
        assert f">{before or 'fonts.conf'}</include>" in conf
    assert os.environ.get(ENV) == before


def _cell_box(fig, col: int, row: int) -> tuple[float, float, float, float]:
    """The bead plate's cell (``col``, ``row``) in figure pixels: left, top, right, bottom."""
    lay = fig.layout
    w = lay.width - lay.margin.l - lay.margin.r
    h = lay.height - lay.margin.t - lay.margin.b
    (dx0, dx1), (rx0, rx1) = lay.xaxis.domain, lay.xaxis.range
    (dy0, dy1), (ry0, ry1) = lay.yaxis.domain, lay.yaxis.range
    ux, uy = (dx1 - dx0) * w / (rx1 - rx0), (dy1 - dy0) * h / abs(ry1 - ry0)
    left = lay.margin.l + dx0 * w + (col - rx0) * ux
    top = lay.margin.t + (1 - dy1) * h + (row - min(ry0, ry1)) * uy
    return left, top, left + ux, top + uy


def _letter(px: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """The white strokes of a bead's letter: the middle of its disc, paper-white pixels."""
    s = scorecard.PNG_SCALE
    left, top, right, bottom = (v * s for v in box)
    inset = 0.22 * (right - left)
    part = px[int(top + inset) : int(bottom - inset), int(left + inset) : int(right - inset)]
    return part.min(axis=2) > 200


def test_the_png_draws_chinese_with_our_font_on_a_machine_without_one(no_cjk_fonts: None):
    """The bead plate's 庄 and 闲, drawn by kaleido's Chromium: two different glyphs,
    each with its strokes. Where no font has them both are the same empty box."""
    rounds = rounds_from_winners("BP")
    assert os.environ[ENV]
    png = scorecard.board_png(rounds, ShoeMeta(name="Table 8"), lang="zh")
    fig = scorecard.scorecard_figure(
        rounds, ShoeMeta(name="Table 8"), width_px=scorecard.PNG_WIDTH_PX, lang="zh"
    )
    assert [t.text for t in fig.data if t.xaxis == "x" and t.text] == [("庄",), ("闲",)]
    with Image.open(io.BytesIO(png)) as im:
        px = np.asarray(im.convert("RGB"), dtype=np.int32)
    banker, player = _letter(px, _cell_box(fig, 0, 0)), _letter(px, _cell_box(fig, 0, 1))
    assert banker.shape == player.shape
    for strokes in (banker, player):
        assert 0.08 < strokes.mean() < 0.6  # a glyph's strokes, not nothing, not a blank
    differ = (banker ^ player).sum() / (banker | player).sum()
    assert differ > 0.4, f"庄 and 闲 drawn alike ({differ:.2f} of their strokes differ)"
