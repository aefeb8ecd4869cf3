"""Rebuild the dashboard's own CJK font: ``roads_app/ui/static/fonts/roads-cjk.woff2``.

Why: a machine without a CJK font (many TVs' browsers, a bare Linux) showed the
Chinese labels as empty boxes. The page carries its own font instead, holding exactly
the glyphs the word catalogue (`roads_app/i18n.toml`) uses, so it is small
(tens of kB, not the 8 MB of the whole font) and nothing comes from the network.

Source: Noto Sans SC Regular (SIL Open Font License 1.1), as packaged on PyPI by
``pylopdf-fonts-zh-cn``; subset and compressed with fontTools (WOFF2, with brotli).
Run after changing the catalogue (a test says when the font lacks a glyph)::

    python3 -m venv /tmp/fontbuild && /tmp/fontbuild/bin/pip install fonttools brotli \\
        pylopdf-fonts-zh-cn
    /tmp/fontbuild/bin/python tools/build_cjk_font.py

The font's licence travels beside it (``OFL.txt``).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CATALOGUE = REPO / "roads_app" / "i18n.toml"
OUT_DIR = REPO / "roads_app" / "ui" / "static" / "fonts"
FONT_NAME = "roads-cjk.woff2"
SOURCE_PACKAGE = "pylopdf_fonts_zh_cn"
SOURCE_FILE = "NotoSansSC-Regular.otf"


def catalogue_text(path: Path = CATALOGUE) -> str:
    """Every character of every language's words in the catalogue, once, sorted."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    chars: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            chars.update(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(data)
    return "".join(sorted(c for c in chars if c.isprintable() and not c.isspace()))


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
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the copyright and licence names
    options.notdef_outline = True
    font = subset.load_font(str(src), options)
    sub = subset.Subsetter(options)
    sub.populate(text=catalogue_text())
    sub.subset(font)
    subset.save_font(font, str(out), options)
    licence = next(Path(p) for p in (src.parent.parent).glob(
        f"{SOURCE_PACKAGE}-*.dist-info/licenses/LICENSE"))  # fmt: skip
    shutil.copyfile(licence, OUT_DIR / "OFL.txt")
    return out


if __name__ == "__main__":
    path = build()
    print(f"{path.relative_to(REPO)}: {path.stat().st_size:,} bytes", file=sys.stderr)
