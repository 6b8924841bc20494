"""A forget on the embedded store reads through indexes only, so it grows with what it forgets
and with its scope, not with the store (issue 16).

Rules protected: every statement a forget run issues (planning, the transaction, the scrub) is
served by an index on the tables that grow with the store: no ``SCAN`` of versions, episodes,
entities, edges, refusals, dependencies, documents, activities, meta or the outbox (the
outbox key marking, the residue search's episodes and refusals, the orphan search's entities
and the scrub's shard marks each used to read their whole table); schema 6 carries the two
indexes this needs, and ``kg-memory migrate`` adds them to a schema 5 file, keeping its rows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kg_memory import Memory
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.sim.scenario import Scenario
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact

#: Tables that grow with the store (json_each and the FTS5 shards' internals are not here:
#: the first is the request's own id list, the second is searched by rowid).
GROWING = ("versions", "episodes", "entities", "edges", "refusals", "dependencies",
           "documents", "activities", "meta", "outbox", "tombstones")
_SCAN = re.compile(r"\bSCAN (\w+)")
SCHEMA_6_INDEXES = {"outbox_named", "activities_type"}


def _fill(memory: Memory, clock: ManualClock) -> None:
    """Two tenants with the same entity id, and u1's scenario episodes (with a refusal)."""
    scenario = Scenario.load()
    for record in scenario.records[:4]:
        clock.now = record.occurred_at
        memory.ingest(record)
    assert memory.refusals("u1")
    later = max(clock.now, day(0))
    for n, scope in enumerate(("u1", "u2")):
        clock.now = later + (day(1) - day(0)) * (n + 1)
        memory.ingest(episode(f"r-{scope}", "user", clock.now, scope=scope,
                              entities=[{"entity_id": "R1", "name": "Table 4"}],
                              assertions=[fact("R1", "venue", "Sushi Ko"),
                                          fact("ana", "diet", "vegetarian", depends_on=["R1"])]))
    clock.now = later + (day(1) - day(0)) * 3


def _scans(conn: driver.Connection, statements: list[str]) -> list[str]:
    found = []
    for sql in statements:
        if not sql.lstrip().upper().startswith(("SELECT", "INSERT", "DELETE", "UPDATE", "WITH")):
            continue  # BEGIN, COMMIT, PRAGMA and the FTS5 merge commands
        plan = " / ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
        found += [f"{table}: {sql[:120]} -> {plan}" for table in _SCAN.findall(plan)
                  if table in GROWING]
    return found


@pytest.mark.parametrize("selector", ["entity:R1@u1", "source:restaurant@u1"])
def test_a_forget_reads_no_growing_table_whole(tmp_path: Path, selector: str) -> None:
    clock = ManualClock(day(0))
    with Memory.open(tmp_path / "m.db", clock=clock) as memory:
        _fill(memory, clock)
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        statements: list[str] = []
        conn.set_trace_callback(statements.append)  # traced with the values bound
        try:
            report = memory.forget(selector)
        finally:
            conn.set_trace_callback(None)
        assert report.status == "complete"
        assert not report.plan.is_empty  # a real run, not an empty plan
        # Both searches ran (the residue search's episodes and refusals, the key marking).
        assert any(s.startswith("SELECT") and " refusals " in s for s in statements)
        if selector.startswith("entity"):
            assert any(s.startswith("INSERT OR IGNORE INTO outbox_erased") for s in statements)
        assert _scans(conn, statements) == []
        # Forgetting in u1 took nothing of u2's.
        assert [e.entity_id for e in memory.store.entities("u2")] == ["R1", "ana"]
        assert memory.asof(subject="ana", scope="u2").values() == ["vegetarian"]


def _as_schema_5(db: Path) -> None:
    with driver.connect(db) as raw:
        for name in SCHEMA_6_INDEXES:
            raw.execute(f"DROP INDEX {name}")
        raw.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")


def test_migrate_adds_schema_6_forget_indexes_to_a_schema_5_file(tmp_path: Path) -> None:
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    db = tmp_path / "m.db"
    clock = ManualClock(day(0))
    with Memory.open(db, clock=clock) as memory:
        _fill(memory, clock)
        before = memory.asof(subject="ana", scope="u1").values()
    _as_schema_5(db)
    with pytest.raises(StoreUnavailable, match="kg-memory migrate"):
        Memory.open(db, create=False)
    assert migrate(db) == ("5", SCHEMA_VERSION)
    with driver.connect(db) as raw:
        names = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        marks = raw.execute("SELECT count(*) FROM outbox WHERE tbl IN ('entities', 'edges')"
                            ).fetchone()[0]
        indexed = raw.execute("SELECT count(*) FROM outbox INDEXED BY outbox_named "
                              "WHERE tbl IN ('entities', 'edges') AND key >= ''").fetchone()[0]
    assert names >= SCHEMA_6_INDEXES
    assert indexed == marks > 0  # built over the rows already there
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)  # again: nothing changes
    with Memory.open(db, clock=clock, create=False) as memory:
        assert memory.asof(subject="ana", scope="u1").values() == before
        assert memory.forget("entity:R1@u1").status == "complete"
        assert "R1" not in {e.entity_id for e in memory.store.entities("u1")}
        assert [e.entity_id for e in memory.store.entities("u2")] == ["R1", "ana"]
