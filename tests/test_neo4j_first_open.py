"""Processes opening a new Neo4j database at once: exactly one schema version is recorded.

Found when two test workers first opened a new server together: each MERGEd a version node
(MERGE locks a key only under a uniqueness constraint, which the schema created after the
version was recorded), and from then on every open failed unpacking two rows. A new database
is simulated here by dropping the metadata constraint and the version node, and forgetting
that this process prepared the schema.
"""

from __future__ import annotations

import threading

import pytest

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j import store as store_module
from tests.conftest import NEO4J_URI

pytestmark = pytest.mark.neo4j

OPENERS = 8
ROUNDS = 4


def _as_new(store: Neo4jStore) -> None:
    with store._driver.session() as session:
        session.run("DROP CONSTRAINT meta_key IF EXISTS").consume()
        session.run("MATCH (m:Meta) DETACH DELETE m").consume()
    store_module._SCHEMA_READY.clear()


def _versions(store: Neo4jStore) -> list[str]:
    with store._driver.session() as session:
        return [r["v"] for r in session.run(
            "MATCH (m:Meta {key: 'schema_version'}) RETURN m.value AS v")]


def _open_together() -> list[BaseException]:
    barrier = threading.Barrier(OPENERS)
    failures: list[BaseException] = []

    def open_one() -> None:
        barrier.wait()
        try:
            Neo4jStore.connect(NEO4J_URI).close()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(OPENERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


def test_openers_of_a_new_database_record_one_schema_version(neo4j: Neo4jStore) -> None:
    try:
        for _ in range(ROUNDS):
            _as_new(neo4j)
            failures = _open_together()
            assert failures == []
            assert len(_versions(neo4j)) == 1
    finally:
        # Whatever happened, the next test finds one version and the constraint.
        with neo4j._driver.session() as session:
            session.run("MATCH (m:Meta) DETACH DELETE m").consume()
        store_module._SCHEMA_READY.clear()
        Neo4jStore.connect(NEO4J_URI).close()


def test_a_database_holding_two_versions_is_a_typed_error(neo4j: Neo4jStore) -> None:
    """A database an older kg-memory left with two version nodes: told so, not a traceback."""
    try:
        with neo4j._driver.session() as session:
            session.run("DROP CONSTRAINT meta_key IF EXISTS").consume()
            session.run("CREATE (:Meta {key: 'schema_version', value: 'x'})").consume()
        store_module._SCHEMA_READY.clear()
        with pytest.raises(StoreUnavailable, match="2 kg-memory schema versions"):
            Neo4jStore.connect(NEO4J_URI)
    finally:
        with neo4j._driver.session() as session:
            session.run("MATCH (m:Meta) DETACH DELETE m").consume()
        store_module._SCHEMA_READY.clear()
        Neo4jStore.connect(NEO4J_URI).close()
