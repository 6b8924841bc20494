"""What the store path's resolver keeps between mentions (issue 29, ingest speed).

A decision's per-field evidence with a detail ("'6019' vs '6091'") is nearly always new, so
keeping it after the decision is dropped only gives the garbage collector more to walk at each
full collection (a seventh of the store path's CPU when an LRU kept 65,536 of them). Blank
evidence (a MISSING email) repeats on every candidate and stays shared. The store path's
blocking index holds only the mention's own keys, and finds the same candidates as the whole
index."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

from kg_memory.domain.resolution import (
    BlockingIndex,
    Context,
    EntityProfile,
    FieldEvidence,
    Mention,
    grow_profile,
    mention_keys,
    profile_keys,
    resolve,
)

AT = datetime(2026, 1, 5, 9, tzinfo=UTC)


def _mention(n: int, name: str = "Ana Lima") -> Mention:
    return Mention(mention_id=f"m{n}", name=name, scope="s", episode_id=f"e{n}", at=AT,
                   context=Context(street=f"{n} rua nova {n * 7919}", postcode=f"{1000 + n}",
                                   birth_date=f"19{n % 90 + 10}0101"))


def _live_evidence() -> tuple[int, int]:
    """(with a detail, blank) FieldEvidence objects alive now."""
    gc.collect()
    found = [o for o in gc.get_objects() if isinstance(o, FieldEvidence)]
    return sum(1 for o in found if o.detail), sum(1 for o in found if not o.detail)


def _decide_and_drop(start: int, count: int) -> None:
    profile = grow_profile(None, "ent_ana", _mention(start))
    for n in range(start + 1, start + count):
        decision = resolve(_mention(n), BlockingIndex([profile]), now=AT)
        assert decision.candidates  # compared, with evidence that has details
        assert any(f.detail for f in decision.candidates[0].fields)


def test_no_detailed_evidence_outlives_its_decision() -> None:
    _decide_and_drop(0, 5)  # blank evidence of every field made once
    detailed, blank = _live_evidence()
    _decide_and_drop(100, 200)
    assert _live_evidence() == (detailed, blank)


def test_blank_evidence_is_one_shared_instance() -> None:
    index = BlockingIndex([grow_profile(None, "ent_a", _mention(1)),
                           grow_profile(None, "ent_b", _mention(2))])
    a, b = resolve(_mention(3), index, now=AT).candidates
    blank = [(x, y) for x, y in zip(a.fields, b.fields, strict=True) if not x.detail]
    assert blank
    assert all(x is y for x, y in blank)


def test_an_index_of_the_mentions_keys_finds_what_the_whole_index_finds() -> None:
    names = ["Ana Lima", "Anna Lima", "Ana Lime", "Bruno Lima", "Ana Souza", "A Lima", "Lima"]
    profiles = [grow_profile(None, f"ent_{i}", _mention(i, name))
                for i, name in enumerate(names)]
    filed = [(p, profile_keys(p)) for p in profiles]
    whole = BlockingIndex.filed(filed)
    for n, name in enumerate([*names, "Ana", "Zed Lima", "Ana Limma"]):
        mention = _mention(50 + n, name)
        narrow = BlockingIndex.filed(filed, only=mention_keys(mention))
        assert narrow.candidates(mention) == whole.candidates(mention)
        assert narrow.candidates(mention) == BlockingIndex(profiles).candidates(mention)


def test_a_profile_without_the_mentions_keys_is_no_candidate_of_a_narrow_index() -> None:
    profile = EntityProfile(entity_id="ent_x", scope="s", names=("Bruno Souza",))
    mention = _mention(1)
    narrow = BlockingIndex.filed([(profile, profile_keys(profile))], only=mention_keys(mention))
    assert narrow.candidates(mention) == ()
