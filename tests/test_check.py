"""``kg-memory check``: a store with a rich history is clean on every backend, and each kind of
violation, planted by writing to the SQLite file directly, is reported with its ids."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kg_memory import INTEGRITY_EXIT, Assertion, Memory
from kg_memory.cli.app import app
from kg_memory.domain.integrity import OutboxState, Snapshot, violations
from kg_memory.services.ingestion import episode_id_for
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.integrity import snapshot
from tests.conftest import BACKENDS, ManualClock, day, episode, fact

runner = CliRunner()


def build_history(memory: Memory, clock: ManualClock) -> dict[str, str]:
    """Supersession, an owner's event, dependencies (entity and fact), a retraction, a
    consolidated record, two episodes writing one slot, and a forget run with tombstones."""

    def at(n: float, *records: object) -> None:
        clock.now = day(n)
        for record in records:
            memory.ingest(record)  # type: ignore[arg-type]

    at(0, episode("lead", "user", day(0), assertions=[fact("team", "lead", "Mina")]),
       episode("r1", "agent", day(0), entities=[  # the agent booked it for the user
           {"entity_id": "R1", "type": "booking", "owners": ["restaurant"]}]))
    at(1, episode("rev", "user", day(1), assertions=[
        fact("reviews", "assignee", "Seoyun", depends_on=["fact:team/lead"]),
        fact("u1", "next_dinner", "R1 Fri", depends_on=["R1"])]))
    at(2, episode("diet", "user", day(2), assertions=[
        fact("ana", "diet", "vegetarian"), fact("ana", "diet", "vegan", valid_from=day(5))]))
    at(3, episode("cancel", "restaurant", day(3), events=[{"target": "R1", "name": "cancelled"}]))
    at(4, episode("lead2", "user", day(4), assertions=[fact("team", "lead", "Kai")]))
    at(5, episode("canary", "user", day(5), content="my locker code is 4471",
                  assertions=[fact("ana", "locker", "4471"), fact("ana", "city", "Lyon")]))
    at(6, episode("retract", "user", day(6),
                  retractions=[{"subject": "ana", "predicate": "city", "valid_from":
                                day(7).isoformat()}]))
    clock.now = day(7)
    diets = [f.assertion_id for f in memory.asof(day(6), subject="ana", predicate="diet").facts]
    memory.consolidate("ana", "profile", diets, scope="u1")
    clock.now = day(8)
    report = memory.forget(f"episode:{episode_id_for('u1', 'canary')}@u1")
    assert report.status == "complete", report
    return {"diet": diets[0]}


@pytest.fixture
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One clean embedded store with a rich history, copied per test."""
    path = tmp_path_factory.mktemp("base") / "base.db"
    clock = ManualClock()
    with Memory.open(path, clock=clock) as memory:
        build_history(memory, clock)
    return path


def test_a_rich_history_is_clean_on_every_backend(memory: Memory, clock: ManualClock) -> None:
    build_history(memory, clock)
    report = memory.check()
    assert report.ok, report.violations
    assert report.checked["revisions"] >= 10
    assert report.checked["tombstones"] >= 1
    assert report.checked["edges"] >= 10


def _copy(base: Path, tmp_path: Path) -> Path:
    target = tmp_path / "planted.db"
    shutil.copy(base, target)
    return target


def _check(path: Path) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(app, ["check", "--store", str(path), "--json"])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def _one(rows: list[driver.Row] | list[tuple[object, ...]]) -> tuple[object, ...]:
    assert rows, "the base store lacks what this plant needs"
    return tuple(rows[0])


def _plant_valid(db: driver.Connection) -> list[str]:
    aid, rev = _one(db.execute("SELECT assertion_id, revision FROM versions "
                               "WHERE valid_to IS NOT NULL LIMIT 1").fetchall())
    db.execute("UPDATE versions SET valid_to = valid_from WHERE assertion_id = ? AND revision = ?",
               (aid, rev))
    return [f"{aid}#{rev}"]


def _plant_system(db: driver.Connection) -> list[str]:
    aid, rev = _one(db.execute("SELECT assertion_id, revision FROM versions "
                               "WHERE sys_to IS NOT NULL LIMIT 1").fetchall())
    db.execute("UPDATE versions SET sys_to = sys_from - 1 WHERE assertion_id = ? "
               "AND revision = ?", (aid, rev))
    return [f"{aid}#{rev}"]


def _plant_overlap(db: driver.Connection) -> list[str]:
    """A second believed value for a slot that already has one, over the same valid time."""
    row = db.execute("SELECT * FROM versions WHERE sys_to IS NULL AND subject = 'team'"
                     ).fetchone()
    cols = [k for k in row.keys() if k != "vid"]  # noqa: SIM118 (a Row iterates values)
    values = {k: row[k] for k in cols}
    values.update(assertion_id="as_planted_overlap", revision=1, value='"Zoe"')
    db.execute(f"INSERT INTO versions ({', '.join(cols)}) VALUES "
               f"({', '.join('?' for _ in cols)})", [values[k] for k in cols])
    return [f"{row['assertion_id']}#{row['revision']}", "as_planted_overlap#1"]


def _plant_reopened(db: driver.Connection) -> list[str]:
    aid, rev = _one(db.execute("SELECT assertion_id, revision FROM versions "
                               "WHERE sys_to IS NOT NULL AND subject = 'team'").fetchall())
    db.execute("UPDATE versions SET sys_to = NULL WHERE assertion_id = ? AND revision = ?",
               (aid, rev))
    return [f"{aid}#{rev}"]


def _plant_numbering(db: driver.Connection) -> list[str]:
    aid, rev = _one(db.execute("SELECT assertion_id, max(revision) FROM versions "
                               "GROUP BY assertion_id HAVING count(*) > 1").fetchall())
    db.execute("UPDATE versions SET revision = 0 WHERE assertion_id = ? AND revision = ?",
               (aid, rev))
    return [str(aid)]


def _plant_dangling(db: driver.Connection) -> list[str]:
    [aid] = _one(db.execute("SELECT assertion_id FROM versions LIMIT 1").fetchall())
    db.execute("INSERT INTO edges (scope, src, type, dst, since) "
               "VALUES ('u1', 'ep_nobody', 'SUPPORTS', ?, 1)",
               (aid,))
    return [f"ep_nobody-SUPPORTS->{aid}"]


def _plant_index(db: driver.Connection) -> list[str]:
    dep, aid = _one(db.execute("SELECT dep, assertion_id FROM dependencies LIMIT 1").fetchall())
    db.execute("DELETE FROM dependencies WHERE dep = ? AND assertion_id = ?", (dep, aid))
    return [str(aid), str(dep)]


def _plant_dependency(db: driver.Connection) -> list[str]:
    """Erase the fact a believed fact depends on, leaving the dependent in place."""
    aid, dep, rev = _one(db.execute(
        "SELECT v.assertion_id, d.dep, v.revision FROM versions v JOIN dependencies d "
        "USING (assertion_id) WHERE d.dep LIKE 'as_%' AND v.sys_to IS NULL").fetchall())
    db.execute("DELETE FROM versions WHERE assertion_id = ?", (dep,))
    return [f"{aid}#{rev}", str(dep)]


def _plant_tombstone(db: driver.Connection) -> list[str]:
    """Bring the forgotten episode back, content and all (what a restored backup would do)."""
    db.execute("INSERT INTO episodes (episode_id, operation_id, payload_hash, source, channel, "
               "content, occurred_at, recorded_at, scope) VALUES ('ep_back', 'canary', 'x', "
               "'user', 'chat', 'my locker code is 4471', 1, 1, 'u1')")
    return ["ep_back"]


def _plant_cycle(db: driver.Connection) -> list[str]:
    a, b = (r[0] for r in db.execute(
        "SELECT DISTINCT assertion_id FROM versions ORDER BY assertion_id LIMIT 2"))
    db.executemany("INSERT INTO edges (scope, src, type, dst, since) "
                   "VALUES ('u1', ?, 'DERIVED_FROM', ?, 1)",
                   [(a, b), (b, a)])
    return [a, b]


def _plant_outbox(db: driver.Connection) -> list[str]:
    # Since schema 14 the highest row is the issued mark (no sqlite_sequence to disagree with
    # it); a row no reader knows is what a hand edit or a newer writer leaves.
    db.execute("INSERT INTO outbox (tbl, key) VALUES ('bogus', 'x')")
    return ["tbl:bogus"]


def _plant_fingerprint(db: driver.Connection) -> list[str]:
    """A stale stored fingerprint: the content changed (or the digest was written wrong)."""
    [eid] = _one(db.execute("SELECT episode_id FROM episodes "
                            "ORDER BY content = '', episode_id LIMIT 1").fetchall())
    db.execute("UPDATE episodes SET fingerprint = '0000000000000000' WHERE episode_id = ?",
               (eid,))
    return [str(eid)]


PLANTS: dict[str, Callable[[driver.Connection], list[str]]] = {
    "valid-interval": _plant_valid,
    "system-interval": _plant_system,
    "overlap": _plant_overlap,
    "reopened": _plant_reopened,
    "revision-numbering": _plant_numbering,
    "dangling-edge": _plant_dangling,
    "dependency-index": _plant_index,
    "dependency": _plant_dependency,
    "tombstone": _plant_tombstone,
    "lineage-cycle": _plant_cycle,
    "outbox": _plant_outbox,
    "episode-fingerprint": _plant_fingerprint,
}


@pytest.mark.parametrize("rule", sorted(PLANTS))
def test_each_planted_violation_is_reported_with_its_ids(
    base: Path, tmp_path: Path, rule: str
) -> None:
    path = _copy(base, tmp_path)
    assert _check(path)[0] == 0
    db = driver.connect(path, isolation_level=None)
    db.row_factory = driver.Row
    # What the store's own guards forbid is exactly what a hand edit or a bad restore does.
    db.execute("PRAGMA ignore_check_constraints = ON")
    db.execute("DROP TRIGGER versions_immutable")
    ids = PLANTS[rule](db)
    db.close()
    code, out = _check(path)
    assert code == INTEGRITY_EXIT == 8
    assert out["ok"] is False
    found = [v for v in out["violations"] if v["rule"] == rule]
    assert found, out["violations"]
    assert any(set(ids) <= set(v["ids"]) for v in found), (ids, found)


def test_a_stored_episode_fingerprint_must_be_that_of_its_content(
    base: Path, tmp_path: Path
) -> None:
    """Rule ``episode-fingerprint``: a clean store (redacted episodes included) has none, a
    stale one is reported alone, by its episode."""
    path = _copy(base, tmp_path)
    clock = ManualClock()
    clock.now = day(9)
    with Memory.open(path, clock=clock) as memory:
        memory.ingest(episode("note", "user", day(9), content="Lunch with  Mina at NOON"))
    code, out = _check(path)
    assert code == 0, out
    assert out["checked"]["episodes"] >= 5
    with driver.connect(path, isolation_level=None) as db:
        ids = _plant_fingerprint(db)
        [content] = _one(db.execute("SELECT content FROM episodes WHERE episode_id = ?",
                                    ids).fetchall())
    assert content == "Lunch with  Mina at NOON"
    code, out = _check(path)
    assert code == 8
    assert [(v["rule"], v["ids"]) for v in out["violations"]] == [("episode-fingerprint", ids)]


def test_the_snapshot_holds_no_episode_content(tmp_path: Path) -> None:
    """The fingerprint rule reads each episode's content as its row streams past: the snapshot
    keeps two digests per episode, so ``check`` of a store of long inputs stays small."""
    path = tmp_path / "long.db"
    clock = ManualClock()
    clock.now = day(1)
    long = "a long note about the Cedar rollout " * 3_000  # about 100 kB each
    with Memory.open(path, clock=clock) as memory:
        for n in range(8):
            memory.ingest(episode(f"long{n}", "user", day(1), content=f"{n} {long}"))
    with driver.connect(path, isolation_level=None) as db:
        snap = snapshot(db, str(path))
    assert len(snap.episodes) == 8
    assert "Cedar" not in snap.model_dump_json()
    assert len(snap.model_dump_json()) < len(long)
    assert [v for v in violations(snap, b"k") if v.rule == "episode-fingerprint"] == []


def test_violations_are_listed_for_people_too(base: Path, tmp_path: Path) -> None:
    path = _copy(base, tmp_path)
    with driver.connect(path) as db:
        ids = _plant_dangling(db)
    result = runner.invoke(app, ["check", "--store", str(path)])
    assert result.exit_code == 8
    assert "dangling-edge" in result.stdout
    assert ids[0].split("-")[0] in result.stdout


@pytest.mark.parametrize("content", [b"just some text\n", b""])
def test_check_refuses_a_file_that_is_not_a_store_and_leaves_it(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    result = runner.invoke(app, ["check", "--store", str(path)])
    assert result.exit_code == 3, result.output
    assert path.read_bytes() == content


def test_check_refuses_another_applications_database(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    with driver.connect(path) as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    result = runner.invoke(app, ["check", "--store", str(path), "--json"])
    assert result.exit_code == 3
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def _snapshot(outbox: OutboxState) -> Snapshot:
    return Snapshot(location="x", versions=(), edges=(), episodes=(), activities=frozenset(),
                    tombstones=frozenset(), dependencies=frozenset(), system_time=None,
                    outbox=outbox)


@pytest.mark.parametrize(("first", "issued", "cursor", "broken"), [
    (1, 10, 0, False),   # nothing applied yet, nothing pruned
    (6, 10, 5, False),   # applied and pruned up to 5
    (None, 10, 10, False),  # everything applied and pruned
    (6, 10, 3, True),    # rows 4 and 5 were pruned before the mirror applied them
    (None, 10, 7, True),  # pruned everything, the mirror stopped at 7
    (1, 10, 12, True),   # the mirror is ahead of the file (an older copy was restored)
])
def test_the_mirror_cursor_must_lie_within_the_outbox(
    first: int | None, issued: int, cursor: int, broken: bool
) -> None:
    state = OutboxState(first=first, last=None if first is None else issued, issued=issued,
                        rows=0 if first is None else issued - first + 1,
                        mirror="bolt://m", mirror_cursor=cursor)
    found = [v.rule for v in violations(_snapshot(state), b"")]
    assert (found == ["outbox"]) is broken, found


def test_overlap_is_judged_at_every_system_time_not_only_now() -> None:
    """Two revisions closed long ago that were both believed at one moment are a violation,
    though no pair of revisions believed today overlaps."""
    def rev(aid: str, sys: tuple[int, int]) -> Assertion:
        return Assertion.model_validate({
            "assertion_id": aid, "revision": 1, "scope": "u1", "subject": "s",
            "predicate": "p", "value": aid, "kind": "stated", "writer": "user",
            "valid": {"start": datetime(2026, 1, 1, tzinfo=UTC), "end": None},
            "system": {"start": datetime(2026, 1, sys[0], tzinfo=UTC),
                       "end": datetime(2026, 1, sys[1], tzinfo=UTC)},
            "reason": "asserted", "recorded_by": "ep", "closed_by": "ep2",
            "close_reason": "superseded"})
    clean = Snapshot(location="x", versions=(rev("as_a", (1, 3)), rev("as_b", (3, 5))),
                     edges=(), episodes=(), activities=frozenset(), tombstones=frozenset(),
                     dependencies=frozenset(), system_time=None)
    assert violations(clean, b"") == []
    bad = clean.model_copy(update={"versions": (rev("as_a", (1, 4)), rev("as_b", (3, 5)))})
    assert [v.rule for v in violations(bad, b"")] == ["overlap"]


def test_a_value_replaced_within_its_own_episode_leaves_no_dangling_edges(
    memory: Memory, clock: ManualClock
) -> None:
    """Main deleted the never-visible revision but kept its SUPPORTS, ABOUT and SUPERSEDES
    edges, so `check` found edges to a fact no one can read."""
    clock.now = day(1)
    memory.ingest(episode("both", "user", day(1), assertions=[
        fact("ana", "city", "Oslo"), fact("ana", "city", "Rome")]))
    assert memory.asof(subject="ana").values() == ["Rome"]
    report = memory.check()
    assert report.ok, report.violations
    [ep] = memory.store.episodes([episode_id_for("u1", "both")])
    supported = [e.dst for e in memory.store.edges(ep.episode_id) if e.type.value == "SUPPORTS"]
    assert supported == [memory.asof(subject="ana").facts[0].assertion_id]


@pytest.mark.neo4j
@pytest.mark.skipif("neo4j" not in BACKENDS, reason="KG_TEST_BACKENDS leaves out neo4j")
def test_check_reads_the_mirror_cursor_and_finds_a_mirror_ahead_of_the_file(
    tmp_path: Path,
) -> None:
    """After a sync the cursor is within the outbox; restoring an older copy of the file puts
    the mirror ahead of it, which `check --mirror` reports."""
    import os

    from kg_memory.store.neo4j import Neo4jStore
    from kg_memory.store.neo4j.mirror import sync
    from kg_memory.store.sqlite import SqliteStore

    uri = os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687")
    target = Neo4jStore.connect(uri)
    target.wipe()
    clock = ManualClock()
    path = tmp_path / "m.db"
    with Memory.open(path, clock=clock) as memory:
        memory.ingest(episode("a", "user", day(0), assertions=[fact("ana", "diet", "veg")]))
    older = tmp_path / "older.db"
    shutil.copy(path, older)
    with Memory.open(path, clock=clock) as memory:
        clock.now = day(1)
        memory.ingest(episode("b", "user", day(1), assertions=[fact("ana", "city", "Oslo")]))
    source = SqliteStore.open(path, create=False)
    try:
        sync(source, target)
    finally:
        source.close()
        target.close()
    code, out = _check_args(path, "--mirror")
    assert code == 0, out
    with driver.connect(older) as db:  # the restored copy remembers the mirror too
        db.execute("INSERT INTO meta (key, value) VALUES ('mirror_uri', ?) "
                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (uri,))
    code, out = _check_args(older, "--mirror")
    assert code == 8
    assert [v["rule"] for v in out["violations"]] == ["outbox"]
    assert "beyond" in out["violations"][0]["detail"]


def _check_args(path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(app, ["check", "--store", str(path), "--json", *extra])
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}
