"""The vector index on a scope larger than its shortlist: what it finds against exact scoring
of the same stored vectors (the reference), that a supersession or a new write reaches it by
the next call, and that ``kg-memory migrate`` brings a schema 4 file's index (random-hyperplane
lists) to the sketches without re-embedding anything."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kg_memory import HashingEmbedder, Memory, StoreUnavailable
from kg_memory.services.recall_vectors import catch_up, vector_space
from kg_memory.store.protocol import VectorProbe
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact

EMBEDDER = HashingEmbedder()
FACTS = 800  # several times the shortlist (256), so the index really has to choose


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnoprstuvwz") for _ in range(rng.randint(4, 9)))


def _fill(memory: Memory, rng: random.Random, vocabulary: list[str]) -> None:
    for batch in range(0, FACTS, 200):
        memory.ingest(episode(f"op-{batch}", "user", day(0), content="", assertions=[
            fact(f"s{i}", "note", " ".join(rng.sample(vocabulary, 3)))
            for i in range(batch, batch + 200)]))


def _probe(text: str, when: object, **fields: object) -> VectorProbe:
    [vector] = EMBEDDER.embed([text])
    return VectorProbe(scope="u1", space=vector_space(EMBEDDER), vector=tuple(vector),
                       at=when, known_at=when, **fields)


def _ids(memory: Memory, probe: VectorProbe) -> list[tuple[str, int]]:
    return [(f.assertion_id, f.revision) for f in memory.store.vector_candidates(probe).facts]


def test_the_index_finds_what_exact_scoring_finds_and_never_a_superseded_revision(
    memory: Memory, clock: ManualClock
) -> None:
    rng = random.Random(11)
    vocabulary = [_word(rng) for _ in range(400)]
    _fill(memory, rng, vocabulary)
    clock.now = day(1)
    assert catch_up(memory.store, "u1", EMBEDDER) == FACTS
    # Supersede ten facts after they were filed: their old values are the queries' best
    # vector matches below, and must leave the index's candidates with their system interval.
    old = {f"s{i}": memory.asof(subject=f"s{i}", predicate="note", scope="u1").facts[0]
           for i in range(10)}
    memory.ingest(episode("op-new", "user", day(1), content="", assertions=[
        fact(f"s{i}", "note", f"replaced {i}") for i in range(10)]))
    clock.now = day(2)
    catch_up(memory.store, "u1", EMBEDDER)
    found = wanted = 0
    for i in range(30):
        text = old[f"s{i}"].value if i < 10 else " ".join(rng.sample(vocabulary, 2))
        probe = _probe(str(text), day(2), k=10, exact_below=0)
        got = memory.store.vector_candidates(probe)
        exact = _ids(memory, probe.model_copy(update={"exact": True}))
        assert len(exact) == 10
        ids = [(f.assertion_id, f.revision) for f in got.facts]
        found += len(set(ids) & set(exact))
        wanted += len(exact)
        assert all(f.system.end is None for f in got.facts)
        if i < 10:
            assert (old[f"s{i}"].assertion_id, old[f"s{i}"].revision) not in ids
    assert found / wanted >= 0.9
    # A fact written now is a candidate on the next call, through the index too.
    memory.ingest(episode("op-late", "user", day(2), content="", assertions=[
        fact("late", "note", "quokka marmalade sandwich")]))
    clock.now = day(3)
    catch_up(memory.store, "u1", EMBEDDER)
    probe = _probe("quokka marmalade", day(3), k=10, exact_below=0)
    assert memory.store.vector_candidates(probe).facts[0].subject == "late"


def _as_schema_4(db: Path) -> None:
    """Rewrite a store's vector index the way schema 4 kept it: a ``list`` per vector, no
    sketches (the triggers that keep them did not exist either)."""
    with driver.connect(db) as raw:
        raw.execute("DROP TRIGGER recall_sketches_del")
        raw.execute("DROP TRIGGER recall_sketches_close")
        raw.execute("DROP TABLE recall_sketches")
        raw.execute("ALTER TABLE recall_vectors ADD COLUMN list INTEGER NOT NULL DEFAULT 0")
        raw.execute("CREATE INDEX recall_vectors_list ON recall_vectors (scope, list)")
        raw.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")


def test_migrate_sketches_a_schema_4_vector_index_without_re_embedding(tmp_path: Path) -> None:
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    db = tmp_path / "m.db"
    clock = ManualClock(day(0))
    rng = random.Random(3)
    vocabulary = [_word(rng) for _ in range(300)]
    with Memory.open(db, clock=clock) as memory:
        _fill(memory, rng, vocabulary)
        clock.now = day(1)
        catch_up(memory.store, "u1", EMBEDDER)
        # Superseded before the migration: its copied intervals must come from the revision.
        memory.ingest(episode("op-new", "user", day(1), content="", assertions=[
            fact("s0", "note", "replaced")]))
        clock.now = day(2)
        catch_up(memory.store, "u1", EMBEDDER)
        queries = [" ".join(rng.sample(vocabulary, 2)) for _ in range(10)]
        before = [_ids(memory, _probe(q, day(2), k=10, exact=True)) for q in queries]
    _as_schema_4(db)
    with pytest.raises(StoreUnavailable, match="kg-memory migrate"):
        Memory.open(db, create=False)
    assert migrate(db) == ("4", SCHEMA_VERSION)
    with driver.connect(db) as raw:
        columns = {r[1] for r in raw.execute("PRAGMA table_info(recall_vectors)")}
        vectors = raw.execute("SELECT count(*) FROM recall_vectors").fetchone()[0]
        sketches = raw.execute("SELECT count(*) FROM recall_sketches").fetchone()[0]
        revisions = raw.execute("SELECT count(*) FROM versions").fetchone()[0]
        closed = raw.execute("SELECT count(*) FROM recall_sketches WHERE sys_to IS NOT NULL"
                             ).fetchone()[0]
    assert "list" not in columns
    assert vectors == sketches == revisions > FACTS  # the supersession's revisions too
    assert closed == 1
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)  # again: nothing changes
    with Memory.open(db, clock=clock, create=False) as memory:
        assert catch_up(memory.store, "u1", EMBEDDER) == 0  # nothing re-embedded
        after = [_ids(memory, _probe(q, day(2), k=10, exact_below=0)) for q in queries]
        exact = [_ids(memory, _probe(q, day(2), k=10, exact=True)) for q in queries]
        assert exact == before
        hits = sum(len(set(a) & set(b)) for a, b in zip(after, before, strict=True))
        assert hits / sum(len(b) for b in before) >= 0.9
        # The migrated index keeps working: a new write is sketched and superseded as usual.
        memory.ingest(episode("op-late", "user", day(2), content="", assertions=[
            fact("late", "note", "quokka marmalade sandwich")]))
        clock.now = day(3)
        assert catch_up(memory.store, "u1", EMBEDDER) == 1
        probe = _probe("quokka marmalade", day(3), k=10, exact_below=0)
        assert memory.store.vector_candidates(probe).facts[0].subject == "late"


def test_the_exact_search_reads_only_its_own_scopes_vectors(tmp_path: Path) -> None:
    """The under-fill fallback scores a scope exactly: it must seek that scope's vectors, not
    scan every tenant's (it did, 18 ms a probe at 1e6 and growing with the store)."""
    from kg_memory.store.sqlite import recall_vectors

    with Memory.open(tmp_path / "m.db", clock=ManualClock(day(1))) as memory:
        memory.ingest(episode("op", "user", day(0), content="", assertions=[
            fact("s", "note", "a few words")]))
    with driver.connect(tmp_path / "m.db") as raw:
        for sql in (recall_vectors._ELIGIBLE,
                    recall_vectors._ELIGIBLE + " AND r.vid IN (?, ?)"):
            plan = [row[3] for row in raw.execute(
                "EXPLAIN QUERY PLAN " + sql, [0] * sql.count("?"))]
            assert not [step for step in plan if step.startswith("SCAN")], plan
