"""Issue 28, session 18: the lookup's fast paths give exactly what the slow paths give.

Rules protected: ``from_micros`` (the float path every stored instant now takes between 1970
and 2106) gives the instant the exact ``timedelta`` sum gives, as a datetime whose tzinfo is UTC
itself (never naive, never another offset), at both ends of its range, just past them and at
random, and ``to_micros`` takes it back; a lookup's supports, read by splitting the stored JSON
on its quotes (or decoded, when a source holds a quote or a backslash), are the supports
``Store.supports`` reads on its own, in its order, whatever the sources hold (commas, brackets,
digits, non-ASCII text) and whether or not an episode happened when its fact started; and the
models of a lookup that share one field set (``every_field``) equal validated ones, while a
copy's update never reaches another model's set.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from itertools import product
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from kg_memory import Memory, WriterPolicy
from kg_memory.domain.instant import (
    EPOCH,
    FLOAT_EXACT_MICROS,
    INSTANT_RANGE,
    from_micros,
    to_micros,
)
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Support, every_field
from kg_memory.domain.result import AsOfAnswer, Fact
from kg_memory.store.protocol import AsOfQuery, asof_rows_by_parts
from tests.conftest import ManualClock, day, episode, fact

LOWEST, HIGHEST = (to_micros(t) for t in INSTANT_RANGE)


def _exact(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


def _same_instant(micros: int) -> None:
    built = from_micros(micros)
    assert built == _exact(micros), micros
    assert type(built) is datetime
    assert built.tzinfo is UTC
    assert built.utcoffset() == timedelta(0)
    assert to_micros(built) == micros


def test_from_micros_at_and_past_both_ends_of_its_float_range() -> None:
    top = FLOAT_EXACT_MICROS
    for micros in (0, 1, 999_999, 1_000_000, 1_000_001, top - 1_000_001, top - 1_000_000,
                   top - 2, top - 1, top, top + 1, -1, -1_000_000, LOWEST, HIGHEST):
        _same_instant(micros)


def test_from_micros_where_a_double_is_coarsest() -> None:
    """Just below the range's end a double's spacing is largest (about 0.48 µs): a range
    drawn any wider would give instants a microsecond off here first."""
    draw = random.Random(28)
    for _ in range(20_000):
        _same_instant(FLOAT_EXACT_MICROS - 1 - draw.randrange(FLOAT_EXACT_MICROS // 2))


@given(st.integers(min_value=LOWEST, max_value=HIGHEST))
def test_from_micros_anywhere(micros: int) -> None:
    _same_instant(micros)


@given(st.integers(min_value=0, max_value=FLOAT_EXACT_MICROS - 1))
def test_from_micros_inside_its_float_range(micros: int) -> None:
    _same_instant(micros)


# Sources a support's JSON could be misread by: no quote nor backslash (split on the quotes),
# then with them (decoded). Each list is one fact's supporting episodes.
SOURCES = {
    "one-plain": ["plain"],
    "one-odd": ["漢字, [x]"],
    "many-odd": ["a,b", "],[", "c:1,", "漢字 9,"],
    "one-quoted": ['say "hi", [0]'],
    "many-escaped": ["x\\y", 'q"', "tab\there", "plain"],
}


def _seed(path: Path) -> tuple[Memory, ManualClock]:
    clock = ManualClock()
    memory = Memory.open(path, clock=clock, policy=WriterPolicy.permissive())
    for n, (predicate, sources) in enumerate(SOURCES.items()):
        for k, source in enumerate(sources):
            # The first episode of each fact happens when the fact starts (its instant is
            # reused), the later ones, and every one of the odd facts, at other instants; a
            # fact's later episodes happened in the reverse order of their arrival, so the
            # supports are put in order, not left in the order their edges were drawn.
            when = day(0, 9) if k == 0 else day(0, 9 + len(sources) - k)
            clock.now = when + timedelta(minutes=n)
            starts = {"valid_from": day(-n)} if n % 2 else {}
            memory.ingest(episode(f"{predicate}-{k}", source, when, channel="webhook",
                                  assertions=[fact("ana", predicate, "terrace", kind="claim",
                                                   **starts)]))
    clock.now = day(3)
    return memory, clock


def test_supports_split_or_decoded_are_the_supports_read_apart(tmp_path: Path) -> None:
    memory, _ = _seed(tmp_path / "memory.db")
    store = memory.store
    seen: set[str] = set()
    with memory:
        for (valid, known), predicate in product(
                [(day(1), day(1)), (day(0, 10), day(0, 10, )), (day(0, 12), day(0, 11))],
                [None, *SOURCES]):
            query = AsOfQuery(valid_at=valid, known_at=known, subject="ana",
                              predicate=predicate, scope="u1")
            got = store.asof_rows(query).facts
            expected = asof_rows_by_parts(store, query).facts
            assert got == expected, query
            assert [f.model_dump() for f in got] == [f.model_dump() for f in expected]
            for f in got:
                seen.add(f.predicate)
                sources = SOURCES[f.predicate]
                assert sorted(s.source for s in f.supported_by) == sorted(
                    sources[:len(f.supported_by)])
                assert all(type(s) is Support for s in f.supported_by)
                assert all(s.occurred_at.tzinfo is UTC for s in f.supported_by)
        # The whole day: every episode of every fact.
        answer = memory.asof(day(1), day(1), subject="ana")
    assert seen == set(SOURCES)
    assert {f.predicate: sorted(s.source for s in f.supported_by) for f in answer.facts} == {
        p: sorted(s) for p, s in SOURCES.items()}
    # Both ways an occurred_at is built: the fact's own start, and one of its own.
    assert any(s.occurred_at == f.valid.start for f in answer.facts for s in f.supported_by)
    assert any(s.occurred_at != f.valid.start for f in answer.facts for s in f.supported_by)
    # Both ways a system start is built: the valid start reused, and one of its own.
    assert any(f.system.start == f.valid.start for f in answer.facts)
    assert any(f.system.start != f.valid.start for f in answer.facts)


def test_shared_field_sets_stay_every_field_and_apart(tmp_path: Path) -> None:
    memory, _ = _seed(tmp_path / "memory.db")
    with memory:
        first = memory.asof(day(1), day(1), subject="ana")
        second = memory.asof(day(1), day(1), subject="ana", predicate="one-plain")
    models = [first, second, *first.facts, *second.facts,
              *(f.valid for f in first.facts), *(f.system for f in first.facts),
              *(s for f in first.facts for s in f.supported_by)]
    for model in models:
        assert model.model_fields_set == every_field(type(model))
        assert type(model).model_validate(model.model_dump()) == model
    assert AsOfAnswer.model_validate(first.model_dump()).model_fields_set == every_field(
        AsOfAnswer)
    # A copy adds its update to its own set (pydantic copies the set first): were the set
    # shared with the copy, every other fact, interval and answer would gain the name.
    fact_copy = first.facts[0].model_copy(update={"note": "x"})
    interval_copy = first.facts[0].valid.model_copy(update={"note": "x"})
    answer_copy = first.model_copy(update={"note": "x"})
    for copy in (fact_copy, interval_copy, answer_copy):
        assert "note" in copy.model_fields_set
    for model in models:
        assert "note" not in model.model_fields_set
    assert every_field(Fact) == set(Fact.model_fields)
    assert every_field(Interval) == {"start", "end"}
