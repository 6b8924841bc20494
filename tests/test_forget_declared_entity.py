"""Forgetting an entity that was only declared erases it (an adversarial pass found the gap).

Rules protected: ``forget entity:ID@SCOPE`` on an entity an episode's ``entities`` list
declared, with no fact about it and nothing depending on it, erases its id, name and type
like any forgotten entity: the dry run lists it, the run leaves a content-free tombstone (so
running it again is ``nothing-to-forget``, not a success that erased nothing, nor NotFound),
and its name (of 8 characters or more) is searched as a residue in what the run keeps and cut
out there. A name a kept entity of the scope still bears names that entity too (two people of
one name stay two people): it is not cut. On both backends, through the Python API and the CLI;
on the embedded store no byte of the name is left in the files.

Each test failed on the main of 2026-12-05 (f912dc0): the plan was empty, the run reported
``nothing-to-forget`` and the entity kept its name.
"""

from __future__ import annotations

import json
from pathlib import Path

from kg_memory import Memory
from kg_memory.services.identity import DECISION, PROFILE
from tests.cli_store import cli, store_location
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact
from tests.test_forgetting import files_holding

CANARY = "Zedwina Quarrington-7c1e"


def _seed(memory: Memory, clock: ManualClock) -> str:
    """p7 is declared (never the subject of a fact), a kept episode quotes her name, another
    says something unrelated. Returns the declaring episode's id."""
    clock.now = day(0)
    intro = memory.ingest(episode(
        "intro", "user", day(0), content=f"I met {CANARY} at the fair.",
        entities=[{"entity_id": "p7", "type": "person", "name": CANARY}]))
    clock.now = day(1)
    memory.ingest(episode("later", "user", day(1),
                          content=f"Ask {CANARY} about the stall. Ana is vegetarian.",
                          assertions=[fact("ana", "diet", "vegetarian")]))
    clock.now = day(2)
    return intro.episode_id


def _everything(memory: Memory, scope: str = "u1") -> str:
    """What the store shows of a scope: entities, episodes, identity documents, PROV."""
    store = memory.store
    parts = [e.model_dump_json() for e in store.entities(scope)]
    parts += [e.model_dump_json() for e in store.scope_episodes(scope)]
    parts += [body for kind in (PROFILE, DECISION) for body in store.documents(kind, scope)]
    parts.append(str(memory.prov(scope=scope).serialize(format="json")))
    return "\n".join(parts)


def test_forgetting_a_declared_only_entity_erases_its_id_name_and_type(
    memory: Memory, clock: ManualClock
) -> None:
    intro = _seed(memory, clock)
    assert CANARY in _everything(memory)  # it really was stored (the scan can fail)
    planned = memory.forget("entity:p7@u1", dry_run=True)
    assert planned.plan.entities == ("p7",)
    assert not planned.plan.is_empty
    run = memory.forget("entity:p7@u1")
    assert run.status == "complete"
    assert run.plan == planned.plan  # the dry run is the run
    assert "p7" not in {e.entity_id for e in memory.entities("u1")}
    # The residue scan searched the name: both episodes quoting it keep the rest of their text.
    assert run.residues_found == run.residues_redacted == 2
    assert {r.node for r in run.plan.residues} == {
        intro, *(e.episode_id for e in memory.store.scope_episodes("u1") if e.episode_id != intro)}
    assert CANARY not in _everything(memory)
    contents = sorted(e.content for e in memory.store.scope_episodes("u1"))
    assert contents == ["Ask [forgotten] about the stall. Ana is vegetarian.",
                        "I met [forgotten] at the fair."]
    assert [f.key for f in memory.asof(scope="u1").facts] == ["ana.diet"]
    report = memory.check()
    assert report.ok, [v.model_dump() for v in report.violations]
    # Its tombstone says it was forgotten: the same request again is safe.
    assert memory.forget("entity:p7@u1").status == "nothing-to-forget"


def test_a_name_a_kept_entity_still_bears_is_not_cut(
    memory: Memory, clock: ManualClock
) -> None:
    _seed(memory, clock)
    clock.now = day(3)
    memory.ingest(episode("other", "user", day(3), content="A second person, same name.",
                          entities=[{"entity_id": "p8", "type": "person", "name": CANARY}]))
    clock.now = day(4)
    run = memory.forget("entity:p7@u1")
    assert run.status == "complete"
    assert run.plan.entities == ("p7",)
    assert run.residues_found == 0
    left = {e.entity_id: (e.name, e.type) for e in memory.entities("u1")}
    assert "p7" not in left
    assert left["p8"] == (CANARY, "person")


def test_another_scopes_entity_of_the_same_id_keeps_its_name(
    memory: Memory, clock: ManualClock
) -> None:
    _seed(memory, clock)
    memory.ingest(episode("theirs", "user", day(2), scope="u2", content="Their p7.",
                          entities=[{"entity_id": "p7", "type": "person", "name": CANARY}]))
    assert memory.forget("entity:p7@u1").status == "complete"
    assert [(e.entity_id, e.name) for e in memory.entities("u2")] == [("p7", CANARY)]
    assert [e.content for e in memory.store.scope_episodes("u2")] == ["Their p7."]


def test_no_byte_of_the_name_remains_in_the_store_files(tmp_path: Path) -> None:
    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        _seed(memory, clock)
        assert files_holding(store_dir, CANARY)
        assert memory.forget("entity:p7@u1").status == "complete"
    assert files_holding(store_dir, CANARY) == []


def test_the_cli_forgets_a_declared_only_entity(
    make_memory: MemoryFactory, backend: str, tmp_path: Path
) -> None:
    store = store_location(make_memory, backend, tmp_path)
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({
        "operation_id": "intro", "source": "user", "channel": "chat",
        "occurred_at": day(0).isoformat(), "scope": "u1", "content": f"I met {CANARY}.",
        "entities": [{"entity_id": "p7", "type": "person", "name": CANARY}]}) + "\n")
    assert cli("ingest", str(path), "--trust-envelopes", "--store", store)[0] == 0
    code, out = cli("forget", "entity:p7", "--scope", "u1", "--store", store, "--json")
    assert code == 0, out
    report = json.loads(out)
    assert (report["status"], report["plan"]["entities"]) == ("complete", ["p7"])
    assert report["residues_redacted"] == 1
    code, out = cli("entities", "list", "--scope", "u1", "--store", store, "--json")
    assert code == 0, out
    assert CANARY not in out
    assert "p7" not in out
    code, out = cli("forget", "entity:p7", "--scope", "u1", "--store", store, "--json")
    assert (code, json.loads(out)["status"]) == (0, "nothing-to-forget")


def test_the_decisions_that_resolved_mentions_onto_it_go_too(
    memory: Memory, clock: ManualClock
) -> None:
    """A later mention the resolver merged onto the declared person is erased with her: no
    identity document is left quoting her name (nor written back by the residue cut)."""
    clock.now = day(0)
    memory.ingest(episode("intro", "user", day(0), content="A new contact.",
                          entities=[{"entity_id": "p7", "type": "person", "name": CANARY,
                                     "identifiers": {"email": "zq@example.org"}}]))
    clock.now = day(1)
    memory.ingest(episode("later", "user", day(1), content="She likes tea.",
                          resolve=[{"key": "z", "name": CANARY,
                                    "identifiers": {"email": "zq@example.org"}}],
                          assertions=[fact("@z", "likes", "tea")]))
    assert memory.decisions("u1")[-1].entity_id == "p7"
    clock.now = day(2)
    assert memory.forget("entity:p7@u1").status == "complete"
    assert memory.decisions("u1") == []
    assert CANARY not in _everything(memory)
    assert "zq@example.org" not in _everything(memory)
