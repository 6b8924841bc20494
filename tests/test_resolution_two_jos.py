"""The two Jos of the Jo/Cedar spec (fixtures/resolution/two_jos.json).

Jo (user j17) is the project manager on Cedar (project c1). Another Jo works on the registry
team, and a customer is called Jo too. No Jo is ever merged with another on the name alone, and
a mention of "Jo" carrying j17's user id resolves to j17, in its own scope only.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kg_memory.domain.resolution import (
    BlockingIndex,
    EntityProfile,
    Mention,
    Outcome,
    resolve,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "resolution" / "two_jos.json"
DATA: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
INDEX = BlockingIndex(EntityProfile.model_validate(p) for p in DATA["profiles"])
NOW = datetime(2026, 1, 6, tzinfo=UTC)
CASES = {c["case"]: c for c in DATA["cases"]}


@pytest.mark.parametrize("case", list(CASES))
def test_each_case_meets_its_expectation(case: str) -> None:
    spec = CASES[case]
    mention = Mention.model_validate(spec["mention"])
    decision = resolve(mention, INDEX, now=NOW)
    expect = spec["expect"]
    if "merge_into" in expect:
        assert (decision.outcome, decision.entity_id) == (Outcome.MERGE, expect["merge_into"])
        assert INDEX.profile(mention.scope, expect["merge_into"]) is not None
    if expect.get("never_merge"):
        assert decision.outcome is not Outcome.MERGE
    for entity_id in expect.get("never_merge_into", ()):
        assert decision.entity_id != entity_id


def test_the_jos_are_never_merged_on_the_name_alone() -> None:
    # Each Jo's display name, said on its own, in its own scope: never a merge.
    for profile in INDEX.profiles():
        for name in profile.names:
            bare = Mention(
                mention_id="bare", name=name, scope=profile.scope, episode_id="e", at=NOW
            )
            assert resolve(bare, INDEX, now=NOW).outcome is not Outcome.MERGE, name


def test_j17_resolves_to_j17_and_only_in_its_scope() -> None:
    for scope, own_episode in (("ana", "ep-001"), ("ben", "ben-ep-001")):
        mention = Mention.model_validate(
            {
                "mention_id": f"j17-{scope}",
                "name": "Jo",
                "scope": scope,
                "episode_id": "e",
                "at": NOW,
                "identifiers": [{"kind": "user_id", "value": "j17"}],
            }
        )
        decision = resolve(mention, INDEX, now=NOW)
        assert (decision.outcome, decision.entity_id) == (Outcome.MERGE, "person/jo-j17")
        assert {c.entity_id for c in decision.candidates} <= {
            p.entity_id for p in INDEX.profiles(scope)
        }
        # The evidence comes from this tenant's Jo, never the other tenant's.
        assert own_episode in decision.source_episode_ids
        other = {"ana": "ben-ep-001", "ben": "ep-001"}[scope]
        assert other not in decision.source_episode_ids


def test_another_account_is_vetoed_for_j17() -> None:
    decision = resolve(
        Mention.model_validate(CASES["another account's Jo"]["mention"]), INDEX, now=NOW
    )
    j17 = decision.candidate("person/jo-j17")
    assert j17 is not None
    assert j17.vetoes
