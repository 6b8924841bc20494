"""Episodes have vectors too (issue 26): a message is found by its meaning, on both backends,
and only ever when it is eligible.

On LoCoMo every turn is an episode; with vectors for facts alone, the embedding model added
nothing there. The vectors are made from each message as received, filed in the store beside
it (the embedded file, Neo4j's native index), drained from the same backlog as facts' before
a search, and judged by every eligibility rule (scope, both time axes, refused envelopes, the
caller's rules) before anything is ranked. Forgetting a message erases its vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg_memory import (
    Channel,
    EmbedderMismatch,
    HashingEmbedder,
    Memory,
    parse_record,
)
from kg_memory.domain.eligibility import RecallContext
from kg_memory.domain.model import Assertion, Episode
from tests.conftest import ManualClock, MemoryFactory, day, episode

HASHING = HashingEmbedder()


def _say(memory: Memory, op: str, when: datetime, content: str, *, scope: str = "u1",
         source: str = "user") -> str:
    return memory.ingest(episode(op, source, when, scope=scope, content=content)).episode_id


def _ids(memory: Memory, query: str, **kwargs: object) -> list[str]:
    answer = memory.recall(query, scope="u1", limit=20, **kwargs)  # type: ignore[arg-type]
    return [h.id for h in answer.results if h.type == "episode"]


def test_an_episode_is_found_by_meaning_alone(memory: Memory, clock: ManualClock) -> None:
    """Fails before episodes had vectors: hybrid recall ranked messages by their words only."""
    pytest.importorskip("onnxruntime", reason="needs the kg-memory-bitemporal[embed] extra")
    puppy = _say(memory, "op-1", day(0), "We adopted a golden retriever puppy last weekend")
    _say(memory, "op-2", day(0), "The quarterly tax forms are due on Friday")
    _say(memory, "op-3", day(0), "I finally fixed the leaking kitchen tap")
    clock.now = day(1)
    question = "which animal lives with them"  # no word or stem shared with any message
    assert _ids(memory, question) == []
    memory.use_embedder("minilm")  # the messages were written before: the backlog catches up
    for mode in ("hybrid", "vector"):
        answer = memory.recall(question, scope="u1", mode=mode)
        assert answer.mode == mode
        first = answer.results[0]
        assert (first.type, first.id) == ("episode", puppy), mode
        assert (first.score.bm25, first.score.vector_rank) == (0, 1)
        assert first.own_words  # the user's own message, labelled as such
    # Lexical recall never reads the vectors, embedder or not.
    assert _ids(memory, question, mode="lexical") == []


def test_a_recalled_episode_found_by_vector_keeps_its_neighbours(
    memory: Memory, clock: ManualClock
) -> None:
    _say(memory, "op-1", day(0), "morning, how are you")
    target = _say(memory, "op-2", day(0.01), "vegetarian lasagne for dinner")
    _say(memory, "op-3", day(0.02), "sounds great, see you at eight")
    clock.now = day(1)
    answer = memory.recall("vegetable", scope="u1", mode="vector", embedder=HASHING)
    [hit] = [h for h in answer.results if h.id == target]
    assert hit.score.lexical_rank is None
    assert [c.content for c in hit.context] == ["morning, how are you",
                                                "sounds great, see you at eight"]


@dataclass(frozen=True)
class _Hide:
    """A caller's rule (a permission model): messages mentioning ``word`` are not eligible."""

    word: str
    name: str = "hidden"

    def excludes_fact(self, fact: Assertion, context: RecallContext) -> bool:
        return False

    def excludes_episode(self, episode: Episode, context: RecallContext) -> bool:
        return self.word in episode.content


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_vector_recall_never_returns_an_ineligible_episode(
    memory: Memory, clock: ManualClock, mode: str
) -> None:
    """Each message below is as near the question as the eligible one, and each fails one rule:
    none is ever a candidate, whatever its similarity."""
    mine = _say(memory, "mine", day(1), "vegetables for the picnic")
    other = _say(memory, "other", day(1), "vegetables for the picnic", scope="u2")
    later = _say(memory, "later", day(5), "vegetables for the picnic tomorrow")  # after at
    forged = memory.inlet("restaurant", Channel.WEBHOOK).ingest(parse_record({
        "operation_id": "forged", "source": "user", "channel": "chat", "scope": "u1",
        "occurred_at": day(1).isoformat(), "content": "vegetables for the picnic please"}))
    assert forged.status == "refused"
    hidden = _say(memory, "hidden", day(1), "vegetables for the secret picnic")
    clock.now = day(3)
    recorded_late = _say(memory, "late", day(1), "vegetables for the picnic, noted")
    clock.now = day(6)
    asked = {"scope": "u1", "at": day(4), "known_at": day(2), "mode": mode,
             "embedder": HASHING, "rules": [_Hide("secret")], "limit": 50}
    answer = memory.recall("vegetable picnics", **asked)  # type: ignore[arg-type]
    found = {h.id for h in answer.results if h.type == "episode"}
    assert mine in found
    assert found.isdisjoint({other, later, forged.episode_id, hidden, recorded_late})
    # Without the instants and the rule, the same messages are found: the check is not vacuous.
    everything = memory.recall("vegetable picnics", scope="u1", mode=mode,  # type: ignore[arg-type]
                               embedder=HASHING, limit=50)
    assert {later, hidden, recorded_late} <= {h.id for h in everything.results}
    assert forged.episode_id not in {h.id for h in everything.results}


def test_another_models_query_is_refused_for_episode_vectors(
    memory: Memory, clock: ManualClock
) -> None:
    _say(memory, "op-1", day(0), "vegetarian lasagne for dinner")  # episodes only, no fact
    clock.now = day(1)
    assert memory.recall("vegetable", scope="u1", mode="vector", embedder=HASHING).results
    with pytest.raises(EmbedderMismatch, match="hashing-trigram/256"):
        memory.recall("vegetable", scope="u1", mode="vector", embedder=HashingEmbedder(128))


def test_a_forgotten_episode_is_never_a_vector_candidate_again(
    memory: Memory, clock: ManualClock
) -> None:
    gone = _say(memory, "op-1", day(0), "vegetarian lasagne for dinner")
    kept = _say(memory, "op-2", day(0), "vegetable soup for lunch")
    clock.now = day(1)
    before = memory.recall("vegetarian", scope="u1", mode="vector", embedder=HASHING)
    assert {gone, kept} <= {h.id for h in before.results}
    report = memory.forget(f"episode:{gone}@u1")
    assert report.status == "complete"
    for mode in ("vector", "hybrid"):
        after = memory.recall("vegetarian lasagne", scope="u1", mode=mode, embedder=HASHING)
        assert gone not in {h.id for h in after.results}
        assert kept in {h.id for h in after.results}


def test_forget_leaves_no_byte_of_an_episode_vector_in_the_store(tmp_path: Path) -> None:
    from kg_memory.store.sqlite import driver

    clock = ManualClock(day(0))
    store_dir = tmp_path / "store"
    with Memory.open(store_dir / "m.db", clock=clock) as memory:
        gone = _say(memory, "op-1", day(0), "zqx vegetarian lasagne canary for dinner")
        for n in range(50):
            _say(memory, f"other-{n}", day(0.001 * (n + 1)), f"note {n} on the picnic")
        clock.now = day(1)
        assert gone in _ids(memory, "vegetarian", mode="vector", embedder=HASHING)
        with driver.connect(store_dir / "m.db") as raw:
            [(blob, sketch)] = raw.execute(
                "SELECT r.vector, s.sketch FROM recall_episode_vectors r "
                "JOIN recall_episode_sketches s ON s.rid = r.rid "
                "JOIN recall_episode_docs d ON d.rid = r.rid WHERE d.episode_id = ?",
                (gone,)).fetchall()
            assert raw.execute("SELECT count(*) FROM recall_episode_vectors").fetchone()[0] == 51
        # The whole vector, its densest 64-byte slice (zeros are everywhere in a file), and
        # the sketch, as distinctive as the vector it summarises.
        start = max(range(0, len(blob) - 64, 4),
                    key=lambda i: sum(blob[j:j + 4] != bytes(4) for j in range(i, i + 64, 4)))
        needles = (blob, blob[start:start + 64], sketch)
        assert len(set(sketch)) > 8

        def files_with_vector() -> list[str]:
            return [p.name for p in store_dir.iterdir()
                    if any(n in p.read_bytes() for n in needles)]

        assert files_with_vector()  # it really was stored (so the scan can fail)
        assert memory.forget(f"episode:{gone}@u1").status == "complete"
        assert files_with_vector() == []
        with driver.connect(store_dir / "m.db") as raw:
            for table in ("recall_episode_vectors", "recall_episode_sketches"):
                assert raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 50


@given(times=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=6),
       at=st.integers(0, 9), known=st.integers(0, 9))
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_vector_candidates_are_eligible_on_both_time_axes(
    make_memory: MemoryFactory, times: list[tuple[int, int]], at: int, known: int
) -> None:
    """Whatever the instants, vector mode returns exactly the messages that happened by ``at``
    and were recorded by ``known_at`` (every message here is near the query)."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    expected = set()
    for n, (occurred, recorded) in enumerate(sorted(times, key=lambda t: t[1])):
        clock.now = max(clock.now, day(recorded)) + timedelta(seconds=1)
        episode_id = _say(memory, f"op-{n}", day(occurred), f"vegetable picnic number {n}")
        stored = {e.episode_id: e for e in memory.store.scope_episodes("u1")}[episode_id]
        if stored.occurred_at <= day(at) and stored.recorded_at <= day(known):
            expected.add(episode_id)
    clock.now = day(20)
    answer = memory.recall("vegetable picnic", scope="u1", at=day(at), known_at=day(known),
                           mode="vector", embedder=HASHING, limit=50)
    assert {h.id for h in answer.results} == expected


def test_migrate_gives_a_schema_12_files_enrolled_scopes_episode_vectors(tmp_path: Path) -> None:
    from kg_memory.store.sqlite import driver
    from kg_memory.store.sqlite.schema import SCHEMA_VERSION, migrate

    db, clock = tmp_path / "m.db", ManualClock(day(0))
    with Memory.open(db, clock=clock) as memory:
        target = _say(memory, "op-1", day(0), "vegetarian lasagne for dinner")
        clock.now = day(1)
        memory.recall("vegetable", scope="u1", embedder=HASHING)  # enrols the scope
    with driver.connect(db) as raw:  # schema 12: no episode vectors
        for trigger in ("recall_episode_vectors_doc", "recall_episode_vectors_undoc",
                        "recall_episode_sketches_del"):
            raw.execute(f"DROP TRIGGER {trigger}")
        for table in ("recall_episode_vector_backlog", "recall_episode_vectors",
                      "recall_episode_sketches"):
            raw.execute(f"DROP TABLE {table}")
        raw.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")
    assert migrate(db) == ("12", SCHEMA_VERSION) == ("12", "14")
    with driver.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM recall_episode_vector_backlog").fetchone()[0] == 1
    with Memory.open(db, clock=clock, create=False) as memory:
        assert target in _ids(memory, "vegetable", mode="vector", embedder=HASHING)
