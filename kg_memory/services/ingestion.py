"""The write path: one episode, one transaction.

``ingest_record`` is the unit of work every input goes through, whatever the channel:

1. idempotency by operation id within the record's scope (same payload: a reported duplicate
   with no effect; a different payload under a used id:
   :class:`~kg_memory.domain.errors.IdempotencyConflict`; another scope's use of the id is
   unrelated);
2. the episode itself, exactly as received;
3. the envelope against the channel policy (:mod:`kg_memory.domain.channel`): a source that may
   not arrive over this channel, or one of kg-memory's own worker identities, refuses the whole
   episode (audited; nothing in it is applied);
4. entities and mentions, each a write about the entity it names: a source the gate lets
   write nothing about it declares, mentions or describes nothing of it (a resolver mention
   grows no profile), and owners it declares pass the gate as an ownership write;
5. owners' events (``R1.cancelled``), checked against the entity's owners;
6. retractions, then each candidate through the writer gate and supersession *within the
   writer's authority tier* (a value from another tier is kept beside, as a visible conflict);
7. dependency retirement, transitively, for everything that stopped holding.

All of it happens inside the caller's transaction, so a failure leaves no partial episode.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict
from pydantic_core import PydanticSerializationError

from kg_memory.domain.authority import ranks_at_least, same_tier, standing
from kg_memory.domain.change import Draft, Effect, PlannedEdge
from kg_memory.domain.channel import ChannelPolicy, Sender
from kg_memory.domain.dependency import parse_fact_ref, plan_retirement, retirement_walk
from kg_memory.domain.errors import (
    IdempotencyConflict,
    IngestError,
    ScopeError,
)
from kg_memory.domain.gate import WriterPolicy, admit, may_end, owners_of
from kg_memory.domain.ids import assertion_id_for, episode_id_for
from kg_memory.domain.instant import UtcDatetime, ensure_utc
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import (
    Assertion,
    EdgeType,
    EndReason,
    Entity,
    Episode,
    every_field,
    trusted,
)
from kg_memory.domain.record import (
    AssertionCandidate,
    EventCandidate,
    IngestRecord,
    RetractionCandidate,
    check_intervals,
)
from kg_memory.domain.supersession import plan_retraction, plan_write
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services.admission import admit_entities, receive, refuse
from kg_memory.services.mentions import resolve_mentions
from kg_memory.services.reconciliation import plan_under, record_refusal, screen
from kg_memory.services.write_guards import check_forgotten, check_preconditions
from kg_memory.store.protocol import Slot, Transaction, apply_plan

__all__ = [
    "IngestReport",
    "apply_plan",
    "assertion_id_for",
    "episode_id_for",
    "ingest_record",
]


class IngestReport(BaseModel):
    """What one episode did: accepted or duplicate, and every effect in write-log order."""

    model_config = ConfigDict(frozen=True)

    operation_id: str
    episode_id: str
    status: str  # accepted | duplicate | refused (the envelope broke the channel policy) |
    # forgotten (a batch's episode a forget erased: nothing written; see batch_ingest)
    system_time: UtcDatetime | None = None
    effects: tuple[Effect, ...] = ()


_REPORT_FIELDS = every_field(IngestReport)


def _retire_dependents(
    tx: Transaction, ended: Iterable[tuple[str, Interval]], episode_id: str
) -> list[Effect]:
    """Retire, transitively, what depends on everything that stopped holding (the walk is
    :func:`kg_memory.domain.dependency.retirement_walk`, shared with forgetting)."""
    effects: list[Effect] = []
    for plan in retirement_walk(ended, tx.live_dependents, episode_id=episode_id):
        apply_plan(tx, plan)
        effects.extend(plan.effects)
    return effects


def _resolve_dependencies(
    tx: Transaction,
    record: IngestRecord,
    candidate: AssertionCandidate,
    valid: Interval,
    policy: WriterPolicy,
) -> tuple[str, ...] | str:
    """Entity ids stay as they are; ``fact:`` references become the assertion id holding then.

    Returns the resolved keys, or a reason to refuse the candidate.
    """
    resolved: list[str] = []
    for ref in candidate.depends_on:
        try:
            fact = parse_fact_ref(ref)
        except ValueError as exc:
            return str(exc)
        if fact is None:
            resolved.append(ref)
            continue
        slot = Slot(
            scope=record.scope, subject=fact.subject, predicate=fact.predicate, project=fact.project
        )
        holding = [v for v in tx.live_versions(slot) if v.valid.contains(valid.start)]
        if not holding:
            return f"depends on {ref}, which has no value at {valid.start.isoformat()}"
        # The value an as-of answer serves, not a lower-authority conflict beside it.
        holding.sort(key=lambda v: standing(policy.authority, v.writer, v.kind))
        resolved.append(holding[0].assertion_id)
    return tuple(resolved)


def _write(
    tx: Transaction,
    record: IngestRecord,
    episode: Episode,
    index: int,
    candidate: AssertionCandidate,
    policy: WriterPolicy,
    write_policy: WritePolicy | None = None,
) -> list[Effect]:
    key = f"{candidate.subject}.{candidate.predicate}"
    subject = tx.entity(candidate.subject)
    decision = admit(
        policy,
        source=record.source,
        kind=candidate.kind,
        subject=candidate.subject,
        predicate=candidate.predicate,
        owners=owners_of(policy, candidate.subject, subject.owners if subject else ()),
        channel=record.channel,
    )
    if not decision.admitted:
        if write_policy is not None:
            record_refusal(tx, episode, index, key, "provenance", decision.reason)
        return [refuse(tx, episode, key, decision.reason, candidate.value)]
    if write_policy is not None and (refused := screen(
            tx, write_policy, episode, index, candidate)) is not None:
        return [refused]
    valid = Interval(start=candidate.valid_from or record.occurred_at, end=candidate.valid_to)
    depends = _resolve_dependencies(tx, record, candidate, valid, policy)
    if isinstance(depends, str):
        if write_policy is not None:
            record_refusal(tx, episode, index, key, "dependency", depends)
        return [refuse(tx, episode, key, depends, candidate.value)]
    if subject is None:
        tx.put_entity(Entity(entity_id=candidate.subject, scope=record.scope))
    draft = Draft(
        assertion_id=assertion_id_for(episode.episode_id, index),
        scope=record.scope,
        subject=candidate.subject,
        predicate=candidate.predicate,
        value=candidate.value,
        qualifiers=candidate.qualifiers,
        kind=candidate.kind,
        writer=record.source,
        depends_on=depends,
        confidence=candidate.confidence,
        valid=valid,
        reason=EndReason.ASSERTED,
        recorded_by=episode.episode_id,
    )
    slot = Slot(
        scope=record.scope,
        subject=candidate.subject,
        predicate=candidate.predicate,
        project=candidate.qualifiers.project,
    )
    live = tx.live_versions(slot)
    # Only the writer's own timeline is superseded (its tier, statements apart from other
    # kinds); what others hold stays, attributed, and an answer shows it as a conflict.
    mine_at = standing(policy.authority, record.source, candidate.kind)
    mine = [v for v in live if standing(policy.authority, v.writer, v.kind) == mine_at]
    if write_policy is None:
        plan = plan_write(mine, draft, episode_id=episode.episode_id)
    else:
        plan = plan_under(tx, write_policy, slot, mine, draft, candidate, episode, index)
    apply_plan(tx, plan)
    written = plan.drafts[-1].assertion_id if plan.drafts else None
    if written is not None:
        tx.add_edge(PlannedEdge(src=written, type=EdgeType.ABOUT, dst=candidate.subject))
        for dep in depends:
            tx.add_edge(PlannedEdge(src=written, type=EdgeType.DEPENDS_ON, dst=dep))
    conflicts = [
        Effect(
            action="conflicts",
            key=v.key,
            value=v.value,
            assertion_id=v.assertion_id,
            detail=f"kept beside {v.writer}'s value: writers of different authority never "
            "supersede each other",
        )
        for v in live
        if v not in mine and v.valid.overlaps(valid) and v.value != candidate.value
    ]
    return [*plan.effects, *conflicts, *_retire_dependents(tx, plan.ended, episode.episode_id)]


def _retract(
    tx: Transaction,
    record: IngestRecord,
    episode: Episode,
    retraction: RetractionCandidate,
    policy: WriterPolicy,
) -> list[Effect]:
    slot = Slot(
        scope=record.scope,
        subject=retraction.subject,
        predicate=retraction.predicate,
        project=retraction.project,
    )
    portion = Interval(start=retraction.valid_from or record.occurred_at, end=retraction.valid_to)
    # Each authority tier is its own timeline, as for writes: a writer withdraws its own tier's
    # values of the kinds it may write; a higher tier's value stays and the attempt on it is
    # audited; a lower tier's value is another writer's attributed statement and is left alone.
    overlapping = [v for v in tx.live_versions(slot) if v.valid.overlaps(portion)]
    subject = tx.entity(retraction.subject)
    owners = owners_of(policy, retraction.subject, subject.owners if subject else ())
    effects: list[Effect] = []
    current: list[Assertion] = []
    for version in overlapping:
        if not ranks_at_least(policy.authority, record.source, version.writer):
            effects.append(refuse(tx, episode, f"retract {version.key}",
                                  f"{record.source} may not withdraw {version.writer}'s value: "
                                  "it has less authority"))
            continue
        if not same_tier(policy.authority, version.writer, record.source):
            continue
        decision = admit(
            policy,
            source=record.source,
            kind=version.kind,
            subject=version.subject,
            predicate=version.predicate,
            owners=owners,
            channel=record.channel,
        )
        if decision.admitted:
            current.append(version)
        else:
            effects.append(refuse(tx, episode, f"retract {version.key}", decision.reason))
    plan = plan_retraction(current, portion, episode_id=episode.episode_id)
    apply_plan(tx, plan)
    return [*effects, *plan.effects, *_retire_dependents(tx, plan.ended, episode.episode_id)]


def _event(
    tx: Transaction,
    record: IngestRecord,
    episode: Episode,
    event: EventCandidate,
    policy: WriterPolicy,
) -> list[Effect]:
    """An owner's lifecycle event retires what depends on the entity, from the event on."""
    label = f"{event.target}.{event.name}"
    target = tx.entity(event.target)
    owners = owners_of(policy, event.target, target.owners if target else ())
    decision = may_end(target, record.source, owners)
    if not decision.admitted:
        return [refuse(tx, episode, label, decision.reason)]
    plan = plan_retirement(
        tx.live_dependents(event.target),
        at=event.at or record.occurred_at,
        episode_id=episode.episode_id,
    )
    apply_plan(tx, plan)
    return [
        Effect(action="event", key=label),
        *plan.effects,
        *_retire_dependents(tx, plan.ended, episode.episode_id),
    ]


def ingest_record(
    tx: Transaction,
    record: IngestRecord,
    policy: WriterPolicy,
    secret: bytes,
    channels: ChannelPolicy | None = None,
    write_policy: WritePolicy | None = None,
    sender: Sender | None = None,
) -> IngestReport:
    """Write one episode and everything it implies, inside ``tx`` (bound to the record's
    scope: idempotency, entities, owners, dependencies and blocks are all that scope's).

    ``channels`` binds sources to channels (default :meth:`ChannelPolicy.default`).
    ``write_policy`` (admission, reconcile; see :mod:`kg_memory.services.reconciliation`)
    applies after the writer gate; without one every admitted value supersedes at once.
    ``sender`` is who the ingest channel established really sent it (an inlet's own source),
    stored with a refused envelope's episode.
    """
    if tx.scope != record.scope:
        raise ScopeError(f"an episode for scope {record.scope!r} cannot be written in a unit "
                         f"of work for scope {tx.scope!r}")
    # A record built in Python skipped the file reader's checks: the ones a model cannot make
    # on its own run here, so the write path raises IngestError, never a validation error.
    check_intervals(record)
    try:
        payload_hash = record.payload_hash()
    except (PydanticSerializationError, UnicodeEncodeError):
        raise IngestError("text is not valid Unicode (a lone surrogate)") from None
    episode_id = episode_id_for(record.scope, record.operation_id)
    check_forgotten(tx, record, secret)
    prior = tx.episode_by_operation(record.operation_id)
    if prior is not None:
        if prior[1] != payload_hash:
            raise IdempotencyConflict(
                f"operation id {record.operation_id!r} was already used with a different payload",
                field="operation_id",
            )
        return IngestReport(
            operation_id=record.operation_id,
            episode_id=episode_id,
            status="duplicate",
            system_time=prior[0].recorded_at,
        )
    check_preconditions(tx, record)
    episode, refused = receive(tx, record, episode_id, payload_hash,
                               channels or ChannelPolicy.default(), sender)
    if refused is not None:
        # The envelope is what every other check trusts, so none of its candidates is looked at.
        return IngestReport(operation_id=record.operation_id, episode_id=episode_id,
                            status="refused", system_time=tx.now, effects=(refused,))
    effects = admit_entities(tx, record, episode, policy)
    resolved: dict[str, str] = {}
    if record.resolve:
        resolved, refusals = resolve_mentions(tx, record, episode, policy)
        effects.extend(refusals)

    # What happened in the world comes first, then what is withdrawn, then what is claimed.
    for event in record.events:
        effects.extend(_event(tx, record, episode, event, policy))
    for retraction in record.retractions:
        effects.extend(_retract(tx, record, episode, retraction, policy))
    blocks = tx.active_blocks(record.scope) if record.assertions else []
    for index, candidate in enumerate(record.assertions):
        if candidate.subject.startswith("@"):
            if candidate.subject[1:] not in resolved:
                named = any(m.key == candidate.subject[1:] for m in record.resolve)
                effects.append(refuse(tx, episode, f"{candidate.subject}.{candidate.predicate}",
                                       f"mention {candidate.subject} was refused" if named else
                                       f"no mention {candidate.subject} in this episode"))
                continue
            candidate = candidate.model_copy(update={"subject": resolved[candidate.subject[1:]]})
        key = f"{candidate.subject}.{candidate.predicate}"
        if any(b.covers(record.scope, candidate.subject, candidate.predicate,
                        candidate.qualifiers.project) for b in blocks):
            # Content-free on purpose: a blocked category is not collected, not even here.
            effects.append(refuse(tx, episode, key, "collection blocked by a forget request"))
            continue
        effects.extend(_write(tx, record, episode, index, candidate, policy, write_policy))
    # Built from validated parts (the record's id, the unit's time, the rules' effects) without
    # validating them again: one report per episode on the agent's path.
    return trusted(IngestReport, {
        "operation_id": record.operation_id, "episode_id": episode_id, "status": "accepted",
        "system_time": ensure_utc(tx.now), "effects": tuple(effects)}, _REPORT_FIELDS)
