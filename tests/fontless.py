"""A machine without CJK fonts, for the process a test starts: a fontconfig file listing
every font folder of this machine that holds no CJK font (with the machine's own rules,
``conf.d``, so Arial still finds its look-alike), checked with ``fc-list :lang=zh``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = "FONTCONFIG_FILE"


def _files(*pattern: str, env: dict[str, str] | None = None) -> set[Path]:
    out = subprocess.run(
        ["fc-list", *pattern, "--format", "%{file}\n"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return {Path(line) for line in out.splitlines() if line}


def fontless_config(folder: Path) -> Path:
    """The fontconfig file (in ``folder``), checked: under it fontconfig lists fonts,
    and none of them covers Chinese."""
    cjk = {f.parent for f in _files(":lang=zh")}
    dirs = sorted({f.parent for f in _files()} - cjk)
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        + "".join(f"  <dir>{d}</dir>\n" for d in dirs)
        + '  <include ignore_missing="yes">/etc/fonts/conf.d</include>\n'
        + f"  <cachedir>{folder / 'cache'}</cachedir>\n</fontconfig>\n"
    )
    env = {**os.environ, ENV: str(conf)}
    seen = _files(":lang=zh", env=env)
    assert not seen, f"CJK fonts still seen under {conf}: {sorted(map(str, seen))}"
    assert _files(env=env), f"no font at all under {conf}"
    return conf
