"""Issue 16, the lean lookup: facts built without validation are the facts validation builds.

Rules protected: a fact an as-of lookup returns (built from its row by ``trusted``, nothing
validated again) equals the same fact validated from its own fields, dumps and re-validates to
itself, has the same fields set, holds tz-aware UTC instants and stays frozen, whatever its shape
(open or closed intervals on both axes, one or several supports, qualifiers, dependencies,
values of every JSON type); and ``Store.asof_rows`` gives, for every shape of query (which of
subject, predicate and scope are given, with or without the merge probe), exactly what ``asof``
plus ``supports`` give (``asof_rows_by_parts``): on both backends.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import product

import pytest
from pydantic import ValidationError

from kg_memory import Memory
from kg_memory.domain.instant import EPOCH
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Support, trusted
from kg_memory.domain.result import Fact
from kg_memory.services.identity import SAME_AS
from kg_memory.store.protocol import AsOfQuery, asof_rows_by_parts
from tests.conftest import ManualClock, day, episode, fact

PEOPLE = [{"entity_id": "ana", "name": "Ana"}, {"entity_id": "anna", "name": "Anna"}]


def _seed(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(0)
    memory.ingest(episode("a", "user", day(0), entities=PEOPLE, assertions=[
        fact("ana", "diet", "veg"),
        fact("ana", "seats", 4),
        fact("ana", "budget", 12.5, qualifiers={"project": "c1", "exceptions": ["audits"]}),
        fact("ana", "vip", True),
        fact("ana", "city", 'Z\u00fcrich "old town" \\ 漢字', valid_to=day(3)),
        fact("ana", "style", "concise", depends_on=["fact:ana/diet"])]))
    clock.now = day(1)
    memory.ingest(episode("b", "user", day(1), assertions=[fact("ana", "diet", "vegan")]))
    clock.now = day(2)
    # The same fact again from another source: a second support of the same revision.
    memory.ingest(episode("c", "agent", day(2), assertions=[fact("ana", "seats", 4)]))
    memory.ingest(episode("d", "user", day(2), entities=PEOPLE,
                          assertions=[fact("anna", "timezone", "Europe/Oslo")]))
    memory.merge("ana", "anna", by="user", reason="the same person", scope="u1")
    clock.now = day(5)


TIMES = [(day(0, 12), day(0, 12)), (day(0, 12), day(4)), (day(2, 12), day(4)),
         (day(4), day(4)), (day(4), day(1, 12))]


def _utc(instant: datetime | None) -> None:
    if instant is not None:
        assert type(instant) is datetime
        assert instant.tzinfo is UTC


def test_a_looked_up_fact_is_the_fact_validation_builds(memory: Memory,
                                                        clock: ManualClock) -> None:
    _seed(memory, clock)
    seen: list[Fact] = []
    for (valid, known), predicate in product(TIMES, (None, "diet", "seats")):
        seen += memory.asof(valid, known, subject="ana", predicate=predicate).facts
    for f in seen:
        validated = Fact.model_validate(f.model_dump())
        assert f == validated
        assert validated == f
        assert f.model_dump() == validated.model_dump()
        assert f.model_dump_json() == validated.model_dump_json()
        assert Fact.model_validate_json(f.model_dump_json()) == f
        assert f.model_fields_set == validated.model_fields_set == set(Fact.model_fields)
        assert (type(f), type(f.valid), type(f.system)) == (Fact, Interval, Interval)
        assert f.valid == validated.valid
        assert hash(f.valid) == hash(validated.valid)
        for instant in (f.valid.start, f.valid.end, f.system.start, f.system.end,
                        *(s.occurred_at for s in f.supported_by)):
            _utc(instant)
        with pytest.raises(ValidationError):
            f.value = "changed"  # type: ignore[misc]
        with pytest.raises(ValidationError):
            f.valid.start = EPOCH  # type: ignore[misc]
    # Every shape a row can take came through.
    assert any(f.valid.end is not None for f in seen)
    assert any(f.system.end is not None for f in seen)
    assert any(len(f.supported_by) > 1 for f in seen)
    # A support that happened when the fact started, and one that did not (the row's instant
    # is reused for the first).
    assert any(s.occurred_at == f.valid.start for f in seen for s in f.supported_by)
    assert any(s.occurred_at != f.valid.start for f in seen for s in f.supported_by)
    assert any(f.qualifiers.exceptions for f in seen)
    assert any(f.depends_on for f in seen)
    assert {type(f.value) for f in seen} == {str, int, float, bool}
    assert any(f.subject == "anna" for f in seen)  # pooled through the merge


def test_asof_rows_is_asof_and_supports_for_every_shape_of_query(
        memory: Memory, clock: ManualClock) -> None:
    _seed(memory, clock)
    store = memory.store
    found = 0
    for (valid, known), subject, predicate, scope, merge in product(
            TIMES, (None, "ana", "anna"), (None, "diet", "seats", SAME_AS), (None, "u1", "u2"),
            (None, SAME_AS)):
        query = AsOfQuery(valid_at=valid, known_at=known, subject=subject,
                          predicate=predicate, scope=scope)
        expected = asof_rows_by_parts(store, query, merge)
        got = store.asof_rows(query, merge)
        assert got.facts == expected.facts, (query, merge)
        assert sorted(m.model_dump_json() for m in got.merges) == sorted(
            m.model_dump_json() for m in expected.merges), (query, merge)
        found += len(got.facts) + len(got.merges)
    assert found > 100


def test_trusted_builds_what_validation_builds() -> None:
    start = datetime(2026, 2, 14, 20, tzinfo=UTC)
    for values in ({"start": start, "end": None}, {"start": start, "end": start + timedelta(1)}):
        built, validated = trusted(Interval, dict(values)), Interval(**values)
        assert built == validated
        assert hash(built) == hash(validated)
        assert built.model_fields_set == validated.model_fields_set
        assert built.__pydantic_extra__ is None
        assert built.__pydantic_private__ is None
        assert built.model_dump() == validated.model_dump() == values
        with pytest.raises(ValidationError):
            built.end = None  # type: ignore[misc]
    support = {"episode_id": "ep1", "source": "user", "occurred_at": start, "fingerprint": "f"}
    assert trusted(Support, dict(support)) == Support(**support)
    assert trusted(Support, dict(support)) != Support(**{**support, "fingerprint": "g"})
