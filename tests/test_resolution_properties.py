"""Properties that must hold for every input, checked with hypothesis:

* resolution never crosses scopes;
* an unmerge restores every fact to its original entity;
* a manual decision is never overturned automatically;
* a name alone never merges, whatever a scorer says;
* a MERGE always satisfies every merge rule.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    AttachedFact,
    BlockingIndex,
    CandidateEvidence,
    ConstantScorer,
    Context,
    EntityProfile,
    Identifier,
    IdentifierKind,
    Mention,
    Outcome,
    manual_decision,
    rescore,
    resolve,
    unmerge,
)
from kg_memory.domain.resolution.merge_rules import contradicted_rival, name_compatible

NOW = datetime(2026, 1, 6, tzinfo=UTC)
SCOPES = ("a", "b", "c")
GIVEN = ("Jo", "Joanna", "Joseph", "John", "Jon", "Bob", "Robert", "Priya", "J.")
FAMILY = ("", " Park", " Parks", " Smith", " Raman", " van der Park")
VALUES = {
    "employer": ("Acme", "Globex", "Acme Ltd"),
    "role": ("engineer", "pm"),
    "city": ("Leeds", "York"),
    "relation": ("friend", "colleague"),
    "project": ("Cedar", "Birch"),
    # issue 15: person-record fields, with the near values their comparators call CLOSE
    "birth_date": ("1990-05-01", "1990-01-05", "1990", "1971-11-30"),
    "street": ("Giblin Street", "Giblin Stret", "Kirby Place"),
    "postcode": ("2600", "2601", "4814"),
    "state": ("nsw", "vic"),
}
IDENTIFIERS = st.builds(
    Identifier,
    kind=st.sampled_from(list(IdentifierKind)),
    value=st.sampled_from(("v1", "v2", "v3", "6988048", "6988084")),  # a near-miss pair
)
NAMES = st.one_of(
    st.builds(lambda g, f: g + f, st.sampled_from(GIVEN), st.sampled_from(FAMILY)),
    st.sampled_from(("Park,", "Smith,")),  # family-only records
)
CONTEXTS = st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in VALUES.items()})
TIMES = st.datetimes(
    min_value=datetime(2023, 1, 1), max_value=datetime(2026, 1, 1), timezones=st.just(UTC)
)


@st.composite
def profiles(draw: st.DrawFn) -> list[EntityProfile]:
    """Profiles spread over the scopes; ids and episodes carry their scope as a prefix."""
    out = []
    for i in range(draw(st.integers(0, 8))):
        scope = draw(st.sampled_from(SCOPES))
        attributes = [
            {"attribute": k, "value": v, "valid": {"start": draw(TIMES).isoformat()}}
            for k, v in draw(CONTEXTS).items()
        ]
        out.append(
            EntityProfile.model_validate(
                {
                    "entity_id": f"{scope}/p{i}",
                    "scope": scope,
                    "type": draw(st.sampled_from(("person", "person", "organisation"))),
                    "names": draw(st.lists(NAMES, min_size=1, max_size=2)),
                    "identifiers": [
                        i.model_dump() for i in draw(st.lists(IDENTIFIERS, max_size=2))
                    ],
                    "attributes": attributes,
                    "co_mentions": draw(st.lists(st.sampled_from(("x", "y", "z")), max_size=2)),
                    "episode_ids": [f"{scope}/ep{i}"],
                }
            )
        )
    return out


@st.composite
def mentions(draw: st.DrawFn, bare: bool = False) -> Mention:
    scope = draw(st.sampled_from(SCOPES))
    return Mention(
        mention_id="m",
        name=draw(NAMES),
        scope=scope,
        entity_type=draw(st.sampled_from(("person", None))),
        identifiers=() if bare else tuple(draw(st.lists(IDENTIFIERS, max_size=2))),
        context=Context() if bare else Context(**draw(CONTEXTS)),
        co_mentions=() if bare else tuple(draw(st.lists(st.sampled_from(("x", "y")), max_size=2))),
        episode_id=f"{scope}/ep-m",
        at=draw(TIMES),
    )


@settings(max_examples=300, deadline=None)
@given(profiles(), mentions())
def test_resolution_never_crosses_scopes(known: list[EntityProfile], said: Mention) -> None:
    decision = resolve(said, BlockingIndex(known), now=NOW)
    prefix = f"{said.scope}/"
    touched = [c.entity_id for c in decision.candidates]
    touched += [*decision.possible_same_as, *([decision.entity_id] if decision.entity_id else [])]
    assert all(t.startswith(prefix) for t in touched)
    assert all(e.startswith(prefix) for e in decision.source_episode_ids)


@settings(max_examples=300, deadline=None)
@given(profiles(), mentions())
def test_a_merge_satisfies_every_merge_rule(known: list[EntityProfile], said: Mention) -> None:
    decision = resolve(said, BlockingIndex(known), now=NOW)
    if decision.outcome is not Outcome.MERGE:
        return
    winner = decision.candidate(decision.entity_id or "")
    assert winner is not None
    assert winner.posterior >= DEFAULT_CONFIG.thresholds.merge
    assert winner.corroborated_by
    assert not winner.vetoes
    others = [c for c in decision.candidates if c is not winner and not c.vetoes]
    # No rival: every other candidate is below the rival floor, or (issue 15) carries far less
    # evidence than the winner (rival_margin bits: a provisional copy, a namesake it beats).
    margin = DEFAULT_CONFIG.rival_margin or 0.0

    def log_odds(c: CandidateEvidence) -> float:
        return math.log2(c.prior / (1.0 - c.prior)) + c.weight

    # Nor (round 2) a candidate of the winner's family (its provisional copy), nor one whose
    # name contradicts the mention's when the winner's does not: "Melinda Sandman" does not
    # mean "Jaes Sandman".
    families = {p.entity_id: p.family for p in known}
    assert all(
        c.posterior < DEFAULT_CONFIG.thresholds.rival_floor
        or log_odds(c) < log_odds(winner) - margin
        or families[c.entity_id] == families[winner.entity_id]
        or (name_compatible(winner.fields) and not name_compatible(c.fields))
        # Round 3: nor one a distinguishing field contradicts that agrees exactly with a
        # winner nothing distinguishing contradicts (another John Smith's birth date).
        or contradicted_rival(winner.fields, c.fields, DEFAULT_CONFIG)
        for c in others
    )


@settings(max_examples=300, deadline=None)
@given(profiles(), mentions(bare=True), st.floats(-10, 1000))
def test_a_name_alone_never_merges(
    known: list[EntityProfile], said: Mention, opinion: float
) -> None:
    scorer = ConstantScorer("opinionated", opinion)
    assert resolve(said, BlockingIndex(known), now=NOW).outcome is not Outcome.MERGE
    assert resolve(said, BlockingIndex(known), now=NOW, scorer=scorer).outcome is not Outcome.MERGE


@settings(max_examples=200, deadline=None)
@given(
    profiles(),
    mentions(),
    st.sampled_from((Outcome.MERGE, Outcome.KEEP_APART)),
    st.sampled_from(("a/p0", "a/p1", "b/p2", "elsewhere")),
    profiles(),
    st.lists(CONTEXTS, min_size=1, max_size=3),
)
def test_a_manual_decision_is_never_overturned(
    known: list[EntityProfile],
    said: Mention,
    outcome: Outcome,
    target: str,
    learnt: list[EntityProfile],
    news: list[dict[str, str]],
) -> None:
    manual = manual_decision(
        said, outcome, entity_id=target, decided_by="ana", decided_at=NOW, reason="I know them"
    )
    index = BlockingIndex(known)
    current = resolve(said, index, now=NOW, manual=manual)
    for step, context in enumerate(news):
        # New evidence arrives: the profiles change and the mention learns more.
        index = BlockingIndex(learnt) if step % 2 else index
        updated = said.model_copy(update={"context": Context(**context)})
        current = rescore(current, index, now=NOW, mention=updated)
        assert (current.outcome, current.entity_id) == (manual.outcome, manual.entity_id)
        assert (current.decided_by, current.decided_at) == ("ana", NOW)
        assert current.reason == "I know them"


EPISODES_X = ("x1", "x2", "x3", "x4")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sets(st.sampled_from(EPISODES_X), max_size=3),
            st.booleans(),  # also said in the merged mention's episode?
        ).filter(lambda t: t[0] or t[1]),
        max_size=12,
    )
)
def test_an_unmerge_restores_every_fact_to_its_original_entity(
    lineages: list[tuple[set[str], bool]],
) -> None:
    original = EntityProfile(
        entity_id="jo-1",
        scope="s",
        names=("Jo Park",),
        episode_ids=EPISODES_X,
        identifiers=(Identifier(kind=IdentifierKind.USER_ID, value="j17"),),
    )
    said = Mention(
        mention_id="m",
        name="Jo Park",
        scope="s",
        episode_id="e9",
        at=NOW,
        identifiers=(Identifier(kind=IdentifierKind.USER_ID, value="j17"),),
    )
    merge = resolve(said, BlockingIndex([original]), now=NOW)
    assert merge.outcome is Outcome.MERGE
    facts = [
        AttachedFact(fact_id=f"f{i}", episode_ids=(*sorted(xs), *(["e9"] if mine else [])))
        for i, (xs, mine) in enumerate(lineages)
    ]
    plan = unmerge(merge, facts, restored_entity_id="jo-2")
    assert plan.unattributed == ()
    for fact in facts:
        placed = [a for a in plan.assignments if a.fact_id == fact.fact_id]
        # Every episode of the fact's lineage supports it on exactly one side ...
        assert sorted(e for a in placed for e in a.episode_ids) == sorted(fact.episode_ids)
        # ... and that side is the entity the episode originally spoke about.
        for a in placed:
            expected = "jo-2" if set(a.episode_ids) == {"e9"} else "jo-1"
            assert a.entity_id == expected
            assert ("e9" in a.episode_ids) == (a.entity_id == "jo-2")
        assert (fact.fact_id in plan.split) == (len(placed) == 2)
