"""Round 2 of issue 15: provisional copies are not rivals, twins are never merged, and a
whole-number replacement of a national id is outvoted by a whole agreeing record."""

from __future__ import annotations

from kg_memory import Memory
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.resolution import (
    IncrementalResolver,
    Outcome,
)
from kg_memory.services.identity import load_decisions, load_profile
from tests.conftest import ManualClock, day, episode
from tests.person_records import RECORD, T, said


def test_a_provisional_copy_of_the_winner_is_not_its_rival() -> None:
    resolver = IncrementalResolver()
    first = resolver.add(said(1, "Jane Doe", **RECORD), now=T)
    # Another house number and postcode with nothing distinguishing agreeing: a REVIEW whose
    # only candidate is Jane, so its provisional entity is a copy of her.
    copy = resolver.add(said(2, "Jane Doe", birth_date="1980-01-02", street_number="99",
                             postcode="2911"), now=T)
    assert copy.decision.outcome is Outcome.REVIEW
    assert copy.decision.possible_same_as == (first.entity_id,)
    assert copy.decision.copy_of == first.entity_id
    assert copy.profile.family == first.entity_id
    # Jane's full record reaches the merge threshold on both; they are one family, so it
    # merges into the stronger (before round 2: ambiguous, a REVIEW).
    again = resolver.add(said(3, "Jane Doe", **RECORD), now=T)
    assert again.decision.outcome is Outcome.MERGE
    assert again.entity_id == first.entity_id
    assert copy.entity_id in {c.entity_id for c in again.decision.candidates}


def test_a_review_between_namesakes_or_against_a_contradiction_links_no_family() -> None:
    resolver = IncrementalResolver()
    resolver.add(said(1, "John Smith", **RECORD), now=T)
    other = {**RECORD, "birth_date": "1975-07-08", "street": "cedar road", "street_number": "3"}
    second = resolver.add(said(2, "John Smith", **other), now=T)
    # Another birth date and street: a namesake, never a copy, whatever the outcome.
    assert second.decision.copy_of is None
    assert second.profile.copy_of is None
    vague = resolver.add(said(3, "John Smith", postcode="2600"), now=T)
    assert vague.decision.outcome is Outcome.REVIEW
    assert len(vague.decision.possible_same_as) == 2
    assert vague.decision.copy_of is None  # between two families: links neither
    assert vague.profile.copy_of is None


def test_twins_with_near_given_names_are_never_merged_nor_rivals() -> None:
    resolver = IncrementalResolver()
    jared = resolver.add(said(1, "Jared Lee", **RECORD), now=T)
    # Two edits apart, the same surname, birth date and address: a twin (round 1's near-name
    # rule merged this).
    jaden = resolver.add(said(2, "Jaden Lee", **RECORD), now=T)
    assert jaden.decision.outcome is Outcome.REVIEW
    assert jaden.decision.copy_of is None  # a contradicting name: not a copy of Jared
    # Jaden's record is as close to Jared's next one, but cannot carry his name: no rival.
    again = resolver.add(said(3, "Jared Lee", **RECORD), now=T)
    assert (again.decision.outcome, again.entity_id) == (Outcome.MERGE, jared.entity_id)


def test_a_replaced_national_id_is_outvoted_by_the_whole_record_but_never_for_a_twin() -> None:
    resolver = IncrementalResolver()
    jane = resolver.add(said(1, "Jane Doe", "1234567", **RECORD), now=T)
    replaced = resolver.add(said(2, "Jane Doe", "9876543", **RECORD), now=T)
    assert (replaced.decision.outcome, replaced.entity_id) == (Outcome.MERGE, jane.entity_id)
    twin = resolver.add(said(3, "Mary Doe", "5554443", **RECORD), now=T)
    assert twin.decision.outcome is Outcome.KEEP_APART
    assert twin.decision.vetoes  # the id conflict still vetoes: the given name contradicts
    # Round 3: three of house number, street, locality and postcode agreeing is near enough
    # (id_conflict_outvoted_by_near_record); two of them differing is another address: a veto.
    typo = resolver.add(said(4, "Jane Doe", "2223334", **{**RECORD, "street_number": "14"}),
                        now=T)
    assert (typo.decision.outcome, typo.entity_id) == (Outcome.MERGE, jane.entity_id)
    moved = {**RECORD, "street_number": "77", "street": "cedar road"}
    elsewhere = resolver.add(said(5, "Jane Doe", "3334445", **moved), now=T)
    assert elsewhere.decision.outcome is not Outcome.MERGE
    assert elsewhere.decision.vetoes


def _line(n: int, context: dict[str, str]) -> IngestRecord:
    # A person-record source the default gate lets describe people (world facts about anyone);
    # a CRM over a webhook writes nothing about them without a rule of its own.
    return episode(f"crm-{n}", "registry", day(n), channel="document",
                   resolve=[{"key": "p", "name": "Jane Doe", "context": context}])


def test_the_store_records_the_family_and_the_next_record_merges(
    memory: Memory, clock: ManualClock
) -> None:
    for n, context in enumerate((
        RECORD,
        {"birth_date": "1980-01-02", "street_number": "99", "postcode": "2911"},
        RECORD,
    ), start=1):
        clock.now = day(n)
        memory.ingest(_line(n, context))
    first, copy, again = sorted(load_decisions(memory.store), key=lambda r: r.decision.decided_at)
    assert copy.decision.outcome is Outcome.REVIEW
    profile = load_profile(memory.store, copy.entity_id, copy.decision.mention.scope)
    assert profile is not None
    assert profile.copy_of == first.entity_id  # persisted
    assert (again.decision.outcome, again.entity_id) == (Outcome.MERGE, first.entity_id)
