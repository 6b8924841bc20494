"""Publishing a derived record: the record-level If-Match and the scope refusals, per backend.

Rules protected: a worker publishes only over the record it read (a second worker that read the
same basis loses to the first even though no evidence changed: the record moved); a record is
refused for review when it would drop a source's project, or when its draft names a project
other than the record's.
"""

from __future__ import annotations

import pytest

from kg_memory import ConcurrencyError, Memory, Qualifiers
from kg_memory.domain.errors import ConsolidationRefused
from tests.conftest import ManualClock, day, episode, fact


def _preferences(memory: Memory, clock: ManualClock) -> list[str]:
    clock.now = day(1)
    report = memory.ingest(episode("p", "user", day(1), scope="acme", assertions=[
        fact("j17", "report_style", "concise", qualifiers={"project": "c1"}),
        fact("j17", "report_length", "short", qualifiers={"project": "b2"}),
    ]))
    clock.now = day(2)
    return [e.assertion_id for e in report.effects if e.assertion_id]


def test_a_worker_that_read_the_record_before_another_published_cannot_publish(
    memory: Memory, clock: ManualClock
) -> None:
    style, _ = _preferences(memory, clock)
    first = memory.read_basis("j17", "profile", [style], scope="acme", project="c1")
    second = memory.read_basis("j17", "profile", [style], scope="acme", project="c1")
    assert first.expected == second.expected is None  # no record yet
    memory.publish(first)
    clock.now = day(3)
    with pytest.raises(ConcurrencyError, match="precondition failed: record is"):
        memory.publish(second)
    # Re-reading sees the record and may replace it.
    memory.publish(memory.read_basis("j17", "profile", [style], scope="acme", project="c1"))


def test_a_record_that_drops_a_sources_project_is_refused_for_review(
    memory: Memory, clock: ManualClock
) -> None:
    evidence = _preferences(memory, clock)
    basis = memory.read_basis("j17", "profile", evidence, scope="acme", project="c1")
    with pytest.raises(ConsolidationRefused, match="drops project 'b2'"):
        memory.publish(basis)
    with pytest.raises(ConsolidationRefused, match="record is for project 'c1'"):
        memory.publish(memory.read_basis("j17", "profile", evidence[:1], scope="acme",
                                         project="c1"), qualifiers=Qualifiers(project="b2"))
    assert [f for f in memory.asof(scope="acme").facts if f.predicate == "profile"] == []
