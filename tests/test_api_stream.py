"""The event stream's diff: whatever happened between two reads of a shoe, a follower
that applies the event ends with exactly the rounds that are there now."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from roads_app.api.stream import diff

rounds = st.lists(st.fixed_dictionaries({"winner": st.sampled_from("BPT")}), max_size=12)


def apply(have: list[dict] | None, kind: str, sent: list[dict]) -> list[dict] | None:
    if kind in ("snapshot", "reset"):
        return list(sent)
    if kind == "append":
        return [*(have or []), *sent]
    return None  # gone


@given(before=st.none() | rounds, after=st.none() | rounds)
def test_a_follower_ends_with_the_rounds_there_are(before, after):
    change = diff(before, 7, after)
    assert apply(before, change.kind, change.rounds) == after
    if before is not None and after is not None and after[: len(before)] == before:
        assert change.kind == "append" and len(change.rounds) == len(after) - len(before)


@given(head=rounds, tail=rounds)
def test_an_undo_or_void_is_a_reset_not_an_append(head, tail):
    before = [*head, {"winner": "B"}, *tail]
    after = [*head, *tail]  # one round gone from the middle or the end
    assert diff(before, 2, after).kind == "reset"
