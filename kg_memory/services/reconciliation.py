"""Writing under a :class:`~kg_memory.domain.write_policy.WritePolicy`, inside the episode's
transaction.

The ingestion path calls :func:`screen` once the writer gate admitted a candidate (is it worth
remembering?) and :func:`plan_under` instead of the bare supersession rule (what does it do to
the current value?). Every decision is recorded as an ``admission`` document and every value
that has to wait as a ``pending`` document (see :mod:`kg_memory.domain.pending`), on whichever
backend the transaction belongs to. Without a write policy neither function is called, and the
write path is exactly what it was.
"""

from __future__ import annotations

from kg_memory.domain.admission import admit_candidate
from kg_memory.domain.change import ChangePlan, Draft, Effect, PlannedEdge
from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.model import Assertion, EdgeType, Episode
from kg_memory.domain.pending import (
    AdmissionDecision,
    Mention,
    PendingCandidate,
    slot_lookup,
    waiting_entry,
)
from kg_memory.domain.reconcile import verdict
from kg_memory.domain.record import AssertionCandidate
from kg_memory.domain.supersession import plan_write
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.store.protocol import Slot, Store, Transaction

__all__ = ["ADMISSION", "PENDING", "forget_policy_records", "plan_under", "record_refusal",
           "screen"]

ADMISSION = "admission"
PENDING = "pending"


def _record(tx: Transaction, episode: Episode, index: int, key: str, decision: str,
            category: str, reason: str = "") -> None:
    body = AdmissionDecision(episode_id=episode.episode_id, index=index, scope=episode.scope,
                             key=key, decision=decision, category=category, reason=reason,
                             at=tx.now)
    tx.put_document(ADMISSION, f"{episode.episode_id}/{index}", episode.scope,
                    body.model_dump_json())


def record_refusal(tx: Transaction, episode: Episode, index: int, key: str, category: str,
                   reason: str) -> None:
    """Count a refusal made before admission (the writer gate's: ``provenance``; an unmet
    dependency's) among the write policy's decisions: seed 003's rejection rates by reason
    include untrusted sources, and every candidate it judged is then one decision."""
    _record(tx, episode, index, key, "refused", category, reason)


def screen(tx: Transaction, policy: WritePolicy, episode: Episode, index: int,
           candidate: AssertionCandidate) -> Effect | None:
    """Admission: ``None`` to go on, or the refusal effect (recorded, with its reason)."""
    rule = policy.rule_for(candidate.predicate)
    admission = admit_candidate(rule, candidate.confidence, candidate.scope_label)
    if admission.admitted:
        return None
    key = f"{candidate.subject}.{candidate.predicate}"
    _record(tx, episode, index, key, "refused", admission.category, admission.reason)
    return Effect(action="refused", key=key, value=candidate.value,
                  detail=f"write policy {policy.name}: {admission.reason}")


def _pending_of(tx: Transaction, slot: Slot) -> dict[str, PendingCandidate]:
    lookup = slot_lookup(slot.scope, slot.subject, slot.predicate, slot.project)
    found = (PendingCandidate.model_validate_json(b)
             for b in tx.documents_by(PENDING, slot.scope, [lookup]))
    return {p.pending_id: p for p in found}


def _put_pending(tx: Transaction, slot: Slot, pending: PendingCandidate) -> None:
    tx.put_document(PENDING, pending.pending_id, slot.scope, pending.model_dump_json(),
                    lookup=[slot_lookup(slot.scope, slot.subject, slot.predicate, slot.project)])


def plan_under(tx: Transaction, policy: WritePolicy, slot: Slot, live: list[Assertion],
               draft: Draft, candidate: AssertionCandidate, episode: Episode, index: int
               ) -> ChangePlan:
    """The change ``draft`` makes under ``policy`` to ``live`` (the slot's revisions it may
    supersede: the writer's own tier): a write, a refresh, a replacement, an appended record,
    or nothing but a pending mention."""
    rule = policy.rule_for(slot.predicate)
    current = [v for v in live if v.valid.overlaps(draft.valid)]
    # A value promoted before waits in a new generation: its promotion record is history.
    pid, waiting = waiting_entry(_pending_of(tx, slot).values(), slot.scope, slot.subject,
                                 slot.predicate, slot.project, draft.value)
    mention = Mention(episode_id=episode.episode_id, occurred_at=episode.occurred_at,
                      confidence=draft.confidence, source=episode.source,
                      fingerprint=fingerprint(episode.content))
    corroborating = int(waiting is not None and waiting.corroborated_by(mention,
                                                                        rule.window_days))
    chosen = verdict(policy.mode, rule, current=[(v.value, v.confidence) for v in current],
                     value=draft.value, confidence=draft.confidence,
                     explicit=candidate.explicit, corroborating=corroborating)
    key = f"{slot.subject}.{slot.predicate}"
    if chosen.action == "pend":
        evidence = (waiting.evidence if waiting else ()) + (mention,)
        _put_pending(tx, slot, PendingCandidate(
            pending_id=pid, scope=slot.scope, subject=slot.subject, predicate=slot.predicate,
            project=slot.project, value=draft.value, kind=draft.kind, writer=draft.writer,
            evidence=evidence, updated_at=tx.now))
        _record(tx, episode, index, key, "pending", "conflict", chosen.reason)
        return ChangePlan(effects=(Effect(action="pending", key=key, value=draft.value,
                                          assertion_id=pid, detail=chosen.reason),))
    if chosen.action == "append":
        plan = ChangePlan(
            drafts=(draft,),
            edges=(PlannedEdge(src=episode.episode_id, type=EdgeType.SUPPORTS,
                               dst=draft.assertion_id),),
            effects=(Effect(action="written", key=key, value=draft.value,
                            assertion_id=draft.assertion_id, detail=chosen.reason),))
    else:
        plan = plan_write(live, draft, episode_id=episode.episode_id)
    category = chosen.action if chosen.action != "replace" else f"replaced: {chosen.reason}"
    _record(tx, episode, index, key, "accepted", category, chosen.reason)
    if waiting is not None and chosen.action in ("replace", "write"):
        written = plan.drafts[-1].assertion_id if plan.drafts else None
        _put_pending(tx, slot, waiting.model_copy(update={
            "evidence": (*waiting.evidence, mention), "status": "promoted",
            "promoted_to": written, "updated_at": tx.now}))
    return plan


def forget_policy_records(tx: Transaction, store: Store, erased: dict[str, str]) -> None:
    """Erase what write policies kept of forgotten episodes (``{episode_id: scope}``).

    A pending candidate holds the value its episodes proposed, so it is a copy a forget request
    must chase: its mentions from erased episodes go, and a candidate left without evidence goes
    with them. Admission decisions of erased episodes go too.
    """
    for scope in sorted(set(erased.values())):
        for body in store.documents(PENDING, scope):
            pending = PendingCandidate.model_validate_json(body)
            kept = tuple(m for m in pending.evidence if m.episode_id not in erased)
            if len(kept) == len(pending.evidence):
                continue
            if kept:
                slot = Slot(scope=pending.scope, subject=pending.subject,
                            predicate=pending.predicate, project=pending.project)
                _put_pending(tx, slot, pending.model_copy(update={"evidence": kept}))
            else:
                tx.delete_document(PENDING, pending.pending_id)
        for body in store.documents(ADMISSION, scope):
            decision = AdmissionDecision.model_validate_json(body)
            if decision.episode_id in erased:
                tx.delete_document(ADMISSION, f"{decision.episode_id}/{decision.index}")
