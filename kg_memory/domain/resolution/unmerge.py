"""Unmerge: undo a MERGE at the domain level by splitting facts back along their lineage.

A merge attaches a mention's facts to an existing entity. If the merge was wrong, every fact on
the merged entity must go back to where it came from, and the only trustworthy guide is
lineage: the episodes each fact came from. The merge decision records the mention's episode;
a fact is the mention's if its episodes are the mention's, and the original entity's otherwise.

* a fact supported only by the merged mention's episodes moves to the restored entity;
* a fact supported only by other episodes stays with the original entity;
* a fact supported by both is *split*: each side keeps it with its own episodes as support,
  because each side independently said it (two Jos can both work at Acme).

Facts whose episodes are neither the mention's nor in the original entity's lineage at the time
of the merge (they arrived later) stay with the original entity and are listed in
``unattributed`` for a person to check: lineage cannot say whom a later episode meant.

>>> from datetime import UTC, datetime
>>> from kg_memory.domain.resolution.manual import manual_decision
>>> from kg_memory.domain.resolution.mention import Mention
>>> at = datetime(2026, 1, 5, tzinfo=UTC)
>>> m = Mention(mention_id="m9", name="Jo", episode_id="e9", at=at)
>>> merge = manual_decision(m, Outcome.MERGE, entity_id="jo-1", decided_by="ana",
...                         decided_at=at, reason="same Jo")
>>> plan = unmerge(merge, [AttachedFact(fact_id="f1", episode_ids=("e1",)),
...                        AttachedFact(fact_id="f2", episode_ids=("e9",))],
...                restored_entity_id="jo-2")
>>> [(a.fact_id, a.entity_id) for a in plan.assignments]
[('f1', 'jo-1'), ('f2', 'jo-2')]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.errors import ResolutionError
from kg_memory.domain.resolution.decision import Outcome, ResolutionDecision

__all__ = ["AttachedFact", "FactAssignment", "UnmergePlan", "unmerge"]


class AttachedFact(BaseModel):
    """A fact attached to the merged entity, with the episodes it came from (its lineage)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact_id: str = Field(min_length=1)
    episode_ids: tuple[str, ...] = Field(min_length=1)


class FactAssignment(BaseModel):
    """Where one fact goes, supported by which of its episodes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact_id: str
    entity_id: str
    episode_ids: tuple[str, ...]


class UnmergePlan(BaseModel):
    """What undoing one merge does to the facts, before anything is written."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision_id: str
    merged_entity_id: str  # the entity the mention was merged into; it keeps its own facts
    restored_entity_id: str  # the entity the mention's facts move back to
    assignments: tuple[FactAssignment, ...]  # every fact, once per side it belongs to
    split: tuple[str, ...] = ()  # facts both sides support, assigned to both
    unattributed: tuple[str, ...] = ()  # facts from later episodes, kept; a person should check

    def entity_of(self, fact_id: str) -> tuple[str, ...]:
        """The entities ``fact_id`` is assigned to (two when it was split)."""
        return tuple(a.entity_id for a in self.assignments if a.fact_id == fact_id)


def unmerge(
    decision: ResolutionDecision,
    facts: Iterable[AttachedFact],
    *,
    restored_entity_id: str,
    mention_episode_ids: Collection[str] = (),
) -> UnmergePlan:
    """Plan the split of ``facts`` (attached to the merged entity) back to their origins.

    ``decision`` is the MERGE being undone, automatic or manual. The mention's side is its
    episode plus ``mention_episode_ids`` (episodes that reached the entity only through this
    merge, if the caller knows them). ``restored_entity_id`` is the id the mention's entity
    gets back. Facts are returned in their given order; the function is pure.
    """
    if decision.outcome is not Outcome.MERGE or decision.entity_id is None:
        raise ResolutionError(f"decision {decision.decision_id} is not a merge")
    merged = decision.entity_id
    if restored_entity_id == merged:
        raise ResolutionError("the restored entity needs an id of its own")
    theirs = frozenset({decision.mention.episode_id, *mention_episode_ids})
    target = decision.candidate(merged)
    ours = frozenset(target.episode_ids) if target is not None else None
    assignments: list[FactAssignment] = []
    split: list[str] = []
    unattributed: list[str] = []
    seen: set[str] = set()
    for fact in facts:
        if fact.fact_id in seen:
            raise ResolutionError(f"fact {fact.fact_id} is listed twice")
        seen.add(fact.fact_id)
        mine = tuple(e for e in fact.episode_ids if e not in theirs)
        moved = tuple(e for e in fact.episode_ids if e in theirs)
        if mine:
            assignments.append(
                FactAssignment(fact_id=fact.fact_id, entity_id=merged, episode_ids=mine)
            )
            if ours is not None and not ours.intersection(mine):
                unattributed.append(fact.fact_id)
        if moved:
            assignments.append(
                FactAssignment(
                    fact_id=fact.fact_id, entity_id=restored_entity_id, episode_ids=moved
                )
            )
        if mine and moved:
            split.append(fact.fact_id)
    return UnmergePlan(
        decision_id=decision.decision_id,
        merged_entity_id=merged,
        restored_entity_id=restored_entity_id,
        assignments=tuple(assignments),
        split=tuple(split),
        unattributed=tuple(unattributed),
    )
