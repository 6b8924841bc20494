"""A supporting episode's fingerprint is the fingerprint of its current content (issue 16).

Schema 7 stores each episode's ``fingerprint(content)`` with the episode instead of hashing the
content on every lookup. Rules protected:

- a served fact's support carries the fingerprint of the episode's content as it is now: as
  written, after a forget cuts a quoted residue out of it, and after a forget redacts it (empty
  content) while it still supports another fact; on both backends, in ``asof`` and
  ``Store.supports`` alike;
- the mirror (``neo4j sync``) serves the same fingerprints and its episodes keep their shape
  (no stored fingerprint: a Neo4j episode derives it from its content);
- a schema 6 file is refused with its reason until ``kg-memory migrate`` upgrades it; the
  migration fills every episode's fingerprint from its content (redacted ones included),
  queues nothing for the mirror, keeps every answer, and is a no-op the second time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kg_memory import Memory
from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.store.sqlite import driver
from tests.conftest import BACKENDS, ManualClock, MemoryFactory, day, episode, fact
from tests.test_forgetting_copies import REQUEST, _quoted_request


def _support_fingerprints(memory: Memory, subject: str, predicate: str) -> dict[str, str]:
    [served] = memory.asof(subject=subject, predicate=predicate).facts
    found = {s.episode_id: s.fingerprint for s in served.supported_by}
    by_parts = memory.store.supports([served.assertion_id])[served.assertion_id]
    assert {s.episode_id: s.fingerprint for s in by_parts} == found
    return found


def _content(memory: Memory, episode_id: str) -> str:
    [stored] = memory.store.episodes([episode_id])
    return stored.content


def test_a_support_fingerprint_follows_a_residue_cut_of_its_episode(
    make_memory: MemoryFactory,
) -> None:
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    drain, request, _ = _quoted_request(memory, clock)
    assert _support_fingerprints(memory, "u1", "timezone") == {request: fingerprint(REQUEST)}
    assert memory.forget(f"assertion:{drain}@u1").residues_redacted > 0
    cut = _content(memory, request)
    assert cut != REQUEST  # the quote went, the rest of the episode stayed
    assert _support_fingerprints(memory, "u1", "timezone") == {request: fingerprint(cut)}


def test_a_redacted_episode_supports_with_the_fingerprint_of_empty_content(
    make_memory: MemoryFactory,
) -> None:
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    both = memory.ingest(episode("both", "user", day(0), content="I'm vegan and live in Porto.",
                                 assertions=[fact("ana", "diet", "vegan"),
                                             fact("ana", "city", "Porto")]))
    clock.now = day(1)
    [diet] = [e.assertion_id for e in both.effects
              if e.assertion_id and e.key == "ana.diet"]
    memory.forget(f"assertion:{diet}@u1")
    assert _content(memory, both.episode_id) == ""  # kept for the city, its content dropped
    assert _support_fingerprints(memory, "ana", "city") == {both.episode_id: fingerprint("")}


def _fill(db: Path, clock: ManualClock) -> tuple[str, str]:
    """A store with copies (same words, other case and spacing), a cut and a redaction."""
    with Memory.open(db, clock=clock) as memory:
        memory.ingest(episode("a", "user", day(0), content="I am  Vegan.",
                              assertions=[fact("ana", "diet", "vegan")]))
        clock.now = day(1)
        memory.ingest(episode("b", "user", day(1), content="i am vegan.",
                              assertions=[fact("ana", "diet", "vegan")]))
        both = memory.ingest(episode("c", "user", day(1), content="Ben is in Porto and Oslo.",
                                     assertions=[fact("ben", "city", "Porto"),
                                                 fact("ben", "trip", "Oslo")]))
        clock.now = day(2)
        [trip] = [e.assertion_id for e in both.effects
                  if e.assertion_id and e.key == "ben.trip"]
        memory.forget(f"assertion:{trip}@u1")
        clock.now = day(3)
        return (memory.asof(subject="ana").model_dump_json(),
                memory.asof(subject="ben").model_dump_json())


def test_migrate_fills_the_fingerprints_of_a_schema_6_file(tmp_path: Path) -> None:
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    db = tmp_path / "m.db"
    clock = ManualClock(day(0))
    before = _fill(db, clock)
    with driver.connect(db) as raw:
        written = dict(raw.execute("SELECT episode_id, fingerprint FROM episodes"))
        raw.execute("ALTER TABLE episodes DROP COLUMN fingerprint")  # as schema 6 had it
        raw.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
        outbox = raw.execute("SELECT max(seq) FROM outbox").fetchone()[0]
    with pytest.raises(StoreUnavailable, match=r"has schema 6, .* run `kg-memory migrate`"):
        Memory.open(db, create=False)
    assert migrate(db) == ("6", SCHEMA_VERSION)
    with driver.connect(db) as raw:
        rows = raw.execute("SELECT episode_id, content, fingerprint FROM episodes").fetchall()
        assert raw.execute("SELECT max(seq) FROM outbox").fetchone()[0] == outbox
        triggers = {r[0] for r in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {e: f for e, _, f in rows} == written  # what the write path had stored
    assert all(f == fingerprint(c) for _, c, f in rows)
    assert "" in {c for _, c, _ in rows}  # the redacted episode was among them
    assert "outbox_episodes_upd" in triggers  # put back after the fill
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)  # again: nothing changes
    with Memory.open(db, clock=clock, create=False) as memory:
        after = (memory.asof(subject="ana").model_dump_json(),
                 memory.asof(subject="ben").model_dump_json())
        [diet] = memory.asof(subject="ana").facts
        assert diet.corroboration.mentions == 1  # the copies still count once
        # The restored trigger still queues a change of an episode for the mirror.
        memory.forget(f"assertion:{diet.assertion_id}@u1")
    assert after == before
    with driver.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM outbox WHERE seq > ? AND tbl = 'episodes'",
                           [outbox]).fetchone()[0] > 0


@pytest.mark.neo4j
@pytest.mark.skipif("neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j")
def test_the_mirror_serves_the_same_fingerprints_and_keeps_its_episode_shape(
    tmp_path: Path,
) -> None:
    """The stored fingerprint is the embedded store's read cache: ``neo4j sync`` leaves it out
    of the mirrored episodes (a Neo4j episode derives it from its content, as one written
    directly does), and the mirror's supports carry the same fingerprints, redaction included."""
    from neo4j import GraphDatabase

    from kg_memory import Neo4jStore
    from kg_memory.store.neo4j.mirror import sync
    from kg_memory.store.sqlite import SqliteStore

    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    clock = ManualClock(day(0))
    _fill(tmp_path / "m.db", clock)
    with Memory.open(tmp_path / "m.db", clock=clock, create=False) as memory, \
            Neo4jStore.connect(uri) as target:
        target.wipe()
        assert isinstance(memory.store, SqliteStore)
        assert sync(memory.store, target).status == "complete"
        mirror = Memory(target, clock=clock)
        for subject in ("ana", "ben"):
            assert mirror.asof(subject=subject).model_dump() == \
                memory.asof(subject=subject).model_dump()
        [city] = mirror.asof(subject="ben").facts
        assert [s.fingerprint for s in city.supported_by] == [fingerprint("")]  # redacted
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    with GraphDatabase.driver(uri, auth=auth) as driver:
        records, _, _ = driver.execute_query(
            "MATCH (e:Episode) RETURN count(e) AS n, "
            "count(CASE WHEN e.fingerprint IS NOT NULL THEN 1 END) AS carrying")
    assert records[0]["n"] == 3
    assert records[0]["carrying"] == 0
