"""A forget run on Neo4j asks a fixed number of queries, whatever the number of facts it erases.

Rule protected: the dependents of the erased facts are read with one query
(``Transaction.live_dependents_many``) and the forgotten entities deleted with one
(``Transaction.delete_entities``), not one round trip each (a source of 1,000 facts ran about
2,000 queries; each is a round trip and a plan on the server).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from kg_memory import Memory
from kg_memory.domain.record import IngestRecord
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.tx import Neo4jTransaction
from tests.conftest import ManualClock

pytestmark = pytest.mark.neo4j
URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
FACTS = 30


@pytest.fixture
def neo4j(clock: ManualClock) -> Iterator[Neo4jStore]:
    store = Neo4jStore.connect(URI, clock=clock)
    store.wipe()
    yield store
    store.close()


def test_forgetting_a_source_asks_per_run_not_per_fact(
    neo4j: Neo4jStore, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = Memory(neo4j, clock=clock)
    memory.ingest(IngestRecord.model_validate({
        "operation_id": "feed", "source": "tool", "channel": "tool",
        "occurred_at": clock.now.isoformat(), "scope": "u1",
        "assertions": [{"subject": f"feed-{i}", "predicate": "item", "value": f"item {i}",
                        "kind": "world"} for i in range(FACTS)]}))
    clock.now += timedelta(days=1)
    ran: Counter[str] = Counter()
    original = Neo4jTransaction._rows

    def counting(self: Neo4jTransaction, name: str, /, **params: Any) -> list[dict[str, Any]]:
        ran[name] += 1
        return original(self, name, **params)

    monkeypatch.setattr(Neo4jTransaction, "_rows", counting)
    report = memory.forget("source:tool@u1")
    assert len(report.plan.delete) == FACTS
    assert len(report.plan.entities) == FACTS  # not vacuous: each fact's subject goes too
    assert max(ran.values()) < FACTS // 3, ran.most_common(3)
    assert memory.store.entities("u1") == []
