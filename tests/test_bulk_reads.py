"""The set-based reads a forget run plans with give, per id, what the one-id reads give.

Rules protected: ``Store.edges_of(ids, scope)`` is ``Store.edges(id, scope)`` for each id (every
id present, ``[]`` for one with no edges, an edge between two listed nodes listed under both,
another scope's edges never), ``Store.links_of`` is ``edges_of`` as ``(src, type, dst)`` in the
same order, ``Store.entity_ids`` is the ids asked about among ``entities(scope)``,
``Store.subject_assertions`` is the set of ids ``history`` lists,
``Transaction.live_dependents_many`` is ``live_dependents`` per key, and
``Transaction.delete_entities`` is ``delete_entity`` of each: on both backends. On the
embedded store, the residue search's ``find_assertions(scope)`` is served by an index (it used
to scan every version of every scope, so a forget grew with the store), and the outbox key
marking, now one SQL statement, marks what a plain reference of its rule marks.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory import Memory
from kg_memory.domain.model import Edge
from kg_memory.store.link_reads import Revision
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, day, episode, fact


def _seed(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(0)
    for scope in ("u1", "u2"):
        memory.ingest(episode(f"a-{scope}", "user", day(0), scope=scope,
                              entities=[{"entity_id": "R1", "name": "Table 4"}],
                              assertions=[fact("R1", "venue", "Sushi Ko"),
                                          fact("ana", "diet", "veg", depends_on=["R1"])]))
        clock.now = day(1)
        memory.ingest(episode(f"b-{scope}", "user", day(1), scope=scope, assertions=[
            fact("ana", "diet", "vegan", depends_on=["R1", "fact:R1/venue"]),
            fact("bob", "city", "Oslo", depends_on=["fact:ana/diet"])]))


def _nodes(memory: Memory) -> list[str]:
    found = {"R1", "ana", "bob", "nobody"}
    for scope in ("u1", "u2"):
        for e in memory.store.edges("R1", scope) + memory.store.edges("ana", scope):
            found |= {e.src, e.dst}
    return sorted(found)


def _key(edges: list[Edge]) -> list[tuple[str, str, str, object]]:
    return sorted((e.src, e.type.value, e.dst, e.since) for e in edges)


def test_edges_of_is_edges_of_each_node(memory: Memory, clock: ManualClock) -> None:
    _seed(memory, clock)
    nodes = _nodes(memory)
    assert len(nodes) > 6
    for scope in ("u1", "u2", None):
        bulk = memory.store.edges_of(nodes, scope)
        assert set(bulk) == set(nodes)
        for node in nodes:
            assert _key(bulk[node]) == _key(memory.store.edges(node, scope)), (node, scope)
    assert memory.store.edges_of(["nobody"], "u1") == {"nobody": []}
    assert memory.store.edges_of([], "u1") == {}


def test_links_of_are_edges_of_without_models(memory: Memory, clock: ManualClock) -> None:
    _seed(memory, clock)
    nodes = _nodes(memory)
    for scope in ("u1", "u2", None):
        edges = memory.store.edges_of(nodes, scope)
        assert memory.store.links_of(nodes, scope) == {
            node: [(e.src, e.type, e.dst) for e in edges[node]] for node in nodes}, scope
    assert memory.store.links_of(["nobody"], "u1") == {"nobody": []}
    assert memory.store.links_of([], "u1") == {}


def test_revisions_are_versions_as_records(memory: Memory, clock: ManualClock) -> None:
    """The forget plan's lean read: every revision of each id, the same fields and the same
    order as ``versions`` (closed and open, projects, values that are not text)."""
    _seed(memory, clock)
    clock.now = day(2)
    memory.ingest(episode("c-u1", "user", day(2), assertions=[
        fact("ana", "diet", "pescatarian", qualifiers={"project": "p1"}),
        fact("bob", "age", 41), fact("bob", "tall", True)]))
    for scope in ("u1", "u2"):
        ids = memory.store.find_assertions(scope=scope)
        assert len(ids) >= 3
        expected = [Revision.of(v) for v in memory.store.versions(ids)]
        assert memory.store.revisions(ids) == expected, scope
        assert {r.believed for r in expected} == {True, False}, scope
    assert {r.project for r in memory.store.revisions(memory.store.find_assertions(scope="u1"))
            } >= {None, "p1"}
    assert memory.store.revisions(["nobody"]) == []
    assert memory.store.revisions([]) == []


def test_entity_ids_are_the_entities_asked_about(memory: Memory, clock: ManualClock) -> None:
    _seed(memory, clock)
    asked = ["R1", "ana", "bob", "nobody", "R1", *_nodes(memory)]
    for scope in ("u1", "u2", None):
        known = {e.entity_id for e in memory.store.entities(scope)}
        assert memory.store.entity_ids(asked, scope) == known & set(asked), scope
    assert "R1" in memory.store.entity_ids(["R1"], "u2")  # not vacuous
    assert memory.store.entity_ids(["R1"], "u3") == frozenset()
    assert memory.store.entity_ids([], "u1") == frozenset()


def test_subject_assertions_are_the_ids_history_lists(memory: Memory, clock: ManualClock
                                                      ) -> None:
    _seed(memory, clock)
    for scope in ("u1", "u2", None):
        bulk = memory.store.subject_assertions(["R1", "ana", "bob", "nobody"], scope)
        for subject in ("R1", "ana", "bob", "nobody"):
            assert bulk[subject] == {v.assertion_id
                                     for v in memory.store.history(subject, scope=scope)}
    assert memory.store.subject_assertions(["ana"], "u1")["ana"]  # not vacuous


def test_live_dependents_many_is_live_dependents_of_each_key(
    memory: Memory, clock: ManualClock
) -> None:
    _seed(memory, clock)
    [venue] = [v.assertion_id for v in memory.store.history("R1", scope="u1")]
    diets = sorted({v.assertion_id for v in memory.store.history("ana", "diet", scope="u1")
                    if v.system.end is None})
    keys = ["R1", venue, *diets, "nobody"]
    with memory.store.transaction("u1") as tx:
        bulk = tx.live_dependents_many(keys)
        one = {k: tx.live_dependents(k) for k in keys}
    assert set(bulk) == set(keys)
    for key in keys:
        assert sorted((v.assertion_id, v.revision) for v in bulk[key]) == sorted(
            (v.assertion_id, v.revision) for v in one[key])
    assert bulk["R1"]  # not vacuous
    assert any(bulk[d] for d in diets)


def test_delete_entities_deletes_each_in_its_scope_only(memory: Memory, clock: ManualClock
                                                        ) -> None:
    _seed(memory, clock)
    with memory.store.transaction("u1") as tx:
        tx.delete_entities(["R1", "R1", "nobody"])
    assert [e.entity_id for e in memory.store.entities("u1")] == ["ana", "bob"]
    assert [e.entity_id for e in memory.store.entities("u2")] == ["R1", "ana", "bob"]
    assert memory.store.edges("R1", "u1") == []
    assert memory.store.edges("R1", "u2")


def test_the_residue_search_reads_a_scope_through_an_index(tmp_path: object) -> None:
    from pathlib import Path

    clock = ManualClock(day(0))
    with Memory.open(Path(str(tmp_path)) / "m.db", clock=clock) as memory:
        _seed(memory, clock)
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        try:
            assert memory.store.find_assertions("u1")
            assert memory.store.find_assertions("u1", "ana", "di*")
        finally:
            conn.set_trace_callback(None)
        reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        assert len(reads) == 2
        for sql in reads:  # traced with the values bound: EXPLAIN them as they ran
            plan = " / ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
            assert "SCAN versions" not in plan, plan


def _scans(plan: list[str]) -> list[str]:
    """Plan lines that read a whole stored table: not the join's own list of keys (``w``, its
    constant rows) nor a full-text shard's rowid lookup (``VIRTUAL TABLE INDEX 0:=``)."""
    return [line for line in plan if line.startswith("SCAN ") and line != "SCAN w"
            and not line.endswith("CONSTANT ROWS") and "VIRTUAL TABLE INDEX 0:=" not in line]


def test_a_sync_slice_seeks_the_rows_behind_its_keys(tmp_path: object) -> None:
    """Issue 16: a sync read each slice's entities and edges with ``(a, b) IN (VALUES ...)``,
    which SQLite plans as a scan of the whole table, so every slice read the store once and
    the sync slowed as the store grew. Every read of a slice must be served by an index."""
    from pathlib import Path

    clock = ManualClock(day(0))
    with Memory.open(Path(str(tmp_path)) / "m.db", clock=clock) as memory:
        _seed(memory, clock)
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        try:
            changes = memory.store.outbox.changes(0, 1000)  # type: ignore[attr-defined]
        finally:
            conn.set_trace_callback(None)
        assert changes is not None
        assert changes.edges
        assert changes.entities
        reads = [s for s in statements if s.lstrip().upper().startswith(("SELECT", "WITH"))]
        assert any("entities" in s for s in reads)
        assert any("edges" in s for s in reads)
        for sql in reads:  # traced with the values bound: EXPLAIN them as they ran
            plan = [r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql)]
            assert not _scans(plan), (sql[:80], plan)


_SEP = chr(31)
_IDS = ["R1", "R2", "a" + _SEP + "b", "é", "x y", "R1" + _SEP]


def _reference_marks(rows: list[tuple[int, str, str]], scope: str, keys: list[str]) -> set[int]:
    """The rule, written plainly: a key of this scope naming an erased id as an entity's own
    key (its first part) or as an edge's src or dst (exactly three parts)."""
    erased, prefix, marked = set(keys), scope + _SEP, set()
    for seq, tbl, key in rows:
        if not key.startswith(prefix):
            continue
        parts = key[len(prefix):].split(_SEP)
        if (tbl == "entities" and parts[0] in erased) or (
                tbl == "edges" and len(parts) == 3 and erased & {parts[0], parts[2]}):
            marked.add(seq)
    return marked


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["u1", "u1" + _SEP, "u10", "u"]),
                          st.sampled_from(["entities", "edges", "versions"]),
                          st.sampled_from(_IDS), st.sampled_from(["ABOUT", "A" + _SEP + "B"]),
                          st.sampled_from(_IDS)), max_size=25),
       st.lists(st.sampled_from(_IDS), min_size=1, max_size=3))
def test_forget_keys_marks_what_the_rule_names(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[str, str, str, str, str]], keys: list[str],
) -> None:
    with Memory.open(tmp_path_factory.mktemp("outbox") / "m.db") as memory:
        conn: driver.Connection = memory.store._conn  # type: ignore[attr-defined]
        written: list[tuple[int, str, str]] = []
        for scope, tbl, src, kind, dst in rows:
            key = _SEP.join([scope, src, kind, dst] if tbl == "edges" else [scope, src])
            seq = conn.execute("INSERT INTO outbox (tbl, key) VALUES (?, ?) RETURNING seq",
                               (tbl, key)).fetchone()[0]
            written.append((seq, tbl, key))
        with memory.store.transaction("u1") as tx:
            tx.forget_keys(keys)
        marked = {r[0] for r in conn.execute("SELECT seq FROM outbox_erased")}
        assert marked == _reference_marks(written, "u1", keys)
