"""Forgetting leaves no copy (issue 11, items 5 and 6).

5. The entities a forgotten episode alone created go with it (ids and names), and so do the
   embedded store's outbox keys naming them; the canary used to stay in the .db file.
6. Copies that no lineage edge leads to (the user's deletion request quoting the content, an
   audit row, another episode pasting it) are found in the same scope, listed by the dry run
   and cut out span by span, keeping the rest of the episode and what it supports.

Every test here failed on the main of 2026-12-01 (0ab05c2).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kg_memory import Memory, SqliteStore
from kg_memory.store.sqlite import driver
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact
from tests.test_forgetting import files_holding

CANARY = "CANARY-5b1e-entity"
ENDPOINT = "stream.example/aurora"
SAID = f"The log drain endpoint is {ENDPOINT}."
REQUEST = f"{SAID} Please delete that from your memory. Also, my timezone is CET."


def _entity_episodes(memory: Memory, clock: ManualClock) -> str:
    """One episode introducing entities with the canary in an id and a name, one other."""
    clock.now = day(0)
    first = memory.ingest(episode(
        "ent-a", "user", day(0), content="Met the drain vendor.",
        entities=[{"entity_id": f"{CANARY}-vendor", "type": "org", "name": f"{CANARY} name"},
                  {"entity_id": "shared-project", "type": "project"}],
        assertions=[fact(f"{CANARY}-subject", "kind", "vendor")]))
    clock.now = day(1)
    memory.ingest(episode("ent-b", "user", day(1), mentions=["shared-project"],
                          assertions=[fact("ana", "diet", "vegetarian")]))
    clock.now = day(2)
    return first.episode_id


def test_forgetting_an_episode_erases_the_entities_it_alone_created(
    make_memory: MemoryFactory,
) -> None:
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    gone = _entity_episodes(memory, clock)
    names = {e.entity_id for e in memory.entities()}
    assert {f"{CANARY}-vendor", f"{CANARY}-subject", "shared-project", "ana"} <= names
    planned = memory.forget(f"episode:{gone}@u1", dry_run=True)
    assert planned.plan.entities == (f"{CANARY}-subject", f"{CANARY}-vendor")
    report = memory.forget(f"episode:{gone}@u1")
    assert report.status == "complete"
    left = memory.entities()
    assert not [e for e in left if CANARY in e.entity_id or CANARY in (e.name or "")]
    # Referred to by a retained episode, or the subject of a retained fact: kept.
    assert {"shared-project", "ana"} <= {e.entity_id for e in left}
    assert memory.forget(f"episode:{gone}@u1").status == "nothing-to-forget"


def test_no_byte_of_an_entity_id_or_name_remains_outbox_keys_included(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        gone = _entity_episodes(memory, clock)
        assert files_holding(store_dir, CANARY)
        assert memory.forget(f"episode:{gone}@u1").status == "complete"
        assert files_holding(store_dir, CANARY) == []
    assert _outbox_keys(store_dir, CANARY) == []
    assert _outbox_keys(store_dir, "shared-project")  # what the mirror needs of the rest stays


def _outbox_keys(store_dir: Path, text: str) -> list[str]:
    conn = driver.connect(store_dir / "m.db")
    keys = [r[0] for r in conn.execute("SELECT key FROM outbox")]
    conn.close()
    return [k for k in keys if text in k]


def test_outbox_keys_wait_for_a_mirror_that_has_not_applied_them(tmp_path: Path) -> None:
    """Dropping the keys before an unreachable mirror deleted the entity would leave it there
    for ever: the run reports incomplete, keeps the keys, and a re-run finishes."""
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        gone = _entity_episodes(memory, clock)
        assert isinstance(memory.store, SqliteStore)
        memory.store.set_mirror("bolt://127.0.0.1:1")
        assert memory.forget(f"episode:{gone}@u1").status == "incomplete"
        assert _outbox_keys(store_dir, CANARY)  # the mirror still has to delete the entity
        conn = driver.connect(store_dir / "m.db")
        conn.execute("DELETE FROM meta WHERE key = 'mirror_uri'")  # the mirror is retired
        conn.commit()
        conn.close()
        assert memory.forget(f"episode:{gone}@u1").status == "nothing-to-forget"
    assert files_holding(store_dir, CANARY) == []


def _quoted_request(memory: Memory, clock: ManualClock) -> tuple[str, str, str]:
    clock.now = day(0)
    said = memory.ingest(episode("said", "user", day(0), content=SAID,
                                 assertions=[fact("u1", "log_drain", ENDPOINT)]))
    [drain] = [e.assertion_id for e in said.effects if e.assertion_id]
    clock.now = day(1)
    # Someone else's words quoting it: refused by the writer gate, kept in the audit.
    memory.ingest(episode("vendor", "vendor", day(1), content="Config sync.",
                          assertions=[fact("u1", "log_drain", ENDPOINT)]))
    memory.ingest(episode("pasted", "user", day(1),
                          content="note: the LOG drain   endpoint is Stream.Example/Aurora",
                          assertions=[fact("u1", "editor", "helix")]))
    clock.now = day(2)
    request = memory.ingest(episode("request", "user", day(2), content=REQUEST,
                                    assertions=[fact("u1", "timezone", "CET")]))
    clock.now = day(3)
    return drain, request.episode_id, said.episode_id


def test_the_deletion_request_keeps_its_other_fact_but_not_the_quote(
    make_memory: MemoryFactory,
) -> None:
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    drain, request, said = _quoted_request(memory, clock)
    assert any(ENDPOINT in r.what for r in memory.refusals("u1"))
    planned = memory.forget(f"assertion:{drain}@u1", dry_run=True)
    assert planned.plan.erase == (said,)
    where = {(r.where, r.node) for r in planned.plan.residues}
    assert ("episode", request) in where
    assert {w for w, _ in where} == {"episode", "refusal"}
    assert planned.residues_found == 3  # the request, the pasted note, the audit row
    assert ENDPOINT not in planned.model_dump_json()  # the dry run lists places, not text

    report = memory.forget(f"assertion:{drain}@u1")
    assert report.status == "complete"
    assert (report.residues_found, report.residues_redacted) == (3, 3)
    [tz] = memory.asof(subject="u1", predicate="timezone").facts
    assert tz.value == "CET"
    assert [s.episode_id for s in tz.supported_by] == [request]
    [kept] = memory.store.episodes([request])
    assert ENDPOINT.casefold() not in kept.content.casefold()
    assert "Please delete that from your memory. Also, my timezone is CET." in kept.content
    assert memory.asof(subject="u1", predicate="editor").values() == ["helix"]
    everything = " ".join(
        [e.content for e in memory.store.scope_episodes("u1")]
        + [r.what for r in memory.refusals("u1")]
        + [memory.asof(day(1), day(2)).model_dump_json()]
    ).casefold()
    assert ENDPOINT.casefold() not in everything
    assert memory.refusals("u1")  # the audit row stays, without the quote


def test_no_byte_of_the_quoted_content_remains_in_any_store_file(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        drain, _, _ = _quoted_request(memory, clock)
        assert files_holding(store_dir, ENDPOINT)
        assert memory.forget(f"assertion:{drain}@u1").status == "complete"
        assert files_holding(store_dir, ENDPOINT) == []
        assert files_holding(store_dir, "Stream.Example/Aurora") == []


def test_keep_residues_lists_and_counts_them_but_cuts_nothing(
    make_memory: MemoryFactory,
) -> None:
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    drain, request, _ = _quoted_request(memory, clock)
    report = memory.forget(f"assertion:{drain}@u1", keep_residues=True)
    assert (report.residues_found, report.residues_redacted) == (3, 0)
    [kept] = memory.store.episodes([request])
    assert kept.content == REQUEST


def test_short_values_are_not_hunted_through_other_text(make_memory: MemoryFactory) -> None:
    """A value under 8 characters ("veg") is too common to cut out of everything else."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    veg = memory.ingest(episode("v", "user", day(0), content="Ana is veg.",
                                assertions=[fact("ana", "diet", "veg")]))
    memory.ingest(episode("b", "user", day(0), content="Ben is veg too, says Ana is veg.",
                          assertions=[fact("ben", "diet", "veg-ish")]))
    clock.now = day(1)
    report = memory.forget(f"episode:{veg.episode_id}@u1")
    assert report.residues_found == 0
    assert [e.content for e in memory.store.scope_episodes("u1")] == [
        "Ben is veg too, says Ana is veg."]


def test_a_partly_forgotten_episode_lends_only_its_quoting_sentences(
    make_memory: MemoryFactory,
) -> None:
    """An episode that also supports a retained fact is redacted as a whole, but only its
    sentences quoting the erased value are hunted elsewhere: the rest may be what is kept."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    both = memory.ingest(episode("both", "user", day(0), content=f"Ana is vegetarian. {SAID}",
                                 assertions=[fact("ana", "diet", "vegetarian"),
                                             fact("u1", "log_drain", ENDPOINT)]))
    drain = [e.assertion_id for e in both.effects if e.assertion_id][-1]
    memory.ingest(episode("again", "user", day(0), content=f"Ana is vegetarian. {SAID} Bye.",
                          assertions=[fact("ana", "diet", "vegetarian")]))
    clock.now = day(1)
    report = memory.forget(f"assertion:{drain}@u1")
    assert report.plan.redact == (both.episode_id,)
    assert report.residues_redacted == 1
    assert [e.content for e in memory.store.scope_episodes("u1")] == [
        "", "Ana is vegetarian. [forgotten] Bye."]


@pytest.mark.neo4j
def test_a_synced_mirror_loses_the_entity_before_its_outbox_keys_go(tmp_path: Path) -> None:
    """With a mirror, the forget run first propagates (the mirror deletes the entity by the
    keys), then the keys go from the outbox: neither side keeps the canary."""
    from kg_memory.store.neo4j import Neo4jStore
    from kg_memory.store.neo4j.mirror import sync

    target = Neo4jStore.connect(os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687"))
    target.wipe()
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    try:
        with Memory.open(store_dir / "m.db", clock=clock) as memory:
            gone = _entity_episodes(memory, clock)
            assert isinstance(memory.store, SqliteStore)
            sync(memory.store, target)
            mirrored = Memory(target, clock=clock)
            assert [e for e in mirrored.entities() if CANARY in e.entity_id]
            report = memory.forget(f"episode:{gone}@u1")
            assert [d["status"] for d in report.destinations] == ["complete", "complete"]
            assert not [e for e in mirrored.entities() if CANARY in e.entity_id]
            assert "shared-project" in {e.entity_id for e in mirrored.entities()}
        assert _outbox_keys(store_dir, CANARY) == []
        assert files_holding(store_dir, CANARY) == []
    finally:
        target.close()


def _forget_a_mention(memory: Memory, clock: ManualClock) -> None:
    first = memory.ingest(episode("a", "user", day(0), content="Met someone.", resolve=[
        {"key": "z", "name": "Zedwina Canarius", "identifiers": {"user_id": "z1"}}],
        assertions=[fact("@z", "role", "pilot")]))
    clock.now = day(1)
    memory.ingest(episode("b", "user", day(1), content="Again.", resolve=[
        {"key": "z", "name": "Zed Okafor", "identifiers": {"user_id": "z1"}}],
        assertions=[fact("@z", "city", "Oslo")]))
    [entity] = memory.entities("u1")
    assert entity.name == "Zedwina Canarius"
    clock.now = day(2)
    assert memory.forget(f"episode:{first.episode_id}@u1").status == "complete"


def test_a_forgotten_mention_leaves_no_name_in_the_identity_it_fed(
    make_memory: MemoryFactory,
) -> None:
    """The entity stays (a kept episode resolved to it too), but the name only the forgotten
    mention gave it goes: from its display name, its profile and the kept decision that quoted
    it as evidence."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    _forget_a_mention(memory, clock)
    [entity] = memory.entities()
    assert entity.name == "Zed Okafor"
    profile = memory.profile(entity.entity_id)
    assert profile is not None
    assert profile.names == ("Zed Okafor",)
    [decision] = memory.decisions()
    assert decision.decision.mention.name == "Zed Okafor"
    assert "Canarius" not in decision.model_dump_json()
    assert memory.asof(subject=entity.entity_id).values() == ["Oslo"]
    # The kept fact's recall text carried its subject's name: it is indexed again without it.
    assert memory.recall("Canarius", scope="u1").status == "empty"
    found = memory.recall("Okafor", scope="u1").results
    assert "Oslo" in [r.value for r in found]


def test_a_forget_renames_an_entity_of_its_own_scope_only(make_memory: MemoryFactory) -> None:
    """Another tenant's entity of the same id keeps its name when this one's is forgotten."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    memory.ingest(episode("u2-a", "user", day(0), scope="u2", content="Met someone.",
                          entities=[{"entity_id": "ent_same", "type": "person",
                                     "name": "Zedwina Canarius"}],
                          assertions=[fact("ent_same", "role", "pilot")]))
    _forget_a_mention(memory, clock)
    [theirs] = memory.entities("u2")
    assert theirs.name == "Zedwina Canarius"


def test_no_byte_of_a_forgotten_mention_name_remains_blocking_keys_included(
    tmp_path: Path,
) -> None:
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        _forget_a_mention(memory, clock)
    assert files_holding(store_dir, "Canarius") == []
    assert files_holding(store_dir, "canarius") == []  # the blocking keys are casefolded


def test_the_cli_dry_run_lists_residues_and_keep_residues_keeps_them(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from kg_memory.cli import app

    clock = ManualClock(day(0))
    store = tmp_path / "m.db"
    with Memory.open(store, clock=clock) as memory:
        drain, request, _ = _quoted_request(memory, clock)
    runner = CliRunner(env={"COLUMNS": "200"})
    dry = runner.invoke(app, ["forget", f"assertion:{drain}@u1", "--dry-run", "--wide",
                              "--store", str(store)])
    assert dry.exit_code == 0, dry.output
    assert re.search(rf"residue \(episode, 1\)\s+{request}", dry.output), dry.output
    assert "residues: 3 found, 3 redacted" in dry.output
    assert ENDPOINT not in dry.output
    kept = runner.invoke(app, ["forget", f"assertion:{drain}@u1", "--keep-residues", "--json",
                               "--store", str(store)])
    assert kept.exit_code == 0, kept.output
    report = json.loads(kept.output)
    assert (report["residues_found"], report["residues_redacted"]) == (3, 0)
    with Memory.open(store, create=False) as memory:
        [episode_kept] = memory.store.episodes([request])
        assert episode_kept.content == REQUEST


def test_a_summary_quoting_the_content_is_rebuilt_from_its_own_sources(
    make_memory: MemoryFactory,
) -> None:
    """A worker wrote a summary (a derived record) from another fact but quoted the forgotten
    endpoint in it: no lineage edge leads there, so it is a residue, rebuilt from its sources."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    drain, _, _ = _quoted_request(memory, clock)
    [editor] = memory.asof(subject="u1", predicate="editor").facts
    basis = memory.read_basis("u1", "summary", [editor.assertion_id], scope="u1")
    memory.publish(basis, value=f"uses helix; logs to {ENDPOINT}")
    [summary] = memory.asof(subject="u1", predicate="summary").facts
    clock.now = day(4)
    planned = memory.forget(f"assertion:{drain}@u1", dry_run=True)
    assert ("record", summary.assertion_id) in {(r.where, r.node) for r in planned.plan.residues}
    report = memory.forget(f"assertion:{drain}@u1")
    assert report.residues_redacted == report.residues_found == 4
    [rebuilt] = memory.asof(subject="u1", predicate="summary").facts
    assert ENDPOINT not in str(rebuilt.value)
    assert "helix" in str(rebuilt.value)
    assert not [h for h in memory.history("u1", "summary") if ENDPOINT in str(h.version.value)]
