"""Neo4j schema 3: instants as ``DATETIME``, values as their own types, and the migration of a
database that schema 2 wrote (``kg-memory neo4j migrate``).

The schema 2 database is ``fixtures/neo4j_schema2.cypher``, written in the shape of that
version's queries (integer microseconds, JSON text); the test loads it, proves the store refuses
it, migrates it and reads every kind of record back exactly.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neo4j import Driver, GraphDatabase
from neo4j.time import DateTime
from typer.testing import CliRunner

from kg_memory import INTEGRITY_EXIT, Memory, StoreNeedsMigration
from kg_memory.cli import app
from kg_memory.domain.change import Draft
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, Channel, EndReason, Episode, Kind, Qualifiers
from kg_memory.services.check import check
from kg_memory.store.neo4j import Neo4jStore
from kg_memory.store.neo4j.migrate import convert_node
from kg_memory.store.neo4j.rows import iso, opt_iso, props_hash, revision_hash, version_from_props
from kg_memory.store.protocol import AsOfQuery, Slot
from tests.conftest import ROOT, ManualClock
from tests.test_check import build_history

URI = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
FIXTURE = ROOT / "tests" / "fixtures" / "neo4j_schema2.cypher"
T1 = datetime(2026, 2, 14, 20, 0, 0, 123456, tzinfo=UTC)
T2 = datetime(2026, 2, 15, 8, 30, 0, 1, tzinfo=UTC)
VALID_2 = datetime(2026, 2, 15, 8, 30, tzinfo=UTC)


# -- the conversion, without a server ------------------------------------------------------


SCHEMA2_REVISION = {
    "assertion_id": "as_3", "revision": 1, "scope": "u1", "subject": "ana",
    "predicate": "guests", "project": "c1", "value": "3",
    "qualifiers": '{"project":"c1","exceptions":["audits"]}', "kind": "stated",
    "writer": "user", "depends_on": [], "confidence": 1.0, "valid_from": -1,
    "sys_from": 1771099200123456, "reason": "asserted", "recorded_by": "ep_1"}


def test_a_schema2_revision_converts_exactly() -> None:
    converted = convert_node("Assertion", SCHEMA2_REVISION)
    digest = converted.pop("content_hash")
    kept = {k: v for k, v in SCHEMA2_REVISION.items() if k != "qualifiers"}
    assert converted == {
        **kept, "value": 3, "exceptions": ["audits"],
        "valid_from": datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), "sys_from": T1}
    assert digest == revision_hash(version_from_props(converted))
    for text, value in [('"3"', "3"), ("true", True), ("4.5", 4.5), ('"true"', "true")]:
        assert convert_node("Assertion", {**SCHEMA2_REVISION, "value": text})["value"] == value


_text = st.text(min_size=1, max_size=8)
_when = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                     timezones=st.just(UTC))


@st.composite
def _revisions(draw: st.DrawFn) -> Assertion:
    start = draw(_when)
    end = draw(st.none() | st.datetimes(min_value=start.replace(tzinfo=None)
                                        + timedelta(microseconds=1),
                                        max_value=datetime(9999, 12, 31),
                                        timezones=st.just(UTC)))
    return Assertion(
        assertion_id=draw(_text), revision=draw(st.integers(1, 9)), scope=draw(_text),
        subject=draw(_text), predicate=draw(_text),
        value=draw(st.one_of(st.text(max_size=8), st.integers(), st.booleans(),
                             st.floats(allow_nan=False, allow_infinity=False))),
        qualifiers=Qualifiers(project=draw(st.none() | _text),
                              exceptions=tuple(draw(st.lists(_text, max_size=2)))),
        kind=draw(st.sampled_from(Kind)), writer=draw(_text),
        depends_on=tuple(draw(st.lists(_text, max_size=2))),
        confidence=draw(st.floats(0.0, 1.0)), valid=Interval(start=start, end=end),
        system=Interval(start=draw(_when)), reason=draw(st.sampled_from(EndReason)),
        recorded_by=draw(_text))


@given(_revisions())
def test_the_mirrors_digest_of_stored_properties_is_the_revisions_digest(v: Assertion) -> None:
    """Sync digests a revision from the properties it stores, without building the model:
    the same digest as the model's, for every value type, open end and project."""
    props = {"assertion_id": v.assertion_id, "scope": v.scope, "subject": v.subject,
             "predicate": v.predicate, "value": v.value,
             "project": v.qualifiers.project or "",
             "exceptions": list(v.qualifiers.exceptions), "kind": v.kind.value,
             "writer": v.writer, "depends_on": list(v.depends_on), "confidence": v.confidence,
             "reason": v.reason.value, "recorded_by": v.recorded_by}
    assert props_hash(props, iso(v.valid.start), opt_iso(v.valid.end),
                      iso(v.system.start)) == revision_hash(v)


# -- against the server ----------------------------------------------------------------------

def _driver() -> Driver:
    password = os.environ.get("NEO4J_PASSWORD")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), password) if password else None
    return GraphDatabase.driver(URI, auth=auth, notifications_min_severity="OFF")


@pytest.fixture
def schema2() -> Iterator[None]:
    """An empty database, then the schema 2 fixture loaded into it."""
    with Neo4jStore.connect(URI) as store:
        store.wipe()
    with _driver() as driver, driver.session() as session:
        session.run("MATCH (m:Meta) DETACH DELETE m").consume()
        session.run(FIXTURE.read_text(encoding="utf-8")).consume()
    yield
    with _driver() as driver, driver.session() as session:
        # Leave a database the next test's store opens (a failed migration leaves schema 2).
        session.run("MATCH (n) DETACH DELETE n").consume()


@pytest.mark.neo4j
def test_the_store_refuses_a_schema2_database_and_names_the_migration(schema2: None) -> None:
    with pytest.raises(StoreNeedsMigration, match="kg-memory neo4j migrate"):
        Neo4jStore.connect(URI)
    result = CliRunner().invoke(app, ["asof", "--store", URI, "--all-scopes", "--json"])
    assert result.exit_code == 3, result.output
    assert "kg-memory neo4j migrate" in result.output


@pytest.mark.neo4j
def test_migrate_converts_every_record_exactly_in_batches(schema2: None) -> None:
    result = CliRunner().invoke(
        app, ["neo4j", "migrate", "--uri", URI, "--batch-size", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    # 4 revisions + 2 episodes + 1 entity + 1 activity + 1 refusal + 1 block + 1 document;
    # 6 edges with a `since`; batches of 2.
    assert (report["from_version"], report["to_version"]) == ("2", "3")
    assert (report["nodes"], report["edges"]) == (11, 6)
    assert report["batches"] >= 8
    with Neo4jStore.connect(URI) as store:
        diet = store.asof(AsOfQuery(subject="ana", predicate="diet", valid_at=T1, known_at=T1))
        assert [(v.assertion_id, v.revision, v.value, v.valid.start, v.system.start,
                 v.system.end) for v in diet] == [("as_1", 1, "vegetarian", T1, T1, T2)]
        later = store.asof(AsOfQuery(subject="ana", valid_at=T2, known_at=T2))
        assert sorted((v.assertion_id, v.revision, v.value) for v in later) == [
            ("as_2", 1, "vegan"), ("as_3", 1, 3)]
        history = store.history("ana", "diet")
        assert [(v.assertion_id, v.revision, v.valid.end, v.system.end, v.closed_by)
                for v in history] == [("as_1", 1, None, T2, "ep_2"),
                                      ("as_1", 2, VALID_2, None, None),
                                      ("as_2", 1, None, None, None)]
        [guests] = store.history("ana", "guests")
        assert guests.value == 3
        assert isinstance(guests.value, int)
        assert (guests.qualifiers.project, guests.qualifiers.exceptions) == ("c1", ("audits",))
        assert guests.confidence == 0.75
        assert guests.depends_on == ("ana",)
        [support] = store.supports(["as_1"])["as_1"]
        assert (support.episode_id, support.occurred_at) == ("ep_1", T1)
        assert {(e.type.value, e.since) for e in store.edges("as_1", "u1")} == {
            ("SUPPORTS", T1), ("SUPERSEDES", T2), ("ABOUT", T1)}
        assert [(e.episode_id, e.occurred_at, e.recorded_at)
                for e in store.episodes(["ep_1", "ep_2"])] == [
            ("ep_1", T1, T1), ("ep_2", VALID_2, T2)]
        [block] = store.blocks()
        assert block.created_at == datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
        assert block.revoked_at == T2
        [activity] = store.activities()
        assert (activity.started_at, activity.ended_at) == (T2, None)
        [refusal] = store.refusals()
        assert refusal.at == T2
        assert store.mirror_cursor() == 7  # a counter, not an instant: left as it was
        assert check(store).ok, check(store)
    # The system-time counter carried over exactly: with a clock behind it, the next writes are
    # 1 µs after the last migrated system time, then 1 µs later again.
    with Neo4jStore.connect(URI, clock=lambda: T1) as store:
        with store.transaction("u1") as tx:
            assert tx.now == T2 + timedelta(microseconds=1)
        with store.transaction("u1") as tx:
            assert tx.now == T2 + timedelta(microseconds=2)
    again = CliRunner().invoke(app, ["neo4j", "migrate", "--uri", URI, "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["nodes"] == 0


@pytest.mark.neo4j
def test_instants_are_stored_as_datetimes() -> None:
    with Neo4jStore.connect(URI) as store:
        store.wipe()
        with store.transaction("u1") as tx:
            tx.add_episode(Episode(episode_id="ep_t", operation_id="op-t", source="user",
                                   channel=Channel.CHAT, content="x", occurred_at=T1,
                                   recorded_at=tx.now, scope="u1"), "h")
    with _driver() as driver, driver.session() as session:
        row = session.run("MATCH (e:Episode {episode_id: 'ep_t'}) "
                          "RETURN e.occurred_at AS at, "
                          "e.occurred_at = datetime('2026-02-14T20:00:00.123456Z') AS same"
                          ).single()
    assert row is not None
    assert isinstance(row["at"], DateTime)
    assert row["same"]


instants = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                        timezones=st.just(UTC))


@pytest.mark.neo4j
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(occurred=instants)
def test_every_microsecond_round_trips(occurred: datetime) -> None:
    with Neo4jStore.connect(URI) as store:
        with store.transaction("rt") as tx:
            tx.add_episode(Episode(episode_id=f"ep_rt_{occurred.timestamp()}",
                                   operation_id=f"op-{occurred.isoformat()}", source="user",
                                   channel=Channel.CHAT, content="", occurred_at=occurred,
                                   recorded_at=tx.now, scope="rt"), "h")
        [back] = store.episodes([f"ep_rt_{occurred.timestamp()}"])
    assert back.occurred_at == occurred
    assert back.occurred_at.tzinfo is UTC


_EXAMPLES = itertools.count(int(datetime.now(UTC).timestamp() * 1e6))


@pytest.mark.neo4j
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(occurred=instants, valid=instants)
def test_every_microsecond_round_trips_through_a_batch(occurred: datetime,
                                                       valid: datetime) -> None:
    """A batch sends its instants as text and its planner reads them back as text: an
    episode's and a revision's instants come back exactly, both from the stored DATETIME and
    through the next batch's prefetch."""
    # Ids of their own: hypothesis may draw the same instants again.
    scope, subject = "rtb", f"s{next(_EXAMPLES)}"
    episode = Episode(episode_id=f"ep_rtb_{subject}", operation_id=f"op-{subject}",
                      source="user", channel=Channel.CHAT, content="", occurred_at=occurred,
                      recorded_at=valid, scope=scope)
    draft = Draft(assertion_id=f"as_rtb_{subject}", scope=scope, subject=subject,
                  predicate="p", value="v", kind=Kind.STATED, writer="user",
                  valid=Interval(start=valid), reason=EndReason.ASSERTED,
                  recorded_by=episode.episode_id)
    slot = Slot(scope=scope, subject=subject, predicate="p")
    with Neo4jStore.connect(URI) as store:
        with store.batch(), store.transaction(scope) as unit:
            unit.add_episode(episode, "h")
            written = unit.insert_version(draft)
        [back] = store.episodes([episode.episode_id])
        assert (back.occurred_at, back.recorded_at) == (occurred, valid)
        with store.batch(), store.transaction(scope) as planned:
            assert planned.episode_by_operation(episode.operation_id) == (episode, "h")
            assert planned.live_versions(slot) == [written]
        assert store.versions([draft.assertion_id]) == [written]


@pytest.mark.neo4j
def test_a_revision_changed_behind_the_adapter_is_reported_by_check() -> None:
    """Neo4j nodes are not immutable: the adapter stores a digest with every revision, and
    ``kg-memory check`` re-computes it. A closure (the one change a revision gets) is clean; a
    value, a valid time or a writer edited in Browser is not."""
    with Neo4jStore.connect(URI) as store:
        store.wipe()
    clock = ManualClock()
    with Memory(Neo4jStore.connect(URI, clock=clock), clock=clock) as memory:
        build_history(memory, clock)  # supersessions, retirements, a retraction, a forget
        assert memory.check().ok
    edits = ["a.value = 'tampered'", "a.valid_from = datetime('2000-01-01T00:00Z')",
             "a.writer = 'mallory'"]
    with _driver() as driver, driver.session() as session:
        tags = [session.run(
            "MATCH (a:Assertion) WITH a ORDER BY a.assertion_id, a.revision SKIP $n LIMIT 1 "
            f"SET {edit} RETURN a.assertion_id + '#' + toString(a.revision) AS tag",
            n=n).single(strict=True)["tag"] for n, edit in enumerate(edits)]
    result = CliRunner().invoke(app, ["check", "--store", URI, "--json"])
    assert result.exit_code == INTEGRITY_EXIT, result.output
    found = [v for v in json.loads(result.output)["violations"]
             if v["rule"] == "revision-modified"]
    assert sorted(v["ids"][0] for v in found) == sorted(tags)
