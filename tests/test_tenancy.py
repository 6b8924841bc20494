"""Tenancy (issue 10, findings 5-8): two tenants share one store and never each other's memory.

Each test is a finding of the adversarial review, played as the second tenant would, on both
backends: names a sender chooses (entity ids, operation ids) collide across tenants by design
here, because they will in the real world.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase
from typer.testing import CliRunner

from kg_memory import (
    AsOfAnswer,
    ConcurrencyError,
    Evidence,
    IdempotencyConflict,
    KgMemoryError,
    Memory,
    NotFound,
    Outcome,
    ScopeError,
    SqliteStore,
    StoreUnavailable,
)
from kg_memory.cli import app
from kg_memory.store.sqlite import driver
from tests.conftest import BACKENDS, ManualClock, day, episode, fact


def _in(memory: Memory, clock: ManualClock, when: datetime, op: str, source: str, scope: str,
        **fields: Any) -> None:
    clock.now = when
    memory.ingest(episode(op, source, when, scope=scope, **fields))


def _book(memory: Memory, clock: ManualClock, scope: str, when: datetime) -> None:
    """The tenant's agent books R1, owned by the restaurant; the booking depends on it."""
    _in(memory, clock, when, f"book-{scope}", "agent", scope,
        entities=[{"entity_id": "R1", "type": "booking", "owners": ["restaurant"]}],
        assertions=[fact(scope, "next_dinner", f"R1 Fri ({scope})", "world",
                         depends_on=["R1"])])


def _ana(memory: Memory, clock: ManualClock, scope: str, when: datetime, value: str) -> None:
    _in(memory, clock, when, f"ana-{scope}-{value}", "user", scope,
        entities=[{"entity_id": "ana", "type": "person", "name": f"Ana of {scope}"}],
        assertions=[fact("ana", "diet", value)])


# -- finding 5: entity ids are keyed by scope --------------------------------------------------


def test_a_second_tenants_entity_of_the_same_id_is_another_entity(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "vegetarian")
    _in(memory, clock, day(2), "ana-u2", "user", "u2",
        entities=[{"entity_id": "ana", "type": "person", "name": "Ana of u2",
                   "owners": ["stranger"]}],
        assertions=[fact("ana", "diet", "carnivore")])
    [u1_ana] = memory.scoped("u1").entities()
    [u2_ana] = memory.scoped("u2").entities()
    assert (u1_ana.name, u1_ana.owners) == ("Ana of u1", ())
    assert (u2_ana.name, u2_ana.owners) == ("Ana of u2", ("stranger",))
    assert memory.scoped("u1").asof(subject="ana").values() == ["vegetarian"]
    assert memory.scoped("u2").asof(subject="ana").values() == ["carnivore"]


def test_an_owner_event_in_one_scope_never_retires_another_scopes_facts(
    memory: Memory, clock: ManualClock
) -> None:
    _book(memory, clock, "u1", day(1))
    _book(memory, clock, "u2", day(1, 10))
    _in(memory, clock, day(2), "cancel-u2", "restaurant", "u2",
        events=[{"target": "R1", "name": "cancelled"}])
    assert memory.scoped("u2").asof(day(3), day(3), subject="u2").values() == []
    assert memory.scoped("u1").asof(day(3), day(3), subject="u1").values() == ["R1 Fri (u1)"]
    # And an owner in a scope where R1 does not exist owns nothing there.
    _in(memory, clock, day(4), "cancel-u3", "restaurant", "u3",
        events=[{"target": "R1", "name": "cancelled"}])
    assert memory.scoped("u1").asof(day(5), day(5), subject="u1").values() == ["R1 Fri (u1)"]


def test_a_forgotten_operation_id_stays_usable_by_another_tenant(
    memory: Memory, clock: ManualClock
) -> None:
    _in(memory, clock, day(1), "op-1", "user", "u1", assertions=[fact("ana", "diet", "veg")])
    clock.now = day(2)
    assert memory.forget("source:user@u1").status == "complete"
    _in(memory, clock, day(3), "op-1", "user", "u2", assertions=[fact("ana", "diet", "vegan")])
    assert memory.scoped("u2").asof(subject="ana").values() == ["vegan"]


def test_a_block_and_its_revocation_belong_to_one_scope(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    clock.now = day(2)
    report = memory.scoped("u1").forget("category:u1/ana/diet", block=True)
    assert report.block_id is not None
    _ana(memory, clock, "u2", day(3), "vegan")  # u2's collection is not blocked
    assert memory.scoped("u2").asof(subject="ana").values() == ["vegan"]
    with pytest.raises(NotFound):
        memory.scoped("u2").revoke_block(report.block_id)
    assert [b.revoked_at for b in memory.scoped("u1").blocks()] == [None]
    assert memory.scoped("u2").blocks() == []


# -- finding 6: forget selectors act within one scope --------------------------------------------


def test_forget_without_a_scope_is_refused_and_acts_in_one_scope_with_one(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    _ana(memory, clock, "u2", day(1, 10), "vegan")
    clock.now = day(2)
    for selector in ("entity:ana", "source:user", "episode:ep_x", "assertion:as_x"):
        with pytest.raises(ScopeError, match="scope"):
            memory.forget(selector)
        with pytest.raises(ScopeError):
            memory.forget(selector, dry_run=True)
    report = memory.forget("entity:ana@u2")
    assert (report.status, report.scope) == ("complete", "u2")
    assert memory.scoped("u2").asof(subject="ana").values() == []
    assert memory.scoped("u1").asof(subject="ana").values() == ["veg"]
    assert [e.entity_id for e in memory.entities("u1")] == ["ana"]
    assert memory.entities("u2") == []


def test_forget_across_every_scope_needs_the_explicit_request(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    _ana(memory, clock, "u2", day(1, 10), "vegan")
    clock.now = day(2)
    report = memory.forget("entity:ana", all_scopes=True)
    assert (report.status, report.scopes) == ("complete", ("u1", "u2"))
    assert memory.asof(subject="ana").values() == []


def test_a_scoped_handle_cannot_forget_in_another_scope(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    _ana(memory, clock, "u2", day(1, 10), "vegan")
    clock.now = day(2)
    u2 = memory.scoped("u2")
    with pytest.raises(ScopeError):
        u2.forget("entity:ana@u1")
    with pytest.raises(ScopeError):
        u2.forget("category:u1/ana/*")
    [u1_fact] = memory.scoped("u1").asof(subject="ana").facts
    # Another tenant's ids are not found in u2 (in the words a made-up id gets): nothing of
    # u1 is touched or confirmed.
    for kind, node in (("assertion", u1_fact.assertion_id),
                       ("episode", u1_fact.supported_by[0].episode_id)):
        with pytest.raises(NotFound) as caught:
            u2.forget(f"{kind}:{node}")
        assert str(caught.value) == f"no {kind} '{node}' in scope 'u2'"
    assert memory.scoped("u1").asof(subject="ana").values() == ["veg"]


def test_another_tenants_forgotten_fact_is_as_unknown_as_one_that_never_existed(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    _ana(memory, clock, "u2", day(1, 10), "vegan")
    [u2_fact] = memory.scoped("u2").asof(subject="ana").facts
    clock.now = day(2)
    assert memory.scoped("u2").forget("entity:ana").status == "complete"
    u1 = memory.scoped("u1")
    [own] = u1.asof(subject="ana").facts
    basis = u1.read_basis("ana", "profile", [own.assertion_id])
    outcomes = []
    for fact_id in (u2_fact.assertion_id, "as_00000000000000000000"):
        forged = basis.model_copy(update={"evidence": (Evidence(assertion_id=fact_id,
                                                                revision=1),)})
        with pytest.raises(KgMemoryError) as refused:
            u1.publish(forged)
        outcomes.append((type(refused.value), str(refused.value).replace(fact_id, "ID")))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] is ConcurrencyError  # not ForgottenError: u2's forget stays u2's


# -- finding 7: idempotency is per scope ---------------------------------------------------------


def test_another_tenants_operation_id_is_a_new_episode_not_a_conflict(
    memory: Memory, clock: ManualClock
) -> None:
    _in(memory, clock, day(1), "op-1", "user", "u1", content="u1's secret",
        assertions=[fact("ana", "diet", "veg")])
    clock.now = day(2)
    second = memory.ingest(episode("op-1", "user", day(2), scope="u2",
                                   assertions=[fact("ana", "diet", "vegan")]))
    assert second.status == "accepted"
    again = memory.ingest(episode("op-1", "user", day(2), scope="u2",
                                  assertions=[fact("ana", "diet", "vegan")]))
    assert (again.status, again.episode_id) == ("duplicate", second.episode_id)
    with pytest.raises(IdempotencyConflict) as conflict:  # u2's own reuse still conflicts
        memory.ingest(episode("op-1", "user", day(2), scope="u2",
                              assertions=[fact("ana", "diet", "raw")]))
    assert "u1" not in str(conflict.value)
    assert memory.scoped("u1").asof(subject="ana").values() == ["veg"]
    assert memory.scoped("u2").asof(subject="ana").values() == ["vegan"]


# -- finding 8: a scoped handle reaches nothing of another scope ---------------------------------


def test_a_scoped_handle_reads_nothing_of_another_scope(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    _in(memory, clock, day(1, 10), "claim-u2", "restaurant", "u2",
        assertions=[fact("ana", "diet", "u2-claim")])  # refused: audited in u2 only
    _ana(memory, clock, "u2", day(1, 11), "vegan")
    u1, u2 = memory.scoped("u1"), memory.scoped("u2")
    assert [e.version.value for e in u1.history("ana")] == ["veg"]
    assert (u1.refusals(), len(u2.refusals())) == ([], 1)
    [u2_fact] = u2.asof(subject="ana").facts
    [u1_fact] = u1.asof(subject="ana").facts
    with pytest.raises(NotFound):
        u1.lineage(u2_fact.assertion_id)
    with pytest.raises(NotFound):
        u1.prov([u2_fact.assertion_id])
    exported = str(u1.prov().serialize(format="json"))
    assert u1_fact.assertion_id in exported
    assert u2_fact.assertion_id not in exported
    assert u2_fact.supported_by[0].episode_id not in exported
    walked = u1.lineage(u1_fact.assertion_id)
    assert u1_fact.supported_by[0].episode_id in walked.nodes
    assert u2_fact.assertion_id not in walked.nodes
    with pytest.raises(ScopeError):
        u1.ingest(episode("x", "user", day(2), scope="u2"))
    # Another tenant's fact is no evidence here: exactly as unknown as an id never written.
    with pytest.raises(NotFound) as theirs:
        u1.read_basis("ana", "profile", [u2_fact.assertion_id])
    with pytest.raises(NotFound) as nobodys:
        u1.read_basis("ana", "profile", ["as_00000000000000000000"])
    assert str(theirs.value).replace(u2_fact.assertion_id, "ID") == str(nobodys.value).replace(
        "as_00000000000000000000", "ID")


def test_a_tenants_rule_book_reads_and_touches_its_own_rules_only(
    memory: Memory, clock: ManualClock
) -> None:
    """docs/policies.md "Limits" (until this): a scoped handle had no rule book, so a tenant's
    application held the operator's, where a missing scope reaches every tenant."""
    clock.now = day(1)
    u1, u2 = memory.scoped("u1"), memory.scoped("u2")
    seen = {s: memory.ingest(episode(f"seen-{s}", "agent", day(1), scope=s,
                                     content="a 503, then it worked")).episode_id
            for s in ("u1", "u2")}
    mine = u1.rules.propose("retry on 503", signals={"api": "v1"})
    theirs = u2.rules.propose("retry on 503", signals={"api": "v1"}, review_every_days=1)
    assert mine.rule_id != theirs.rule_id  # the same words are two tenants' two rules
    assert [r.rule_id for r in u1.rules.all()] == [mine.rule_id]
    # Another tenant's rule is exactly as unknown as one never proposed, for every call.
    touches: dict[str, Callable[[str], object]] = {
        "show": lambda rid: u2.rules.show(rid),
        "basis": lambda rid: u2.rules.basis(rid),
        "observe": lambda rid: u2.rules.observe(rid, episode_id=seen["u2"], task_id="t",
                                                scene="s"),
        "promote": lambda rid: u2.rules.promote(rid),
        "approve": lambda rid: u2.rules.approve(rid, "ana", design_change=True),
        "review": lambda rid: u2.rules.review(rid, Outcome.EXPIRE, "ana"),
        "demote": lambda rid: u2.rules.demote(rid, "ana"),
        "overturn": lambda rid: u2.rules.overturn(rid, "ana", "wrong"),
        "corrects": lambda rid: u2.rules.propose("retry twice", corrects=rid),
    }
    for name, touch in touches.items():
        with pytest.raises(NotFound) as caught:
            touch(mine.rule_id)
        with pytest.raises(NotFound) as never:
            touch("rl_0000000000000000")
        assert str(caught.value).replace(mine.rule_id, "ID") == str(never.value).replace(
            "rl_0000000000000000", "ID"), name
    with pytest.raises(NotFound):  # nor is another tenant's episode a basis
        u2.rules.observe(theirs.rule_id, episode_id=seen["u1"], task_id="t", scene="s")
    with pytest.raises(ScopeError):  # nor do its signals answer for a rule of theirs
        u2.rules.unbound(mine)
    with pytest.raises(ScopeError):
        u2.rules.bindings(mine)
    assert memory.rules.show(mine.rule_id) == mine  # untouched
    # A signal moved, and reviews come due, in the tenant's own scope only.
    clock.now = day(3)
    assert u1.rules.due() == []
    assert [r.rule_id for r in u2.rules.signal("api", "v2")] == [theirs.rule_id]
    assert (u1.rules.current_signal("api"), u2.rules.current_signal("api")) == ("v1", "v2")
    assert u1.rules.show(mine.rule_id).status == "active"
    assert u1.rules.unbound(mine) is None
    assert u1.rules.pending_review() == []
    assert [r.rule_id for r in u2.rules.pending_review()] == [theirs.rule_id]


def test_a_tenants_inlet_writes_in_its_scope_only(memory: Memory, clock: ManualClock) -> None:
    clock.now = day(1)
    chat = memory.scoped("u1").inlet("user", "chat")
    said = {"operation_id": "i-1", "occurred_at": day(1).isoformat(),
            "assertions": [fact("ana", "diet", "veg")]}
    assert chat.ingest(said).status == "accepted"
    with pytest.raises(ScopeError):
        chat.ingest({**said, "operation_id": "i-2", "scope": "u2"})
    assert memory.scoped("u1").asof(subject="ana").values() == ["veg"]
    assert memory.scoped("u2").asof(subject="ana").values() == []
    assert memory.scoped("u2").refusals() == []  # nothing of the attempt lands in u2


def test_the_operator_handle_reads_across_scopes_only_when_it_asks(
    memory: Memory, clock: ManualClock
) -> None:
    _ana(memory, clock, "u1", day(1), "veg")
    _ana(memory, clock, "u2", day(1, 10), "vegan")
    assert sorted(memory.asof(subject="ana").values()) == ["veg", "vegan"]
    assert memory.asof(subject="ana", scope="u1").values() == ["veg"]
    with pytest.raises(ScopeError, match="several scopes"):
        memory.lineage("ana")


def test_a_merge_in_one_scope_pools_facts_in_that_scope_only(
    memory: Memory, clock: ManualClock
) -> None:
    for scope in ("u1", "u2"):
        _ana(memory, clock, scope, day(1), f"{scope}-veg")
        _in(memory, clock, day(1, 10), f"bob-{scope}", "user", scope,
            entities=[{"entity_id": "bob", "type": "person"}],
            assertions=[fact("bob", "city", f"{scope}-Lyon")])
    clock.now = day(2)
    memory.scoped("u2").merge("ana", "bob", by="u2", reason="the same person")

    def pooled(answer: AsOfAnswer) -> list[str]:
        return sorted(str(f.value) for f in answer.facts if f.predicate != "same_as")

    assert pooled(memory.scoped("u2").asof(subject="ana")) == ["u2-Lyon", "u2-veg"]
    assert pooled(memory.scoped("u1").asof(subject="ana")) == ["u1-veg"]
    # The operator's view pools each scope's group within that scope.
    assert pooled(memory.asof(subject="ana")) == ["u1-veg", "u2-Lyon", "u2-veg"]


# -- the command line requires a tenant on every reading and forgetting command ----------------


def _two_tenant_store(path: Path) -> tuple[str, str]:
    """u1 and u2 each say something about their own ``ana``; returns their fact ids."""
    clock = ManualClock()
    with Memory.open(path, clock=clock) as memory:
        _ana(memory, clock, "u1", day(1), "veg")
        _ana(memory, clock, "u2", day(1, 10), "vegan")
        ids = tuple(memory.scoped(s).asof(subject="ana").facts[0].assertion_id
                    for s in ("u1", "u2"))
    return ids[0], ids[1]


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("command", [
    ["asof"], ["history", "ana"], ["refusals"], ["entities", "list"], ["entities", "show", "ana"],
    ["entities", "review"], ["blocks", "list"], ["prov", "--all"], ["lineage", "ana"],
    ["forget", "entity:ana"], ["forget", "entity:ana", "--dry-run"],
    ["entities", "resolve", "Ana"], ["entities", "merge", "ana", "bob", "--by", "u1"],
    ["entities", "unmerge", "ana", "bob", "--by", "u1"],
    ["consolidate", "ana", "profile", "--from", "as_x"],
])
def test_every_reading_writing_and_forgetting_command_needs_a_scope(
    tmp_path: Path, command: list[str]
) -> None:
    store = str(tmp_path / "m.db")
    _two_tenant_store(tmp_path / "m.db")
    code, out = _cli(*command, "--store", store)
    assert code == 2, out
    assert "--scope" in out or "@SCOPE" in out
    code, out = _cli(*command, "--store", store, "--scope", "u1", "--all-scopes")
    assert code == 2, out


def test_the_command_line_reads_and_forgets_one_tenant(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    u1_fact, u2_fact = _two_tenant_store(tmp_path / "m.db")

    def values(*args: str) -> list[object]:
        code, out = _cli(*args, "--store", store, "--json")
        assert code == 0, out
        return sorted(f["value"] for f in json.loads(out)["facts"])

    assert values("asof", "--subject", "ana", "--scope", "u1") == ["veg"]
    assert values("asof", "--subject", "ana", "--all-scopes") == ["veg", "vegan"]
    code, out = _cli("entities", "show", "ana", "--scope", "u1", "--store", store, "--json")
    assert [f["value"] for f in json.loads(out)["facts"]] == ["veg"]
    code, out = _cli("prov", "--all", "--scope", "u1", "--store", store)
    assert code == 0, out
    assert u1_fact in out
    assert u2_fact not in out
    code, out = _cli("lineage", u2_fact, "--scope", "u1", "--store", store)
    assert code == 4, out  # not found in u1, not "exists elsewhere"
    code, out = _cli("forget", "entity:ana", "--scope", "u2", "--store", store)
    assert code == 0, out
    assert values("asof", "--subject", "ana", "--all-scopes") == ["veg"]
    code, out = _cli("forget", "entity:ana@u1", "--scope", "u2", "--store", store)
    assert code == 2, out
    code, out = _cli("forget", "entity:ana", "--all-scopes", "--store", store, "--json")
    assert code == 0, out
    assert json.loads(out)["scopes"] == ["u1"]
    assert values("asof", "--subject", "ana", "--all-scopes") == []


def test_a_store_of_the_schema_before_tenancy_is_refused_with_the_reason(
    tmp_path: Path
) -> None:
    path = tmp_path / "old.db"
    conn = driver.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    conn.execute("CREATE TABLE edges (src TEXT, type TEXT, dst TEXT, since INTEGER)")
    conn.execute("CREATE TABLE episodes (episode_id TEXT PRIMARY KEY, operation_id TEXT)")
    conn.execute("CREATE TABLE versions (assertion_id TEXT, revision INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreUnavailable, match=r"schema 1.*re-ingest"):
        Memory.open(path)
    code, out = _cli("asof", "--scope", "u1", "--store", str(path))
    assert code == 3, out
    assert "schema 1" in out


@pytest.mark.neo4j
@pytest.mark.skipif("neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j")
def test_a_neo4j_database_of_the_schema_before_tenancy_is_refused() -> None:
    from kg_memory import Neo4jStore
    from kg_memory.store.neo4j.store import SCHEMA_VERSION

    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    with Neo4jStore.connect(uri) as store:
        store.wipe()
        store.run_many([("mirror_set_cursor", {"cursor": 0})])  # any write: the store is live
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    with GraphDatabase.driver(uri, auth=auth) as driver:
        driver.execute_query("MATCH (m:Meta {key: 'schema_version'}) SET m.value = '1'")
        try:
            with pytest.raises(StoreUnavailable, match=r"schema 1.*re-ingest"):
                Neo4jStore.connect(uri)
        finally:
            driver.execute_query("MATCH (m:Meta {key: 'schema_version'}) SET m.value = $version",
                                 version=SCHEMA_VERSION)


@pytest.mark.neo4j
@pytest.mark.skipif("neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j")
def test_the_neo4j_mirror_keeps_tenants_apart_and_forgets_in_one(tmp_path: Path) -> None:
    from kg_memory import Neo4jStore, sync_mirror

    clock = ManualClock()
    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    with Memory.open(tmp_path / "m.db", clock=clock) as source, \
            Neo4jStore.connect(uri, clock=clock) as target:
        target.wipe()
        for hour, scope in ((9, "u1"), (11, "u2")):
            _ana(source, clock, scope, day(1, hour), f"{scope}-veg")
            _book(source, clock, scope, day(1, hour + 1))
        clock.now = day(1, 20)
        assert isinstance(source.store, SqliteStore)
        sync_mirror(source.store, target)
        mirrored = Memory(target, clock=clock)
        for scope in ("u1", "u2"):
            assert [e.name for e in mirrored.entities(scope) if e.entity_id == "ana"] == [
                f"Ana of {scope}"]
            assert mirrored.scoped(scope).asof(subject="ana").values() == [f"{scope}-veg"]
        clock.now = day(2)
        assert source.forget("entity:ana@u2").status == "complete"  # propagates to the mirror
        assert mirrored.scoped("u2").asof(subject="ana").values() == []
        assert mirrored.scoped("u1").asof(subject="ana").values() == ["u1-veg"]
        assert [e.entity_id for e in mirrored.entities("u1")] == ["R1", "ana", "u1"]
        assert [e.entity_id for e in mirrored.entities("u2")] == ["R1", "u2"]
