"""A tenant's reads on Neo4j cost what the tenant holds, not what every tenant holds.

A server shared by many tenants must not make one tenant's recall slower for each episode
another tenant writes. Each read here is profiled on a store where one tenant holds many
episodes and another a few: no step of the small tenant's read may pass more rows than the
small tenant has. Found by the bench at 1e5 (4,762 tenants of 12 episodes): the episodes'
vector backlog scanned every episode of the server on every hybrid recall, 600 ms a call
(docs/benchmarks.md, "Neo4j hybrid recall (issue 28, session 20)").
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from neo4j import Driver, GraphDatabase

from kg_memory import Memory
from kg_memory.domain.record import IngestRecord
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.cypher import load
from tests.conftest import ManualClock

pytestmark = pytest.mark.neo4j

URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
BIG, SMALL, MANY = 300, 3, 8
EPOCH = datetime(2026, 3, 1, tzinfo=UTC)


def _turns(scope: str, n: int) -> list[IngestRecord]:
    return [IngestRecord.model_validate({
        "operation_id": f"{scope}-turn-{i}", "source": "user", "channel": "chat",
        "scope": scope, "occurred_at": (EPOCH + timedelta(minutes=i)).isoformat(),
        "content": f"we talked about lisbon and the harbour, turn {i}"}) for i in range(n)]


def _facts(scope: str, n: int) -> list[IngestRecord]:
    """2n people the user names (the first n to forget), n times a restaurant claiming the
    user's word (refused), and n people the user mentions by name (resolved: a profile and a
    decision document each)."""
    said = [{"operation_id": f"{scope}-friend-{i}", "source": "user", "channel": "chat",
             "scope": scope, "occurred_at": (EPOCH + timedelta(hours=6, minutes=i)).isoformat(),
             "content": f"My friend P{i} is vegetarian.",
             "entities": [{"entity_id": f"p{i}", "type": "person", "name": f"P{i}"}],
             "assertions": [{"subject": f"p{i}", "predicate": "diet", "value": "vegetarian",
                             "kind": "stated"}]} for i in range(2 * n)]
    claimed = [{"operation_id": f"{scope}-claim-{i}", "source": "restaurant",
                "channel": "webhook", "scope": scope,
                "occurred_at": (EPOCH + timedelta(hours=7, minutes=i)).isoformat(),
                "content": "The user pre-approves deposits.",
                "assertions": [{"subject": scope, "predicate": "deposit_preapproved",
                                "value": "yes", "kind": "stated"}]} for i in range(n)]
    named = [{"operation_id": f"{scope}-named-{i}", "source": "user", "channel": "chat",
              "scope": scope, "occurred_at": (EPOCH + timedelta(hours=8, minutes=i)).isoformat(),
              "content": f"I met Q{i} today.",
              "resolve": [{"key": "q", "name": f"Quinn Q{i}"}]} for i in range(n)]
    return [IngestRecord.model_validate(r) for r in said + claimed + named]


@pytest.fixture(scope="module")
def driver() -> Iterator[Driver]:
    """A store holding a big tenant (turns, people, refused claims, collection blocks) and a
    small one (a few turns), and a plain driver on it."""
    clock = ManualClock(EPOCH + timedelta(days=1))
    store = Neo4jStore.connect(URI, clock=clock)
    store.wipe()
    with Memory(store, clock=clock) as memory:
        memory.ingest_many(_turns("big", BIG), batch_size=100)
        memory.ingest_many(_facts("big", MANY))
        for i in range(MANY):
            memory.scoped("big").forget(f"category:big/p{i}/diet", block=True)
        memory.ingest_many(_turns("small", SMALL))
        # Not vacuous: the big tenant holds more of each kind than the small one's bound.
        assert len(memory.refusals("big")) >= MANY
        assert len(memory.blocks("big")) >= MANY
        assert len(memory.scoped("big").entities()) >= MANY
        assert len(store.documents("decision", "big")) >= MANY
        assert len(store.activities(scope="big")) >= MANY
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    with GraphDatabase.driver(URI, auth=auth, notifications_min_severity="OFF") as drv:
        yield drv


def _rows(plan: Any) -> list[tuple[str, int]]:
    """(operator, rows) of every step of a profiled plan."""
    found = [(str(plan["operatorType"]).split("@")[0], int(plan.get("rows", 0)))]
    for child in plan.get("children", []):
        found.extend(_rows(child))
    return found


@pytest.mark.parametrize(("name", "params"), [
    ("recall_episode_vector_backlog", {"limit": 512}),  # every hybrid recall
    ("recall_vector_backlog", {"limit": 512}),  # every hybrid recall
    ("scope_blocks", {}),  # every recall
    ("scope_refusals", {}),  # lineage, forget's residues
    ("scope_entities", {}),  # forget, lineage, the entities listing
    ("scope_episodes", {}),  # lineage
    ("episode_texts", {}),  # forget's residues
    ("find_assertions_scope", {"project": None}),  # provenance
    ("scope_documents", {"kind": "decision", "key": None}),  # resolution, pending, rules
    ("scope_documents", {"kind": "profile", "key": None}),
    ("scope_activities", {"type": None}),  # lineage, the activities listing
    ("find_assertions_subject", {"subject": "small", "project": None}),  # forget's target
    # Every recall that returns a message: the turns around it (session 22: it sought every
    # tenant's episodes recorded by `known`).
    ("recall_conversations", {"size": 2, "known": EPOCH + timedelta(days=1), "queries": [
        {"i": 0, "scope": "small", "channel": "chat", "source": None, "episode_id": "none",
         "around": EPOCH + timedelta(minutes=1)}]}),
    # Every recall: the matches and the corpus statistics (a count of the tenant's documents).
    ("recall_episodes", {"known": EPOCH + timedelta(days=1),
                         "query": 'scope:"small" AND recall_text:(lisbon OR harbour)'}),
    ("recall_facts", {"known": EPOCH + timedelta(days=1),
                      "query": 'scope:"small" AND recall_text:(vegetarian OR lisbon)'}),
])
def test_a_small_tenants_read_passes_none_of_a_big_tenants_rows(
        driver: Driver, name: str, params: dict[str, Any]) -> None:
    with driver.session() as session:
        result = session.run("PROFILE " + load(name), {"scope": "small", **params})
        answered = result.data()
        summary = result.consume()
    assert summary.profile is not None
    steps = _rows(summary.profile)
    assert max(rows for _, rows in steps) <= SMALL, steps
    if name == "recall_episode_vector_backlog":
        # Not vacuous: the small tenant's episodes are all there, waiting for their vectors.
        assert len(answered) == SMALL
