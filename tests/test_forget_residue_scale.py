"""A forget cascade of many derivatives still finds every retained copy (issue 28, Forget).

A cascade erasing more than sixteen values searches the scope through the matcher's gram index;
whether that index is built is now decided once per run instead of once per text searched
(which made a run's cost grow with the tenant: 900 needles checked for each of 40,000 texts).
These tests pin what the run must still find: a kept episode repeating a forgotten value in
another case and spacing, one naming an erased entity, a refusal quoting a value, and a search
mixing long needles with one that normalising shortens below the index width.
"""

from __future__ import annotations

from kg_memory import Memory
from tests.conftest import ManualClock, MemoryFactory, day, episode, fact

FEED = 40  # derivatives in the cascade: more than the sixteen the per-needle search serves
NAME = "Quillborough"  # an erased entity's name, 8+ characters


def _value(i: int) -> str:
    return f"relay-{i:03d}.aurora"


def _tenant(memory: Memory, clock: ManualClock) -> dict[str, str]:
    """Kept user episodes in ``u1`` (some quoting what the feed says) and the feed itself."""
    kept = {}
    for n, content in enumerate([
        "Note: the drain is RELAY-007.Aurora   now, keep it.",  # another case and spacing
        f"Routing both through {_value(12)} and {_value(39)} today.",
        "Nothing to see here, only ordinary words.",
        f"Met {NAME.upper()} at the depot.",
    ]):
        kept[f"k{n}"] = memory.ingest(episode(
            f"k{n}", "user", day(0), content=content,
            assertions=[fact(f"user-{n}", "note", f"kept note {n}")])).episode_id
    clock.now = day(1)
    memory.ingest(episode(
        "feed", "tool", day(1), channel="tool",
        entities=[{"entity_id": "feed-vendor", "type": "org", "name": NAME}],
        assertions=[fact(f"item-{i}", "relay", _value(i), kind="world")
                    for i in range(FEED)]))
    clock.now = day(2)
    return kept


def test_a_large_cascade_finds_every_copy_in_kept_episodes(make_memory: MemoryFactory) -> None:
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    kept = _tenant(memory, clock)
    planned = memory.forget("source:tool@u1", dry_run=True)
    assert len(planned.plan.delete) == FEED
    episodes = {r.node: r.spans for r in planned.plan.residues if r.where == "episode"}
    assert episodes == {kept["k0"]: 1, kept["k1"]: 2, kept["k3"]: 1}

    report = memory.forget("source:tool@u1")
    assert report.status == "complete"
    texts = {e.episode_id: e.content for e in memory.store.scope_episodes("u1")}
    assert texts[kept["k0"]] == "Note: the drain is [forgotten]   now, keep it."
    assert texts[kept["k1"]] == "Routing both through [forgotten] and [forgotten] today."
    assert texts[kept["k2"]] == "Nothing to see here, only ordinary words."
    assert texts[kept["k3"]] == "Met [forgotten] at the depot."
    everything = " ".join(texts.values()).casefold()
    assert "aurora" not in everything
    assert NAME.casefold() not in everything
    # What the kept episodes support stays.
    assert memory.asof(subject="user-1", predicate="note").values() == ["kept note 1"]


def test_a_short_needle_among_many_is_still_found(make_memory: MemoryFactory) -> None:
    """A value whose spacing normalises below the index width sends the whole search to the
    per-needle path; the long needles beside it must be found all the same."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    kept = memory.ingest(episode(
        "k", "user", day(0), content=f"Short: a    b. Long: {_value(5)}.",
        assertions=[fact("user-k", "note", "kept note")])).episode_id
    clock.now = day(1)
    memory.ingest(episode(
        "feed", "tool", day(1), channel="tool",
        assertions=[*(fact(f"item-{i}", "relay", _value(i), kind="world")
                      for i in range(FEED)),
                    fact("item-short", "relay", "a      b", kind="world")]))
    clock.now = day(2)
    report = memory.forget("source:tool@u1")
    assert report.status == "complete"
    [text] = [e.content for e in memory.store.episodes([kept])]
    assert text == "Short: [forgotten]. Long: [forgotten]."


def test_the_two_narrow_reads_answer_what_the_tenant_wide_reads_filtered_to(
    make_memory: MemoryFactory,
) -> None:
    """``live_derived(scope)`` is the current derived revisions among every assertion of the
    scope, and ``entity_names(ids, scope)`` the names of those ids among its entities: what the
    residue search used to filter out of ``find_assertions``/``versions`` and ``entities``."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    for scope in ("u1", "u2"):
        memory.ingest(episode(
            f"s-{scope}", "user", day(0), scope=scope,
            entities=[{"entity_id": "named", "type": "org", "name": f"Name of {scope}"},
                      {"entity_id": "bare", "type": "org"}],
            assertions=[fact("ana", "editor", "helix"), fact("ana", "city", "Oslo")]))
    [editor] = memory.asof(subject="ana", predicate="editor", scope="u1").facts
    for text in ("first summary", "second summary"):
        clock.now = clock.now.replace(hour=clock.now.hour + 1)
        basis = memory.read_basis("ana", "summary", [editor.assertion_id], scope="u1")
        memory.publish(basis, value=text)
    store = memory.store
    for scope in ("u1", "u2"):
        wanted = sorted(
            (v.assertion_id, v.revision) for v in store.versions(store.find_assertions(scope))
            if v.kind == "derived" and v.system.end is None)
        assert sorted((v.assertion_id, v.revision) for v in store.live_derived(scope)) == wanted
        every = {e.entity_id: e.name for e in store.entities(scope) if e.name is not None}
        asked = ["named", "bare", "nobody"]
        assert store.entity_names(asked, scope) == {k: v for k, v in every.items() if k in asked}
    assert sorted(str(v.value) for v in store.live_derived("u1")) == [
        "first summary", "second summary"]
    assert store.live_derived("u2") == []
    assert store.entity_names(["named"], "u2") == {"named": "Name of u2"}
    assert store.entity_names([], "u1") == {}


def test_episode_texts_are_the_scopes_episodes_id_and_content_in_order(
    make_memory: MemoryFactory,
) -> None:
    """The residue search reads ``episode_texts(scope)`` instead of every episode as a model:
    the same episodes, in the same order, with their content as stored (a redacted one's
    too), and nothing of another scope."""
    clock = ManualClock(day(0))
    memory = make_memory(clock)
    for n, scope in enumerate(("u1", "u2", "u1", "u1")):
        clock.now = day(n)
        memory.ingest(episode(f"t-{n}", "user", day(n), scope=scope,
                              content=f"turn {n} about the Oslo trip",
                              assertions=[fact("ana", f"p{n}", f"v{n}")]))
    memory.forget("source:user@u2")
    store = memory.store
    for scope in ("u1", "u2", "nobody"):
        assert store.episode_texts(scope) == [
            (e.episode_id, e.content) for e in store.scope_episodes(scope)]
    assert [text for _, text in store.episode_texts("u1")] == [
        "turn 0 about the Oslo trip", "turn 2 about the Oslo trip", "turn 3 about the Oslo trip"]
