"""Bilingual dashboard: the catalogue is complete, and a Chinese page has no English left.

* Every language has exactly English's keys (a key missing in one language fails).
* Every key the code asks for (``tr("...")``, ``word("...")`` and the keys built from
  data: bet kinds, outcomes, entry modes...) is in the catalogue.
* The Chinese words are Chinese (no English word copied across by mistake).
* The scoreboard opened with ``?lang=zh`` (AppTest, the real entry script), with a shoe
  that has cards, a settled bet and a pending one, shows no English word in any label,
  text, caption, option, help, placeholder or table, but for the deliberate exceptions
  listed in `ALLOWED`.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToDict
from pandas.api.types import is_numeric_dtype
from streamlit.testing.v1 import AppTest

from roads_app import i18n
from roads_app.bets import offers
from roads_app.bets.ledger import CHIPS
from roads_app.bets.settlement import OUTCOMES
from roads_app.bets.spec import Outcome
from roads_app.bets.tables import BET_IDS, SHORTCUTS, list_tables, load_table
from roads_app.game.shoe import deal_shoe
from roads_app.ui import entry_page, replay_page, session
from tests import storehelp as sh
from tests.apphelp import open_tab

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "roads_app" / "ui" / "app.py")

ALLOWED = {
    "English",  # the language switch names each language in its own words
    "Language",  # "Language · 语言": the switch's label is in both on purpose
    # tables' file names (the new-shoe picker) and titles are data, not labels
    *(w for name in list_tables() for w in re.findall(r"[A-Za-z]+", name)),
    *re.findall(r"[A-Za-z]+", load_table("classic").title),
    "CSV",
    "JSON",
    "Parquet",
    "PARQUET",
    "PNG",
    "MB",  # file formats keep their names
}
"""English tokens allowed on the Chinese page (besides card codes, see `_english`)."""
CARD = re.compile(r"^(?:[2-9TJQKA][shdc])$")


def _raw() -> dict[str, dict[str, str]]:
    with i18n.CATALOGUE.open("rb") as f:
        return tomllib.load(f)


# --- the catalogue ----------------------------------------------------------------------


def test_every_language_has_exactly_the_english_keys() -> None:
    data = _raw()
    assert set(data) == {"en", "zh"}
    assert i18n.check(data) is data
    for lang in data:
        for change in ("drop", "add"):
            broken = copy.deepcopy(data)
            if change == "drop":
                broken[lang].pop("undo_chip")
            else:
                broken[lang]["only_here"] = "x"
            with pytest.raises(ValueError, match=r"undo_chip|only_here"):
                i18n.check(broken)


def _keys_in_code() -> set[str]:
    """Catalogue keys the source asks for by name, plus the ones it builds from data."""
    found: set[str] = set()
    for path in (ROOT / "roads_app").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r"""\b(?:tr|word)\(\s*["']([a-z_A-Z0-9]+)["']""", text))
    found |= {f"bet_{b}" for b in (*BET_IDS, *SHORTCUTS)}
    found |= {f"outcome_{o}" for o in (*OUTCOMES, *Outcome)}
    found |= set(offers.ENTRY_LABELS.values()) | set(offers.NEED_WORDS.values())
    found |= set(offers.ENTRY_HOW.values())
    found |= {f"family_{f}" for t in list_tables() for f in offers.layout(load_table(t)).families}
    found |= set(entry_page.REPLACE_BY.values()) | set(entry_page.FLAGS)
    found |= {f"source_{s}" for s in replay_page.SOURCES}
    found |= {f"{w}_letter" for w in "BPT"} | set("BPT")
    return found


def test_every_key_the_code_asks_for_is_in_the_catalogue() -> None:
    keys = _keys_in_code()
    assert len(keys) > 150  # the scan found the pages' keys, not nothing
    for lang, words in _raw().items():
        assert sorted(keys - set(words)) == [], lang


def test_the_chinese_words_are_chinese() -> None:
    """Each Chinese entry, once its {fields} and markup are gone, holds no English word
    (the card-rank caption and file formats are the deliberate exceptions)."""
    allowed = {"CSV", "JSON", "TOML", "Parquet", "PNG", "MB", "csv", "json", "parquet", "Ray"}
    allowed |= {"UTF"}  # UTF-8, the text files' encoding
    for key, text in _raw()["zh"].items():
        bare = re.sub(r"\{[a-z_]+\}|&nbsp;|\*\*|\?[a-z]+=<[a-z]+>", " ", text)  # ?shoe=<id>
        words = {w for w in re.findall(r"[A-Za-z]{2,}", bare)} - allowed
        assert not words, (key, text)


# --- the Chinese scoreboard ---------------------------------------------------------------


def _english(text: str) -> list[str]:
    """English words in a piece of page text, once markup is gone and exceptions allowed."""
    text = re.sub(r"<style>.*?</style>", " ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)  # tags and their attributes
    text = re.sub(r":material/[a-z_]+:", " ", text)  # icons
    text = re.sub(r"&[a-z]+;", " ", text)  # entities (&nbsp;)
    text = re.sub(r"\]\([^)]*\)", " ", text)  # a link's address (display?shoe=…)
    text = re.sub(r":(?:red|blue|green|gray|orange)\[", " ", text)  # colour markup
    words = re.findall(r"[A-Za-z]{2,}", text)
    return [w for w in words if w not in ALLOWED and not CARD.match(w)]


def _texts(value: object, field: str = "") -> list[tuple[str, str]]:
    """Every string a reader sees in an element's message: labels, bodies, help..."""
    shown = {"label", "body", "help", "placeholder", "options", "content", "text", "value"}
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v, field)]
    if isinstance(value, str) and field in shown:
        return [(field, value)]
    return []


def _walk(node: object) -> list[object]:
    out = [node]
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            out += _walk(child)
    return out


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(folder))
    return folder


def test_the_scoreboard_in_chinese_has_no_english_label_left(data: Path) -> None:
    dealt = deal_shoe(3)
    meta = dealt.meta.__class__(**{**dealt.meta.to_dict(), "name": "周五夜"})
    sh.save_shoe(dealt.rounds.head(20), meta, data)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[session.URL_PARAM] = meta.id
    at.query_params["lang"] = "zh"
    at.run()
    assert not at.exception, at.exception
    # a bet on round 21, settled by the round entered by its cards, one waiting on 22
    at.button(key="bets_bet_player").click().run()
    nxt = dealt.rounds.row(20, named=True)
    open_tab(at, "cards", "zh")
    at.text_input(key="cards_player").input(" ".join(nxt["player_cards"]))
    at.text_input(key="cards_banker").input(" ".join(nxt["banker_cards"]))
    at.button(key=f"FormSubmitter:cards_form-{i18n.word('add_by_cards', 'zh')}").click().run()
    assert sh.load_shoe(meta.id, data)[0].height == 21
    at.button(key="bets_bet_banker").click().run()
    at.number_input(key="bets_start").set_value(10.0).run()  # every chip now refused
    assert not at.exception, at.exception

    seen: list[tuple[str, str, str]] = []
    kinds = set()
    for node in _walk(at._tree):
        kind = type(node).__name__
        proto = getattr(node, "proto", None)
        if proto is None or kind in ("UnknownElement", "PlotlyChart", "Dataframe"):
            continue  # components carry script, the board is checked in the browser
        kinds.add(kind)
        for field, text in _texts(MessageToDict(proto)):
            seen.append((kind, field, text))
    for frame in at.dataframe:  # the live odds and the bet history: headers and cells
        df = frame.value
        cells = [str(c) for c in df.columns]
        cells += [str(v) for col in df.columns if df[col].dtype == object for v in df[col]]
        seen += [("Dataframe", "cell", c) for c in cells]

    assert {"Button", "Markdown", "Caption", "Toggle", "Tab", "NumberInput"} <= kinds
    assert len(at.dataframe) >= 2 and len(seen) > 80
    left = [(kind, field, text, _english(text)) for kind, field, text in seen if _english(text)]
    assert left == [], "\n".join(map(str, left))
    # and what it shows is the Chinese: the bet history says who won in Chinese
    page = "\n".join(text for _, _, text in seen)
    for zh in ("庄", "闲", "统计", "撤回上一个筹码", "按点数", "实时赔率", "投注"):
        assert zh in page, zh
    assert any(w in page for w in ("赢", "输")) and str(CHIPS[2]) in page
    assert "本金不足" in page  # the bankroll rule's refusal, in Chinese


def test_the_english_scoreboard_is_unchanged_by_the_catalogue(data: Path) -> None:
    """The same page without ``?lang`` reads in English (and would fail the check above)."""
    sh.save_shoe(deal_shoe(3).rounds.head(5), deal_shoe(3).meta, data)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params[session.URL_PARAM] = deal_shoe(3).meta.id
    at.run()
    labels = [b.label for b in at.button]
    assert "Undo last chip" in labels and "Bring back" in labels
    assert any(_english(b.label) for b in at.button)


def _page_words(at: AppTest) -> list[tuple[str, str, str]]:
    seen: list[tuple[str, str, str]] = []
    for node in _walk(at._tree):
        kind = type(node).__name__
        proto = getattr(node, "proto", None)
        if proto is None or kind in ("UnknownElement", "PlotlyChart", "Dataframe"):
            continue
        seen += [(kind, f, t) for f, t in _texts(MessageToDict(proto))]
    for frame in at.dataframe:
        df = frame.value
        seen += [("Dataframe", "column", str(c)) for c in df.columns]
    return seen


def _harness(start: str) -> None:
    """The app's navigation with another page first (AppTest cannot open a URL path)."""
    from roads_app.ui.pages import navigation

    navigation(first=start).run()


@pytest.mark.parametrize("start", ["library", "lobby", "replay"])
def test_library_lobby_and_replay_in_chinese_have_no_english_label_left(
    data: Path, start: str
) -> None:
    dealt = deal_shoe(5)
    meta = dealt.meta.__class__(**{**dealt.meta.to_dict(), "name": "周五夜"})
    sh.save_shoe(dealt.rounds, meta, data)
    hand = dealt.meta.__class__(name="手工靴", source="hand")
    sh.save_shoe(dealt.rounds.head(6), hand, data)
    at = AppTest.from_function(_harness, kwargs={"start": start}, default_timeout=60)
    at.query_params["lang"] = "zh"
    if start == "replay":
        at.query_params[session.URL_PARAM] = meta.id
        at.query_params["round"] = "12"
    at.run()
    assert not at.exception, at.exception
    seen = _page_words(at)
    assert len(seen) > 5
    # a shoe's source kind is data only where no word exists for it: none here
    left = [(k, f, t, _english(t)) for k, f, t in seen if _english(t)]
    assert left == [], "\n".join(map(str, left))


def _backtest_page() -> None:
    from roads_app.ui.backtest_page import render_backtest_page

    render_backtest_page()


@pytest.mark.parametrize("strategy", ["martingale", "follow-road"])
def test_the_backtest_page_in_chinese_has_no_english_label_left(data: Path, strategy: str) -> None:
    """The inputs, a run's metrics, charts' words, verdict and both tables, in Chinese."""
    at = AppTest.from_function(_backtest_page, default_timeout=120)
    at.query_params["lang"] = "zh"
    at.run()
    at.selectbox(key="bt_strategy").set_value(strategy).run()
    at.number_input(key="bt_shoes").set_value(300)
    at.multiselect(key="bt_sides").set_value(["tie"])
    at.button(key="bt_run").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    seen = _page_words(at)
    for frame in at.dataframe:  # the per-bet and per-shoe tables: cells too
        df = frame.value
        seen += [
            ("Dataframe", "cell", str(v))
            for col in df.columns
            if not is_numeric_dtype(df[col])
            for v in df[col]
        ]
    charts = [
        json.loads(n.proto.spec)
        for n in _walk(at._tree)
        if getattr(n, "type", "") == "plotly_chart"
    ]
    assert len(charts) == 2  # the fan chart and the histogram: titles, axes, traces
    for fig in charts:
        layout = fig["layout"]
        seen += [("Chart", "title", layout[k]["title"]["text"]) for k in ("xaxis", "yaxis")]
        seen += [("Chart", "title", layout["title"]["text"])]
        seen += [("Chart", "trace", t["name"]) for t in fig["data"] if t.get("name")]
    kinds = {kind for kind, _, _ in seen}
    assert {"Metric", "Dataframe", "Chart"} <= kinds
    left = [(k, f, t, _english(t)) for k, f, t in seen if _english(t)]
    assert left == [], "\n".join(map(str, left))
    page = "\n".join(t for _, _, t in seen)
    for zh in ("策略回测", "每单位投注的期望值", "输光风险", "置信区间", "打完整靴", "总投注 · 和"):
        assert zh in page, zh


def _study_page() -> None:
    from roads_app.ui.study_page import render_study_page

    render_study_page()


def test_the_live_odds_study_page_in_chinese_has_no_english_label_left(data: Path) -> None:
    at = AppTest.from_function(_study_page, default_timeout=120)
    at.query_params["lang"] = "zh"
    at.run()
    at.selectbox(key="study.table").set_value("classic")
    at.number_input(key="study.shoes").set_value(20)
    at.checkbox(key="study.closing").set_value(False)
    at.button(key="study.run").click().run()
    assert not at.exception and not at.error, (at.exception, at.error)
    seen = _page_words(at)
    for frame in at.dataframe:
        df = frame.value
        seen += [
            ("Dataframe", "cell", str(v))
            for col in df.columns
            if not is_numeric_dtype(df[col])
            for v in df[col]
        ]
    charts = [
        json.loads(n.proto.spec)
        for n in _walk(at._tree)
        if getattr(n, "type", "") == "plotly_chart"
    ]
    for fig in charts:
        seen += [("Chart", "title", fig["layout"]["title"]["text"])]
        seen += [("Chart", "trace", t["name"]) for t in fig["data"] if t.get("name")]
    assert len(charts) == 1 and len(at.dataframe) == 1
    left = [(k, f, t, _english(t)) for k, f, t in seen if _english(t)]
    assert left == [], "\n".join(map(str, left))
    page = "\n".join(t for _, _, t in seen)
    for zh in ("实时赔率研究", "正期望局 %", "每靴精确期望值", "庄", "和", "忽略截止局数"):
        assert zh in page, zh
