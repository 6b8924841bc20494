"""Words as people mean them (issue 26): recall's terms are stemmed so a word finds its
derivations, and a fact's subject and predicate are searchable as words.

Both backends index the terms of kg_memory.domain.recall_text, so both are asked the same
questions. A store indexed with the terms before Snowball (schema 11 on the embedded store, a
Neo4j store without the ``recall_terms`` mark) is indexed again: by ``kg-memory migrate`` on
the embedded store, on connect on Neo4j, after which the same questions find the same facts.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kg_memory.domain.recall_text as recall_text
from kg_memory import Memory
from kg_memory.domain.embedding import HashingEmbedder
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact


def _old_stem(token: str) -> str:
    """The hand rules recall used before Snowball (schema 11), to write a store as they did."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 5 and token.endswith("ing"):
        token = token[:-3]
    elif len(token) > 4 and token.endswith("ed"):
        token = token[:-2]
    elif len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        token = token[:-1]
    if len(token) > 5 and token.endswith("er"):
        token = token[:-2]
    return token[:-1] if len(token) > 4 and token.endswith("e") else token


def _facts(memory: Memory) -> None:
    memory.ingest(episode("e1", "user", day(1), content="note", assertions=[
        fact("u1", "allergy", "peanuts"),
        fact("bestFriend", "homeCity", "Lisbon"),
        fact("u1", "diet", "pescatarian")]))
    memory.ingest(episode("e2", "user", day(2),
                          content="I'm allergic to shellfish as well, sadly"))


def _found(memory: Memory, query: str, *, facts: bool = True) -> list[str]:
    answer = memory.recall(query, scope="u1", include_episodes=not facts)
    return [f"{h.subject}.{h.predicate}={h.value}" if h.type == "fact" else h.content
            for h in answer.results]


def test_a_question_in_other_words_finds_the_fact(memory: Memory, clock: ManualClock) -> None:
    _facts(memory)
    clock.now = day(3)
    assert _found(memory, "what is the user allergic to") == ["u1.allergy=peanuts"]
    assert _found(memory, "any allergies?") == ["u1.allergy=peanuts"]
    assert "I'm allergic to shellfish as well, sadly" in _found(
        memory, "food allergy", facts=False)


def test_a_fact_subject_and_predicate_are_words(memory: Memory, clock: ManualClock) -> None:
    _facts(memory)
    clock.now = day(3)
    assert _found(memory, "my best friend's home city") == ["bestFriend.homeCity=Lisbon"]
    assert _found(memory, "which city is home") == ["bestFriend.homeCity=Lisbon"]
    assert _found(memory, "the user's diets") == ["u1.diet=pescatarian"]


def test_migrate_indexes_a_schema_11_store_again_with_the_new_terms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    db, clock = tmp_path / "old.db", ManualClock()
    with monkeypatch.context() as patch:
        patch.setattr(recall_text, "stem", _old_stem)
        with Memory.open(db, clock=clock) as memory:
            _facts(memory)
            memory.recall("diet", scope="u1", embedder=HashingEmbedder())  # vectors, old text
    with driver.connect(db) as raw:  # as schema 11 left it
        raw.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")
        raw.execute("DELETE FROM meta WHERE key = 'recall_terms'")
        texts = {r[0] for k in range(16) for r in raw.execute(
            f"SELECT text FROM recall_facts_{k}")}
    assert "u1 allergy peanut" in texts  # the old terms
    with pytest.raises(StoreUnavailable, match="kg-memory migrate"):
        Memory.open(db, clock=clock, create=False)  # opening never re-indexes
    assert migrate(db) == ("11", SCHEMA_VERSION)
    with driver.connect(db) as raw:
        texts = {r[0] for k in range(16) for r in raw.execute(
            f"SELECT text FROM recall_facts_{k}")}
        stats = raw.execute("SELECT * FROM recall_stats ORDER BY scope, corpus").fetchall()
        recount = raw.execute(
            "SELECT 'u1', 'episode', count(*), sum(length) FROM recall_episode_docs UNION ALL "
            "SELECT 'u1', 'fact', count(*), sum(length) FROM recall_fact_docs").fetchall()
    assert "u1 allerg peanut" in texts
    assert "best friend home citi lisbon" in texts
    assert stats == recount  # the statistics are the new lengths
    with driver.connect(db) as raw:  # a vector embedded from a text that changed is gone
        assert raw.execute("SELECT count(*) FROM recall_vectors").fetchone()[0] == 1
        assert raw.execute("SELECT count(*) FROM recall_vector_backlog").fetchone()[0] == 2
    clock.now = day(3)
    with Memory.open(db, clock=clock, create=False) as memory:
        assert _found(memory, "what is the user allergic to") == ["u1.allergy=peanuts"]
        assert _found(memory, "my best friend's home city") == ["bestFriend.homeCity=Lisbon"]
        memory.recall("diet", scope="u1", embedder=HashingEmbedder())  # embeds them again
        report = memory.check()
        assert report.ok, [v.model_dump() for v in report.violations]
    with driver.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM recall_vectors").fetchone()[0] == 3
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)  # again: nothing changes


@pytest.mark.neo4j
def test_neo4j_indexes_recall_text_of_older_terms_again_on_connect(
        clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    from kg_memory.store.neo4j import Neo4jStore
    from kg_memory.store.neo4j.store import _SCHEMA_READY

    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    memory = Memory(Neo4jStore.connect(uri, clock=clock), clock=clock)
    try:
        memory.store.wipe()  # type: ignore[attr-defined]
        with monkeypatch.context() as patch:
            patch.setattr(recall_text, "stem", _old_stem)
            _facts(memory)
            memory.recall("diet", scope="u1", embedder=HashingEmbedder())  # vectors, old text
        with memory.store._driver.session() as session:  # type: ignore[attr-defined]
            session.run("MATCH (m:Meta {key: 'recall_terms'}) SET m.value = 'hand-rules'"
                        ).consume()
        clock.now = day(3)
        assert _found(memory, "what is the user allergic to") == []
    finally:
        memory.close()
    _SCHEMA_READY.clear()  # a new process: the connect-time upgrade runs
    memory = Memory(Neo4jStore.connect(uri, clock=clock), clock=clock)
    try:
        with memory.store._driver.session() as session:  # type: ignore[attr-defined]
            [row] = session.run(
                "MATCH (a:Assertion) RETURN count(a.recall_vector) AS vectors").data()
        assert row["vectors"] == 1  # a vector embedded from a text that changed is gone
        assert _found(memory, "what is the user allergic to") == ["u1.allergy=peanuts"]
        assert _found(memory, "my best friend's home city") == ["bestFriend.homeCity=Lisbon"]
        report = memory.check()
        assert report.ok, [v.model_dump() for v in report.violations]
    finally:
        memory.close()
