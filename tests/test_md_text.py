"""`words.md_text`: user text in any Markdown-rendering call is shown as typed, as text.

Streamlit's Markdown is CommonMark + GFM (react-markdown, remark-gfm) plus its own
directives (``:red[…]``, ``:material/…:``), LaTeX (``$…$``) and a few rewrites of the
text *after* escapes are read. The properties below hold for strings built from the
pieces of every one of those syntaxes; `tests/browser/test_hostile_names.py` checks the
same in the real browser, on every page.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from roads_app.ui.words import md_text
from tests.shown import shown

PIECES = (
    "<",
    ">",
    "</",
    "/>",
    "<script>",
    "<iframe srcdoc=",
    "<img src=",
    "<meta ",
    "<style>",
    "**",
    "*",
    "_",
    "__",
    "`",
    "```",
    "~",
    "~~",
    "[",
    "]",
    "](",
    "(",
    ")",
    "![",
    "!",
    "#",
    "# ",
    "> ",
    "- ",
    "+ ",
    "1. ",
    "1) ",
    "|",
    "---",
    "===",
    "\\",
    "&",
    "&lt;",
    "&#60;",
    "&amp;",
    "$",
    "$$",
    "^",
    "{",
    "}",
    ":",
    "::",
    ":red[",
    ":material/home:",
    ":smile:",
    ":streamlit:",
    ":+1:",
    ":-1:",
    "http",
    "http://",
    "https://",
    "HTTP://",
    "www.",
    "WWW.",
    "mailto:",
    "a@b.example",
    "@",
    ".",
    "evil.example",
    "->",
    "<-",
    "<->",
    "--",
    ">=",
    "<=",
    "~=",
    " ",
    "  ",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\u2028",
    "'",
    '"',
    "=",
    "?",
    "%",
    "x",
    "庄",
    "\u3000",
)
hostile = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=30).map("".join)

ASCII_PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
LINE_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"

# The rewrites Streamlit's Markdown makes on a text node, after escapes are read (from
# its bundle: mdast-util-gfm-autolink-literal, its `:streamlit:` logo, remark-emoji,
# its arrows). JavaScript's \w is ASCII; \s is Unicode in both.
TEXT_REWRITES = (
    re.compile(r"(https?://|www(?=\.))", re.I | re.ASCII),  # bare links
    re.compile(r"[-.\w+]@[-\w]", re.ASCII),  # e-mail addresses
    re.compile(r":streamlit:"),
    re.compile(r":[\w+-]+:", re.ASCII),  # emoji shortcodes
    re.compile(r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),  # arrows, dashes
)
# Read on the raw source: Streamlit's icon rewrite and its directive completion.
SOURCE_REWRITES = (re.compile(r":material/"), re.compile(r":[a-z][a-z0-9-]*\["))


def escapes_read(markdown: str) -> str:
    """The text node CommonMark makes of an escaped source (word joiners kept)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


@given(hostile)
@example("<iframe srcdoc=\"<script>top.document.title='x'</script>\">")
@example("**bold** [link](http://evil.example) http://evil.example www.evil.example")
@example(":red[x] $x^2$ :streamlit: a@b.example")
def test_every_ascii_punctuation_is_escaped(s: str) -> None:
    out = md_text(s)
    i = 0
    while i < len(out):
        if out[i] == "\\":
            assert out[i + 1] in ASCII_PUNCTUATION, (s, out)
            i += 2
            continue
        assert out[i] not in ASCII_PUNCTUATION, (s, out, i)  # markup would start here
        i += 1


@given(hostile)
def test_the_text_reads_as_typed_on_one_line(s: str) -> None:
    out = md_text(s)
    assert not any(c in out for c in LINE_BREAKS)
    assert not out.startswith((" ", "\t"))  # four of them would be a code block
    one_line = re.sub(f"[{LINE_BREAKS}]+", " ", s).strip(" \t")
    assert shown(out) == one_line.replace("\u2060", "")  # `shown` drops every joiner


@given(hostile)
@example("see http://evil.example, www.evil.example or me@evil.example :smile: a -> b")
def test_no_text_rewrite_of_streamlit_finds_its_pattern(s: str) -> None:
    out = md_text(s)
    node = escapes_read(out)
    for pattern in TEXT_REWRITES:
        assert not pattern.search(node), (pattern.pattern, s, node)
    for pattern in SOURCE_REWRITES:
        assert not pattern.search(out), (pattern.pattern, s, out)


@given(hostile)
def test_text_is_escaped_once(s: str) -> None:
    assert md_text(md_text(s)) == md_text(s)


def test_say_escapes_a_message_once_even_when_raised() -> None:
    """A page's own sentence (already fit for a page) raised as an error and said again
    is not escaped twice; an engine's message quoting user text is escaped."""
    from roads_app.errors import BetError, StorageError
    from roads_app.ui.words import say

    mine = md_text("stake 1.5 * 2")
    assert say(mine) == mine and say(BetError(mine)) == mine
    assert say(StorageError("no shoe '**x**'")) == md_text("no shoe '**x**'")
