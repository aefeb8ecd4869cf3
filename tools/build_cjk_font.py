"""Rebuild the dashboard's own CJK font: ``roads_app/ui/static/fonts/roads-cjk.otf``
and the ``@font-face`` rules that use it (``roads-cjk.css`` beside it).

Why: a machine without a CJK font (a kiosk, a TV box's browser, a bare Linux) showed the
Chinese labels as empty boxes. The page carries its own font instead, holding exactly
the CJK characters the pages can show (`shown_text`: the word catalogue
``roads_app/i18n.toml``, the good-road catalogues ``rules/good_roads/*.toml``, the
tables that ship, ``rules/*.toml``, and the words the pages' style sheets put in
``content``, ``roads_app/ui/static/*.css``), so it is small (about 120 kB, not the 8 MB of the
whole font) and nothing comes from the network. The server's PNG scorecard draws with
the same file (`roads_app.render.fonts`): so it is a plain OpenType file, not WOFF2,
which browsers read but the server's headless Chromium does not take from fontconfig.

Source: Noto Sans SC Regular (SIL Open Font License 1.1), as packaged on PyPI by
``pylopdf-fonts-zh-cn``; subset with fontTools.
Run after changing any of those files (``tests/test_own_font.py`` says when the font
lacks a glyph or holds one no page shows)::

    python3 -m venv /tmp/fontbuild && /tmp/fontbuild/bin/pip install fonttools \\
        pylopdf-fonts-zh-cn
    /tmp/fontbuild/bin/python tools/build_cjk_font.py

The font's licence travels beside it (``OFL.txt``).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STATIC = Path("roads_app/ui/static")
"""The pages' static folder in a checkout (the package's is `roads_app.places.STATIC_DIR`:
this tool runs in a bare venv without the package, so it cannot import it)."""
OUT_DIR = REPO / STATIC / "fonts"
FONT_NAME = "roads-cjk.otf"
CSS_NAME = "roads-cjk.css"
SOURCE_PACKAGE = "pylopdf_fonts_zh_cn"
SOURCE_FILE = "NotoSansSC-Regular.otf"

CJK_RANGES = (
    (0x2E80, 0x2FFF),
    (0x3000, 0x303F),
    (0x3100, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),
)
"""What the font draws: CJK radicals, punctuation, ideographs, compatibility forms and
the full-width forms (，：（）). Everything else (Latin, digits, ·) stays with the page's
own fonts: the faces are declared for these ranges only."""

STREAMLIT_FAMILIES = ("Source Sans", "Source Serif", "Source Code Pro")
"""Streamlit's own faces. Its CSS declares each with ``font-weight: 100 900``, upright
and italic: ours joins each with the same descriptors, or a bold or italic word would
select Streamlit's face (no CJK glyph) and never reach ours. (So a bold Chinese word is
drawn at the font's one weight: a face declared for 100-900 is not emboldened.)"""
PLAIN_FAMILIES = ("Open Sans", "Roads CJK")
"""plotly.js's default family (the charts drawn with plotly.js), and the family the
roads' own figures name first (`roads_app.render.fonts.CJK_FAMILY`): one plain face each,
so the browser emboldens or slants it as the text asks."""


def is_cjk(char: str) -> bool:
    """Whether the page's font draws ``char`` (`CJK_RANGES`)."""
    return any(lo <= ord(char) <= hi for lo, hi in CJK_RANGES)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def shown_files(repo: Path = REPO) -> list[Path]:
    """The files whose words the pages show: the catalogue, the good-road catalogues,
    the tables that ship, the pages' style sheets."""
    rules = repo / "rules"
    return [
        repo / "roads_app" / "i18n.toml",
        *sorted((rules / "good_roads").glob("*.toml")),
        *sorted(rules.glob("*.toml")),
        *sorted((repo / STATIC).glob("*.css")),
    ]


def _shown_strings(path: Path) -> list[str]:
    """Every string of a TOML file; a style sheet's ``content: "…"`` words."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".css":
        return re.findall(r'content:\s*"([^"]*)"', text)
    return _strings(tomllib.loads(text))


def shown_text(files: list[Path] | None = None) -> str:
    """Every CJK character of every string in ``files`` (`shown_files`), once, sorted."""
    chars: set[str] = set()
    for path in shown_files() if files is None else files:
        for s in _shown_strings(path):
            chars.update(c for c in s if is_cjk(c))
    return "".join(sorted(chars))


def unicode_range() -> str:
    return ", ".join(f"U+{lo:04X}-{hi:04X}" for lo, hi in CJK_RANGES)


def font_css() -> str:
    """The ``@font-face`` rules: the font under each family the pages' text asks for
    (`STREAMLIT_FAMILIES`, `PLAIN_FAMILIES`), for the CJK ranges only."""
    head = (
        "/* Written by tools/build_cjk_font.py: edit that, then run it. The page's own CJK\n"
        "   glyphs (exactly the CJK characters the pages can show, from Noto Sans SC,\n"
        "   SIL OFL 1.1, OFL.txt beside it), declared for the CJK ranges only under the\n"
        "   families the page sets its text in, so Latin text keeps its own font and a\n"
        "   machine without any CJK font still shows 中文. */\n"
    )
    faces = [
        (family, f"font-weight: 100 900; font-style: {style}; ")
        for family in STREAMLIT_FAMILIES
        for style in ("normal", "italic")
    ]
    faces += [(family, "") for family in PLAIN_FAMILIES]
    return head + "".join(
        f'@font-face {{font-family: "{family}"; src: url("./roads-app-cjk.otf") '
        f'format("opentype");\n  {descriptors}font-display: swap;\n'
        f"  unicode-range: {unicode_range()}}}\n"
        for family, descriptors in faces
    )


def source_font() -> Path:
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    if spec is None or spec.origin is None:
        raise SystemExit(f"install {SOURCE_PACKAGE.replace('_', '-')} first (see this file)")
    return Path(spec.origin).with_name(SOURCE_FILE)


def build() -> Path:
    from fontTools import subset

    src = source_font()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / FONT_NAME
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the copyright and licence names
    options.notdef_outline = True
    font = subset.load_font(str(src), options)
    sub = subset.Subsetter(options)
    sub.populate(text=shown_text())
    sub.subset(font)
    subset.save_font(font, str(out), options)
    (OUT_DIR / CSS_NAME).write_text(font_css(), encoding="utf-8")
    licence = next(
        Path(p) for p in (src.parent.parent).glob(f"{SOURCE_PACKAGE}-*.dist-info/licenses/LICENSE")
    )
    shutil.copyfile(licence, OUT_DIR / "OFL.txt")
    return out


if __name__ == "__main__":
    path = build()
    n = len(shown_text())
    print(
        f"{path.relative_to(REPO)}: {path.stat().st_size:,} bytes, {n} characters", file=sys.stderr
    )
