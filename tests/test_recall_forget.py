"""Forgetting reaches recall's indexes: no erased term is searchable, and none is left in any
byte of the embedded store's files (FTS5 content, index segments, doclists), even after the
index was split over many segments, where FTS5 keeps a deleted term until they merge."""

from __future__ import annotations

from pathlib import Path

from kg_memory import Memory
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

#: One token (letters and digits), so the index stores it as one term. Scanned without its
#: first letters too: FTS5 prefix-compresses a term against the one before it on a page.
CANARY = "zqxcanary7f3aconcise"


def _plant(memory: Memory, clock: ManualClock) -> str:
    clock.now = day(0)
    planted = memory.ingest(episode(
        "jo-1", "user", day(0), content=f"For Cedar keep reports {CANARY} please",
        assertions=[fact("j17", "report_format", f"{CANARY} except audits",
                         qualifiers={"project": "c1"})]))
    for n in range(300):  # many transactions: many FTS5 segments around the canary's
        clock.now = day(0.001 * (n + 1))
        memory.ingest(episode(f"other-{n}", "user", clock.now, content=f"note {n} on cedar",
                              assertions=[fact(f"s{n}", "note", f"cedar report {n}")]))
    clock.now = day(1)
    return planted.episode_id


def test_forget_leaves_no_byte_of_an_erased_term_in_the_fts5_index(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        episode_id = _plant(memory, clock)
        found = memory.recall(CANARY, scope="u1")
        assert {h.type for h in found.results} == {"fact", "episode"}

        def files_with_canary() -> list[str]:
            needles = (CANARY.encode(), CANARY[3:].encode())
            return [p.name for p in store_dir.iterdir()
                    if any(n in p.read_bytes() for n in needles)]

        assert files_with_canary()  # it really was stored (so the scan can fail)
        report = memory.forget(f"episode:{episode_id}@u1")
        assert report.status == "complete"
        assert memory.recall(CANARY, scope="u1").status == "empty"
        assert files_with_canary() == []
        # The rest is still searchable, and the corpus counts no longer include the erased.
        assert memory.recall("cedar note 7", scope="u1").status == "ok"


def test_forget_leaves_no_byte_of_an_erased_vector_in_the_store(tmp_path: Path) -> None:
    from kg_memory import HashingEmbedder
    from kg_memory.store.sqlite import driver

    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    embedder = HashingEmbedder()
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        episode_id = _plant(memory, clock)
        found = memory.recall(CANARY, scope="u1", include_episodes=False, embedder=embedder)
        [hit] = [h for h in found.results if h.subject == "j17"]
        assert hit.score.vector is not None
        with driver.connect(store_dir / "m.db") as raw:
            [(blob,)] = raw.execute(
                "SELECT r.vector FROM recall_vectors r JOIN versions v ON v.vid = r.vid "
                "WHERE v.assertion_id = ?", (hit.id,)).fetchall()
            [(sketch,)] = raw.execute(
                "SELECT s.sketch FROM recall_sketches s JOIN versions v ON v.vid = s.vid "
                "WHERE v.assertion_id = ?", (hit.id,)).fetchall()
            vectors = raw.execute("SELECT count(*) FROM recall_vectors").fetchone()[0]
            sketches = raw.execute("SELECT count(*) FROM recall_sketches").fetchone()[0]
        assert vectors == sketches == 301  # every revision of the scope was filed

        # The whole vector, and its densest 64-byte slice (a sparse vector is mostly zero
        # floats, and zeros are everywhere in a file).
        start = max(range(0, len(blob) - 64, 4),
                    key=lambda i: sum(blob[j:j + 4] != bytes(4) for j in range(i, i + 64, 4)))
        # The sketch too: 32 bytes of sign bits, as distinctive as the vector it summarises.
        needles = (blob, blob[start:start + 64], sketch)
        assert len(set(sketch)) > 8
        assert sum(blob[j:j + 4] != bytes(4) for j in range(start, start + 64, 4)) >= 4

        def files_with_vector() -> list[str]:
            return [p.name for p in store_dir.iterdir()
                    if any(n in p.read_bytes() for n in needles)]

        assert files_with_vector()  # it really was stored (so the scan can fail)
        assert any(sketch in p.read_bytes() for p in store_dir.iterdir())
        assert memory.forget(f"episode:{episode_id}@u1").status == "complete"
        assert files_with_vector() == []
        with driver.connect(store_dir / "m.db") as raw:
            assert raw.execute("SELECT count(*) FROM recall_vectors").fetchone()[0] == 300
            assert raw.execute("SELECT count(*) FROM recall_sketches").fetchone()[0] == 300
        after = memory.recall("concise audits", scope="u1", include_episodes=False,
                              embedder=embedder)
        assert all(h.subject != "j17" for h in after.results)


def test_forgotten_records_are_never_candidates_again(make_memory: MemoryFactory,
                                                      clock: ManualClock) -> None:
    memory = make_memory(clock)
    episode_id = _plant(memory, clock)
    before = memory.recall(f"{CANARY} report", scope="u1", known_at=day(0.5))
    assert any(CANARY in h.content for h in before.results)
    report = memory.forget(f"episode:{episode_id}@u1")
    assert report.status == "complete"
    for known in (day(0.0001), day(0.5), None):  # at every system time, not only now
        answer = memory.recall(f"{CANARY} report", scope="u1", known_at=known)
        assert all(CANARY not in h.content for h in answer.results)
        assert CANARY not in str([h.model_dump() for h in answer.results])
    destinations = {d["destination"]: d["status"] for d in report.destinations}
    assert set(destinations.values()) == {"complete"}
    if "neo4j" in destinations:  # the server's full-text indexes are a destination of their own
        assert "neo4j-fulltext" in destinations


def test_a_store_from_before_recall_is_indexed_by_migrate(tmp_path: Path) -> None:
    import pytest

    from kg_memory import StoreUnavailable
    from kg_memory.store.sqlite import driver
    from kg_memory.store.sqlite.recall_shards import SHARDS
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    db = tmp_path / "m.db"
    clock = ManualClock(day(0))
    with Memory.open(db, clock=clock) as memory:
        memory.ingest(episode("op-1", "user", day(0), content="Ana is vegetarian",
                              assertions=[fact("ana", "diet", "vegetarian")]))
    # What a version 2 file (tenancy, before recall) looks like: no recall tables or counters.
    with driver.connect(db) as raw:
        for k in range(SHARDS):
            for kind in ("versions_del", "episodes_redact", "episodes_del"):
                raw.execute(f"DROP TRIGGER recall_{kind}_{k}")
            raw.execute(f"DROP TABLE recall_facts_{k}")
            raw.execute(f"DROP TABLE recall_episodes_{k}")
        raw.execute("DROP TRIGGER recall_versions_close")
        for table in ("recall_fact_docs", "recall_episode_docs", "recall_stats"):
            raw.execute(f"DROP TABLE {table}")
        raw.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    with pytest.raises(StoreUnavailable, match="kg-memory migrate"):
        Memory.open(db, create=False)
    assert migrate(db) == ("2", SCHEMA_VERSION)
    clock.now = day(1)
    with Memory.open(db, clock=clock, create=False) as memory:
        answer = memory.recall("vegetarian", scope="u1")
        assert {h.type for h in answer.results} == {"fact", "episode"}
        assert answer.results[0].score.bm25 > 0
