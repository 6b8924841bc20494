"""Identity in the store: profiles and decisions, and a person's merges and unmerges.

The rules live in :mod:`kg_memory.domain.resolution` (pure); this module applies their outcomes
inside a transaction (an episode's mentions are resolved, under the writer gate, by
:mod:`kg_memory.services.mentions`). Profiles and decisions are stored as documents: a
profile under its entity id, found by its blocking keys (so candidates never come from a
scan); a decision under its ``decision_id``, found by the entity ids and mention it concerns.

* A mention the resolver MERGEs lands on the existing entity; KEEP_APART makes a new entity;
  REVIEW makes a *provisional* new entity linked ``POSSIBLE_SAME_AS`` to each candidate, and
  facts are never pooled across that link.
* A person's merge of two entities is a pair of ``same_as`` assertions with system time, plus a
  manual decision. Facts never move, so queries pool a merged group as of the time asked, and an
  unmerge (retracting the ``same_as`` pair) leaves every fact with the entity it was written for.
  A ``same_as`` an episode claims pools only if its writer may claim identity
  (:func:`identity_link`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.change import Draft, PlannedEdge
from kg_memory.domain.errors import NotFound
from kg_memory.domain.gate import (
    SAME_AS,
    WriterPolicy,
    may_claim_identity,
)
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import (
    Assertion,
    Channel,
    EdgeType,
    EndReason,
    Entity,
    Kind,
)
from kg_memory.domain.record import IngestRecord, MentionCandidate
from kg_memory.domain.resolution import (
    BlockingIndex,
    Context,
    Declaration,
    EntityProfile,
    Identifier,
    IdentifierKind,
    Mention,
    Outcome,
    ResolutionDecision,
    grow_profile,
    manual_decision,
    mention_keys,
    new_entity_id,
    profile_keys,
    resolve,
)
from kg_memory.domain.resolution import unmerge as resolution_unmerge
from kg_memory.domain.resolution.unmerge import AttachedFact
from kg_memory.domain.supersession import plan_retraction, plan_write
from kg_memory.store.protocol import Slot, Store, Transaction, apply_plan

__all__ = [
    "DECISION",
    "PROFILE",
    "SAME_AS",
    "Resolved",
    "entity_key",
    "forget_identity",
    "identity_link",
    "keep_apart",
    "load_decisions",
    "load_profile",
    "merge_entities",
    "preview_resolution",
    "save_decision",
    "save_profile",
    "to_mention",
    "unmerge_decision",
    "unmerge_entities",
]

PROFILE, DECISION = "profile", "decision"


class Resolved(BaseModel):
    """A stored decision and the entity it put the mention on (a new one unless MERGE), with
    the source whose mention it was (``None``: a person's decision, or stored before sources
    were recorded)."""

    model_config = ConfigDict(frozen=True)

    decision: ResolutionDecision
    entity_id: str
    source: str | None = None


def to_mention(candidate: MentionCandidate, record: IngestRecord, episode_id: str,
               co_mentions: Sequence[str] = ()) -> Mention:
    identifiers = tuple(
        Identifier(kind=IdentifierKind(kind), value=value)
        for kind, value in sorted(candidate.identifiers.items())
    )
    # The parser refused unknown keys already; Context.from_mapping applies the same rule.
    context = Context.from_mapping(candidate.context)
    return Mention(
        mention_id=f"{episode_id}/{candidate.key}", name=candidate.name, scope=record.scope,
        entity_type=candidate.type, identifiers=identifiers, context=context,
        co_mentions=tuple(co_mentions), episode_id=episode_id, at=record.occurred_at,
    )


def save_profile(tx: Transaction, profile: EntityProfile,
                 keys: frozenset[str] | None = None) -> str:
    """File ``profile`` under its blocking keys (``keys``: its :func:`profile_keys`, when the
    caller has them), its episodes and its entity id; returns the body stored."""
    body = profile.model_dump_json()
    filed = profile_keys(profile) if keys is None else keys
    tx.put_document(PROFILE, profile.entity_id, profile.scope, body,
                    [*sorted(filed), *map(_episode_key, profile.episode_ids),
                     entity_key(profile.entity_id)])
    return body


def entity_key(entity_id: str) -> str:
    """A profile's lookup key by its entity's id (a declaration finds the profile it grows
    by it even when its name is not one the profile is filed under)."""
    return f"entity:{entity_id}"


def save_decision(tx: Transaction, resolved: Resolved) -> None:
    decision = resolved.decision
    tx.put_document(DECISION, decision.decision_id, decision.mention.scope,
                    resolved.model_dump_json(),
                    [resolved.entity_id, decision.mention.mention_id,
                     _episode_key(decision.mention.episode_id),
                     *decision.possible_same_as, *decision.kept_apart_from])


def _episode_key(episode_id: str) -> str:
    """A lookup key so that forgetting an episode finds what was learnt from it by key."""
    return f"episode:{episode_id}"


def load_profile(store: Store, entity_id: str, scope: str) -> EntityProfile | None:
    bodies = store.documents(PROFILE, scope, key=entity_id)
    return EntityProfile.model_validate_json(bodies[-1]) if bodies else None


def load_decisions(store: Store, scope: str | None = None) -> list[Resolved]:
    return [Resolved.model_validate_json(b) for b in store.documents(DECISION, scope)]


def _entity_mention(entity_id: str, name: str, scope: str, at: datetime) -> Mention:
    """A person's decision is about a whole entity; the resolver records it as a mention of it."""
    return Mention(mention_id=f"entity:{entity_id}", name=name, scope=scope,
                   episode_id=f"entity:{entity_id}", at=at)


def _same_as_draft(scope: str, a: str, b: str, by: str, at: datetime, record: str) -> Draft:
    return Draft(
        assertion_id="as_" + hashlib.sha256(
            f"{scope}~{a}~{b}~{at.isoformat()}".encode()).hexdigest()[:20],
        scope=scope, subject=a, predicate=SAME_AS, value=b, kind=Kind.WORLD, writer=by,
        valid=Interval(start=at), reason=EndReason.ASSERTED, recorded_by=record,
    )


def _person_merge(version: Assertion) -> bool:
    # merge_entities records its pair by the person's decision, whose mention is the entity
    # ("entity:ID@by@time"); an ingested same_as is recorded by its episode ("ep_...").
    return version.recorded_by.startswith("entity:")


def identity_link(policy: WriterPolicy, version: Assertion) -> bool:
    """Whether a ``same_as`` revision pools facts: a person's merge, or a claim by a writer the
    policy lets claim identity. A claim the gate refuses today (a tool's, stored before the
    gate judged identity claims) is an attributed revision and pools nothing."""
    return _person_merge(version) or may_claim_identity(policy, version.writer)


def merge_entities(store: Store, keep: str, other: str, *, by: str, reason: str,
                   scope: str) -> Resolved:
    """A person says ``other`` is the same as ``keep``: recorded, reversible, never automatic."""
    profile = load_profile(store, other, scope)
    name = profile.names[0] if profile else other
    with store.transaction(scope) as tx:
        for entity in (keep, other):
            if tx.entity(entity) is None:
                raise NotFound(f"no entity {entity!r}")
        mention = _entity_mention(other, name, scope, tx.now)
        decision = manual_decision(mention, Outcome.MERGE, entity_id=keep, decided_by=by,
                                   decided_at=tx.now, reason=reason)
        for a, b in ((keep, other), (other, keep)):
            slot = Slot(scope=scope, subject=a, predicate=SAME_AS)
            draft = _same_as_draft(scope, a, b, by, tx.now, decision.decision_id)
            plan = plan_write(tx.live_versions(slot), draft, episode_id=decision.decision_id)
            # Relationships, so a merge is visible in a graph browser; whether it still holds
            # is the assertion's to say (its revisions close when it is undone).
            written = plan.drafts[-1].assertion_id if plan.drafts else draft.assertion_id
            apply_plan(tx, plan.model_copy(update={"edges": (
                PlannedEdge(src=written, type=EdgeType.ABOUT, dst=a),
                PlannedEdge(src=written, type=EdgeType.SAME_AS, dst=b),
            )}))
        resolved = Resolved(decision=decision, entity_id=keep)
        save_decision(tx, resolved)
        return resolved


def unmerge_entities(store: Store, keep: str, other: str, *, by: str, reason: str,
                     scope: str) -> Resolved:
    """Undo a merge: retract the ``same_as`` pair from now on and record a keep-apart.

    History keeps the merge (what we believed then); facts were never moved, so each one is
    back with the entity it was written for as soon as the pair is retracted.
    """
    with store.transaction(scope) as tx:
        live = [v for a, b in ((keep, other), (other, keep))
                for v in tx.live_versions(Slot(scope=scope, subject=a, predicate=SAME_AS))
                if v.value == b]
        if not live:
            raise NotFound(f"{keep} and {other} are not merged")
        mention = _entity_mention(other, other, scope, tx.now)
        decision = manual_decision(mention, Outcome.KEEP_APART, kept_apart_from=[keep],
                                   decided_by=by, decided_at=tx.now, reason=reason)
        plan = plan_retraction(live, Interval(start=tx.now), episode_id=decision.decision_id)
        apply_plan(tx, plan.model_copy(update={"edges": ()}))
        resolved = Resolved(decision=decision, entity_id=other)
        save_decision(tx, resolved)
        return resolved


def keep_apart(store: Store, provisional: str, candidate: str, *, by: str, reason: str,
               scope: str) -> Resolved:
    """A person says ``provisional`` is not ``candidate``; the resolver will not overturn it."""
    with store.transaction(scope) as tx:
        # Both in this scope: a keep-apart naming another tenant's entity would be a decision
        # about something this tenant cannot see.
        for entity in (provisional, candidate):
            if tx.entity(entity) is None:
                raise NotFound(f"no entity {entity!r}")
        mention = _entity_mention(provisional, provisional, scope, tx.now)
        decision = manual_decision(mention, Outcome.KEEP_APART, kept_apart_from=[candidate],
                                   decided_by=by, decided_at=tx.now, reason=reason)
        _leave_family(tx, store, provisional, candidate, scope)
        resolved = Resolved(decision=decision, entity_id=provisional)
        save_decision(tx, resolved)
        return resolved


def _leave_family(tx: Transaction, store: Store, provisional: str, candidate: str,
                  scope: str) -> None:
    """A provisional copy a person keeps apart from its family stops being a copy: the
    resolver takes a copy for its entity seen twice (never a rival to it), which would let a
    later mention treat the two as one after a person said they are not."""
    mine, theirs = load_profile(store, provisional, scope), load_profile(store, candidate, scope)
    if mine is not None and mine.copy_of is not None and mine.family == (
            theirs.family if theirs is not None else candidate):
        save_profile(tx, mine.model_copy(update={"copy_of": None}))


def preview_resolution(store: Store, candidate: MentionCandidate, scope: str) -> ResolutionDecision:
    """How a mention would resolve now, with all the evidence; nothing is recorded."""
    with store.transaction(scope) as tx:
        record = IngestRecord(operation_id="preview", source="preview", channel=Channel.API,
                              occurred_at=tx.now, scope=scope)
        mention = to_mention(candidate, record, "preview")
        profiles = [EntityProfile.model_validate_json(b) for b in tx.documents_by(
            PROFILE, scope, sorted(mention_keys(mention)))]
        return resolve(mention, BlockingIndex(profiles), now=tx.now)


def forget_identity(tx: Transaction, store: Store, episodes: dict[str, str],
                    entity: str | None = None) -> int:
    """Erase what identity resolution learnt from forgotten episodes (or about ``entity``).

    ``episodes`` maps each forgotten episode to its scope. Decisions quote their mention (a
    name, identifiers, context), so a decision whose mention came from a forgotten episode is
    erased; profiles lose the attributes and lineage those episodes gave them, and a profile
    left with no lineage, or of a forgotten entity, goes. Everything is found by lookup key,
    never by reading every document. Returns how many documents were erased or rewritten.
    """
    lookup: dict[str, list[str]] = {}
    for episode, scope in episodes.items():
        lookup.setdefault(scope, []).append(_episode_key(episode))
    gone = load_profile(store, entity, tx.scope) if entity else None
    if gone is not None:
        lookup.setdefault(gone.scope, []).append(gone.entity_id)
        tx.delete_document(PROFILE, gone.entity_id)
    touched = int(gone is not None)
    for scope, keys in lookup.items():
        forgotten: list[Mention] = []
        for body in tx.documents_by(DECISION, scope, keys):
            d = Resolved.model_validate_json(body).decision
            tx.delete_document(DECISION, d.decision_id)
            touched += 1
            if d.mention.episode_id in episodes:
                forgotten.append(d.mention)
        for body in tx.documents_by(PROFILE, scope, keys):
            profile = EntityProfile.model_validate_json(body)
            touched += 1
            tx.delete_document(PROFILE, profile.entity_id)
            kept = tuple(e for e in profile.episode_ids if e not in episodes)
            if kept and profile.entity_id != entity:
                save_profile(tx, _without(tx, profile.model_copy(update={
                    "episode_ids": kept,
                    "attributes": tuple(a for a in profile.attributes
                                        if a.episode_id not in episodes),
                    "declared": tuple(d for d in profile.declared if d.episode_id not in episodes),
                }), [*forgotten, *(d for d in profile.declared if d.episode_id in episodes)]))
    return touched


def _without(tx: Transaction, profile: EntityProfile,
             forgotten: Sequence[Mention | Declaration]) -> EntityProfile:
    """``profile`` without the names and identifiers only forgotten mentions and declarations
    gave it.

    A profile keeps no per-name lineage but its declarations', so what a kept episode's
    mention or declaration also says stays, and the rest goes; the entity's own display name
    follows when it was one of those.
    """
    if not forgotten:
        return profile
    kept: list[Mention | Declaration] = [
        Resolved.model_validate_json(b).decision.mention for b in tx.documents_by(
            DECISION, profile.scope, [_episode_key(e) for e in profile.episode_ids])]
    kept.extend(profile.declared)
    said = {m.name for m in kept}
    gone_names = {m.name for m in forgotten} - said
    said_ids = {(i.kind, i.value) for m in kept for i in m.identifiers}
    gone_ids = {(i.kind, i.value) for m in forgotten for i in m.identifiers} - said_ids
    names = tuple(n for n in profile.names if n not in gone_names) or tuple(
        sorted(said)) or (profile.entity_id,)
    known = tx.entity(profile.entity_id)
    if known is not None and known.name in gone_names:
        tx.rename_entity(profile.entity_id, names[0])
    return profile.model_copy(update={
        "names": names,
        "identifiers": tuple(i for i in profile.identifiers if (i.kind, i.value) not in gone_ids),
    })


def unmerge_decision(store: Store, decision_id: str, *, by: str, reason: str,
                     scope: str) -> Resolved:
    """Undo the resolver's MERGE of one mention: split the facts back by lineage.

    Facts the merged entity holds only through the mention's episode move to a restored entity
    (written anew for it, with the same support; retracted from the merged one, so history
    keeps what was believed); facts both sides support stay on both (see
    :func:`kg_memory.domain.resolution.unmerge`). A keep-apart decision by ``by`` is recorded, and
    the
    resolver never overturns it.
    """
    found = [r for r in load_decisions(store, scope) if r.decision.decision_id == decision_id]
    if not found or found[0].decision.outcome is not Outcome.MERGE:
        raise NotFound(f"no merge decision {decision_id!r}")
    merged = found[0].decision
    merged_id = found[0].entity_id
    restored = new_entity_id(f"{merged.mention.mention_id}/unmerged")
    facts = [v for v in store.history(merged_id, scope=scope) if v.system.end is None]
    ids = sorted({v.assertion_id for v in facts})
    support = {aid: tuple(s.episode_id for s in sup) for aid, sup in store.supports(ids).items()}
    plan = resolution_unmerge(
        merged, [AttachedFact(fact_id=a, episode_ids=support[a]) for a in ids if support[a]],
        restored_entity_id=restored)
    with store.transaction(scope) as tx:
        decision = manual_decision(merged.mention, Outcome.KEEP_APART, kept_apart_from=[merged_id],
                                   decided_by=by, decided_at=tx.now, reason=reason)
        tx.put_entity(Entity(entity_id=restored, type=merged.mention.entity_type or "person",
                             name=merged.mention.name, scope=merged.mention.scope))
        save_profile(tx, grow_profile(None, restored, merged.mention))
        for assignment in plan.assignments:
            if assignment.entity_id != restored:
                continue
            live = [v for v in facts if v.assertion_id == assignment.fact_id]
            for version in live:
                draft = Draft(**{**version.model_dump(include=set(Draft.model_fields) - {
                    "assertion_id", "subject", "reason", "recorded_by", "valid"}),
                    "assertion_id": "as_" + hashlib.sha256(
                        f"{version.assertion_id}/{decision.decision_id}".encode()).hexdigest()[:20],
                    "subject": restored, "valid": version.valid, "reason": EndReason.ASSERTED,
                    "recorded_by": decision.decision_id})
                tx.insert_version(draft)
                for episode in assignment.episode_ids:
                    tx.add_edge(PlannedEdge(src=episode, type=EdgeType.SUPPORTS,
                                            dst=draft.assertion_id))
                tx.add_edge(PlannedEdge(src=draft.assertion_id, type=EdgeType.ABOUT,
                                        dst=restored))
            if assignment.fact_id not in plan.split:
                everything = Interval(start=min(v.valid.start for v in live))
                apply_plan(tx, plan_retraction(live, everything, episode_id=decision.decision_id
                                               ).model_copy(update={"edges": ()}))
        resolved = Resolved(decision=decision, entity_id=restored)
        save_decision(tx, resolved)
        return resolved
