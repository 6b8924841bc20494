"""What a forget run writes besides the erasure itself: restored valid time, rebuilt derived
records, retired dependents and the tombstones' keys.

Each step runs inside the run's one transaction (:mod:`kg_memory.services.forget_run`) and
reads through it, so it sees what the steps before it wrote.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime

from kg_memory.domain.change import Draft, PlannedEdge
from kg_memory.domain.consolidation import derive_profile
from kg_memory.domain.dependency import ALWAYS, retirement_walk
from kg_memory.domain.forgetting import (
    EVIDENCE,
    ForgetPlan,
    evidence_key,
    node_key,
    operation_key,
)
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Assertion, EdgeType, EndReason, Episode
from kg_memory.domain.supersession import draft_of, plan_write
from kg_memory.store.link_reads import Revision
from kg_memory.store.protocol import Slot, Store, Transaction, apply_plan

__all__ = ["entity_keys", "entity_reference", "evidence_instants", "rebuild", "restore",
           "retire_dependents", "tombstone_keys", "unname_entities"]


def _lost_valid_time(versions: list[Assertion], enders: set[str]) -> list[Interval]:
    """Valid time an assertion lost to the forgotten writers (closed minus remainders)."""
    lost: list[Interval] = []
    for closed in versions:
        if closed.closed_by not in enders:
            continue
        parts = [closed.valid]
        for rest in versions:
            if (
                rest.recorded_by == closed.closed_by
                and rest.assertion_id == closed.assertion_id
                and rest.revision > closed.revision
            ):
                parts = [p for part in parts for p in part.minus(rest.valid)]
        lost.extend(parts)
    return lost


def restore(tx: Transaction, store: Store, fact: str, enders: set[str], activity: str) -> None:
    """Give ``fact`` back the valid time the forgotten writers ``enders`` took from it, where
    nothing believed holds there now."""
    versions = store.versions([fact])
    if not versions:
        return
    latest = versions[-1]
    slot = Slot(
        scope=latest.scope,
        subject=latest.subject,
        predicate=latest.predicate,
        project=latest.qualifiers.project,
    )
    for portion in _lost_valid_time(versions, enders):
        pieces = [portion]
        for live in tx.live_versions(slot):  # never overwrite what holds there now
            pieces = [p for piece in pieces for p in piece.minus(live.valid)]
        for piece in pieces:
            draft = draft_of(latest, piece, EndReason.ASSERTED, activity)
            step = plan_write(tx.live_versions(slot), draft, episode_id=activity)
            apply_plan(tx, step.model_copy(update={"edges": ()}))


def rebuild(
    tx: Transaction, store: Store, record: str, deleted: set[str], activity: str, generation: int
) -> str | None:
    """Recompute a derived record from its surviving sources, as a new revision."""
    sources = {
        e.dst for e in store.edges(record, tx.scope)
        if e.src == record and e.type is EdgeType.DERIVED_FROM
    } - deleted
    survivors = [v for s in sorted(sources) for v in tx.live_versions_of(s) if v.valid.end is None]
    old = [v for v in store.versions([record]) if v.system.end is None]
    if not survivors or not old:
        return None
    base = old[-1]
    value, qualifiers = derive_profile(survivors, base.qualifiers.project)
    new_id = "as_" + hashlib.sha256(f"{record}/{generation}".encode()).hexdigest()[:20]
    draft = Draft(
        assertion_id=new_id,
        scope=base.scope,
        subject=base.subject,
        predicate=base.predicate,
        value=value,
        qualifiers=qualifiers,
        kind=base.kind,
        writer=base.writer,
        valid=base.valid,
        reason=EndReason.ASSERTED,
        recorded_by=activity,
    )
    tx.insert_version(draft)
    for survivor in survivors:
        tx.add_edge(PlannedEdge(src=new_id, type=EdgeType.DERIVED_FROM, dst=survivor.assertion_id))
        tx.add_edge(PlannedEdge(src=activity, type=EdgeType.USED, dst=survivor.assertion_id))
    tx.add_edge(PlannedEdge(src=new_id, type=EdgeType.GENERATED_BY, dst=activity))
    tomb = f"tomb_{node_key(store.secret, tx.scope, record)[:20]}"
    tx.add_edge(PlannedEdge(src=new_id, type=EdgeType.REVISION_OF, dst=tomb))
    return new_id


def retire_dependents(tx: Transaction, grounds: Sequence[str], activity: str) -> None:
    """Retire, whole and transitively, what the transaction still believes on the erased
    ``grounds`` (deleted facts, forgotten entities): the walk the plan ran
    (:func:`kg_memory.domain.dependency.retirement_walk`), over the transaction's view.

    The dependents of every ground are read in one go (a source with 1,000 derivatives asks
    once, not 1,000 times); those the walk reaches later are read as it reaches them. A
    prefetched list can go stale only by the walk's own writes: the closures (tracked here)
    and remainders, which an erased retirement never leaves (it retracts from the beginning of
    time); should one appear, the prefetch is dropped and every later read is fresh."""
    gone = set(grounds)
    closed: set[tuple[str, int]] = set()
    first = tx.live_dependents_many(list(dict.fromkeys(grounds)))

    def live(key: str) -> list[Assertion]:
        found = first.pop(key) if key in first else tx.live_dependents(key)
        return [v for v in found
                if v.assertion_id not in gone and (v.assertion_id, v.revision) not in closed]

    for step in retirement_walk([(g, ALWAYS) for g in dict.fromkeys(grounds)], live,
                                episode_id=activity, erased=True):
        apply_plan(tx, step.model_copy(update={"edges": ()}))  # closed_by names the run
        closed |= {(c.assertion_id, c.revision) for c in step.closures}
        if step.drafts:
            first.clear()


def entity_reference(key: str) -> str:
    """What a forgotten entity's dependents name it by once it is gone: its tombstone's node
    id, made from its tombstone key (:func:`entity_keys`: an HMAC of scope and id, so
    content-free and distinct per tenant), never the id itself, which is user-chosen text."""
    return f"tomb_{key[:20]}"


def entity_keys(secret: bytes, scope: str, entity_ids: Sequence[str]) -> dict[str, str]:
    """The node tombstone key of each forgotten entity, by id: hashed once per run, then
    both the tombstone (:func:`tombstone_keys`) and the reference its dependents get
    (:func:`unname_entities`) are made from it (each used to hash it again: 1,000 HMACs more
    for a source of 1,000 facts)."""
    return {entity_id: node_key(secret, scope, entity_id) for entity_id in entity_ids}


def unname_entities(tx: Transaction, keys: Mapping[str, str]) -> None:
    """Replace each forgotten entity's id in what depended on it (every revision, open or
    closed, and the dependency index) with :func:`entity_reference`, made from the entity's
    tombstone key in ``keys`` (:func:`entity_keys`): the dependents keep their history,
    retired, without the name (see
    :meth:`~kg_memory.store.protocol.Transaction.rewrite_dependencies`)."""
    tx.rewrite_dependencies({entity_id: entity_reference(key)
                             for entity_id, key in keys.items()})


def tombstone_keys(
    the_plan: ForgetPlan, secret: bytes, deleted: Sequence[Revision], episodes: list[Episode],
    scope: str, entities: Mapping[str, str] | None = None,
    evidence: Mapping[str, Sequence[datetime]] | None = None,
) -> list[tuple[str, str]]:
    """``(kind, key)`` of every tombstone the run leaves: each erased node and forgotten
    entity (``entities``, each with its key: :func:`entity_keys`; what depended on it now
    names this tombstone), each forgotten operation id (of ``episodes``, the erased and
    redacted ones), and each deleted fact's evidence: its slot at each instant ``evidence``
    gives for it (when the episodes that recorded or supported it occurred), never its value
    (:func:`~kg_memory.domain.forgetting.evidence_key`)."""
    keys: list[tuple[str, str]] = []
    gone_rules = [r.rule_id for r in the_plan.rules if r.outcome == "delete"]
    for node in (*the_plan.delete, *the_plan.rebuild, *the_plan.erase, *gone_rules):
        keys.append(("node", node_key(secret, scope, node)))
    keys += [("node", key) for key in (entities or {}).values()]
    for episode in episodes:
        keys.append(("operation", operation_key(secret, episode.scope, episode.operation_id)))
    for version in deleted:
        if version.kind == "derived":
            continue
        for instant in (evidence or {}).get(version.assertion_id, ()):
            keys.append((EVIDENCE, evidence_key(
                secret, version.scope, version.subject, version.predicate,
                version.project, instant)))
    return list(dict.fromkeys(keys))


def evidence_instants(store: Store, deleted: Sequence[Revision], scope: str
                      ) -> dict[str, list[datetime]]:
    """When the evidence of each deleted fact occurred: the episodes that recorded a revision
    of it or support it (read before anything is erased). Derived records have no evidence
    tombstone (nothing re-sends them), so their edges are not read."""
    deleted = [v for v in deleted if v.kind != "derived"]
    # Grouped in one pass: a comprehension per fact over every deleted revision was
    # quadratic (a million comparisons for a source with 1,000 derivatives).
    by_fact: dict[str, set[str]] = {}
    for v in sorted(deleted, key=lambda v: v.assertion_id):
        by_fact.setdefault(v.assertion_id, set()).add(v.recorded_by)
    ids = list(by_fact)
    # Links, not edges: the plan's lineage walk read the same facts' links, so the run's
    # planning reads answer this without a statement or an edge model per row.
    for fact, links in store.links_of(ids, scope).items():
        by_fact[fact] |= {src for src, kind, dst in links
                          if dst == fact and kind is EdgeType.SUPPORTS}
    occurred = {e.episode_id: e.occurred_at
                for e in store.episodes(sorted(set().union(*by_fact.values())))}
    return {fact: sorted({occurred[e] for e in eps if e in occurred})
            for fact, eps in by_fact.items()}
