"""Valid-time writes and retractions, following SQL:2011 application-time semantics.

Writing a value over ``[from, to)`` overrides whatever the store knew for that portion of valid
time; retracting ``[from, to)`` removes it, splitting what was there. The rule never edits a
stored revision: it *closes* the overlapped revisions (ends their system interval) and drafts new
revisions for the remainders on either side. So a query "as known at T" still sees exactly the
revisions that were live at T.

Invariant relied upon (and kept): at any system time, the live revisions of one slot
(scope, subject, predicate, project) have pairwise disjoint valid intervals.

These are pure functions: they take the live revisions of one slot and return a
:class:`~kg_memory.domain.change.ChangePlan`.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_memory.domain.change import ChangePlan, Closure, Draft, Effect, PlannedEdge
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EdgeType, EndReason

__all__ = ["draft_of", "plan_retraction", "plan_write", "same_content"]


def same_content(draft: Draft, version: Assertion) -> bool:
    return (
        draft.value == version.value
        and draft.qualifiers == version.qualifiers
        and draft.kind == version.kind
        and draft.depends_on == version.depends_on
    )


def draft_of(version: Assertion, valid: Interval, reason: EndReason, recorded_by: str) -> Draft:
    """A new revision of ``version`` that differs only in its valid interval."""
    return Draft(
        assertion_id=version.assertion_id,
        scope=version.scope,
        subject=version.subject,
        predicate=version.predicate,
        value=version.value,
        qualifiers=version.qualifiers,
        kind=version.kind,
        writer=version.writer,
        depends_on=version.depends_on,
        confidence=version.confidence,
        valid=valid,
        reason=reason,
        recorded_by=recorded_by,
    )


def _touches(a: Interval, b: Interval) -> bool:
    return a.overlaps(b) or a.end == b.start or b.end == a.start


def _hull(intervals: Sequence[Interval]) -> Interval:
    start = min(i.start for i in intervals)
    ends = [i.end for i in intervals]
    end = None if any(e is None for e in ends) else max(e for e in ends if e is not None)
    return Interval(start=start, end=end)


def _overlap(a: Interval, b: Interval) -> Interval:
    start = max(a.start, b.start)
    ends = [e for e in (a.end, b.end) if e is not None]
    return Interval(start=start, end=min(ends) if ends else None)


def plan_write(current: Sequence[Assertion], fact: Draft, *, episode_id: str) -> ChangePlan:
    """Plan writing ``fact`` over ``fact.valid`` given the slot's live revisions ``current``.

    * A live revision with the same content that already covers the interval is *refreshed*:
      the episode becomes one more piece of support, and nothing new is versioned.
    * Same-content revisions that overlap or touch the interval are coalesced with it, so one
      fact keeps one assertion id across restatements and extensions.
    * Other overlapping revisions are superseded for the overlap and keep their remainders.
    """
    for version in current:
        if same_content(fact, version) and version.valid.covers(fact.valid):
            return ChangePlan(
                edges=(
                    PlannedEdge(src=episode_id, type=EdgeType.SUPPORTS, dst=version.assertion_id),
                ),
                effects=(
                    Effect(
                        action="refreshed",
                        key=version.key,
                        value=version.value,
                        assertion_id=version.assertion_id,
                    ),
                ),
            )

    kin = [v for v in current if same_content(fact, v) and _touches(v.valid, fact.valid)]
    others = [v for v in current if not same_content(fact, v) and v.valid.overlaps(fact.valid)]
    assertion_id = kin[0].assertion_id if kin else fact.assertion_id
    merged = fact.model_copy(
        update={
            "assertion_id": assertion_id,
            "valid": _hull([fact.valid, *(v.valid for v in kin)]),
        }
    )

    closures = [
        Closure(
            assertion_id=v.assertion_id,
            revision=v.revision,
            reason=EndReason.SUPERSEDED,
            closed_by=episode_id,
        )
        for v in (*kin, *others)
    ]
    drafts: list[Draft] = []
    edges = [PlannedEdge(src=episode_id, type=EdgeType.SUPPORTS, dst=assertion_id)]
    effects = [
        Effect(
            action="written",
            key=f"{fact.subject}.{fact.predicate}",
            value=fact.value,
            assertion_id=assertion_id,
        )
    ]
    ended: list[tuple[str, Interval]] = []
    for v in others:
        for part in v.valid.minus(fact.valid):
            drafts.append(draft_of(v, part, EndReason.SUPERSEDED, episode_id))
        edges.append(PlannedEdge(src=assertion_id, type=EdgeType.SUPERSEDES, dst=v.assertion_id))
        effects.append(
            Effect(action="replaced", key=v.key, value=v.value, assertion_id=v.assertion_id)
        )
        ended.append((v.assertion_id, _overlap(v.valid, fact.valid)))
    for v in kin:
        if v.assertion_id != assertion_id:
            edges.append(
                PlannedEdge(src=assertion_id, type=EdgeType.SUPERSEDES, dst=v.assertion_id)
            )
    drafts.append(merged)
    return ChangePlan(
        closures=tuple(closures),
        drafts=tuple(drafts),
        edges=tuple(edges),
        effects=tuple(effects),
        ended=tuple(ended),
    )


def plan_retraction(
    current: Sequence[Assertion],
    portion: Interval,
    *,
    episode_id: str,
    reason: EndReason = EndReason.RETRACTED,
) -> ChangePlan:
    """Plan removing ``portion`` of valid time from every revision in ``current`` it overlaps.

    Used for explicit retractions and, with ``reason=RETIRED``, for dependency retirement.
    """
    closures: list[Closure] = []
    drafts: list[Draft] = []
    edges: list[PlannedEdge] = []
    effects: list[Effect] = []
    ended: list[tuple[str, Interval]] = []
    for v in current:
        if not v.valid.overlaps(portion):
            continue
        closures.append(
            Closure(
                assertion_id=v.assertion_id,
                revision=v.revision,
                reason=reason,
                closed_by=episode_id,
            )
        )
        drafts.extend(draft_of(v, part, reason, episode_id) for part in v.valid.minus(portion))
        edges.append(PlannedEdge(src=episode_id, type=EdgeType.INVALIDATES, dst=v.assertion_id))
        effects.append(
            Effect(action=reason.value, key=v.key, value=v.value, assertion_id=v.assertion_id)
        )
        ended.append((v.assertion_id, _overlap(v.valid, portion)))
    return ChangePlan(
        closures=tuple(closures),
        drafts=tuple(drafts),
        edges=tuple(edges),
        effects=tuple(effects),
        ended=tuple(ended),
    )
