"""Running a forget request: plan by lineage, execute in one transaction, scrub, report.

The plan (:func:`kg_memory.domain.forgetting.plan_forget`) is computed the same way for a dry run
and a real one, so ``--dry-run`` prints exactly what will happen. Execution is one store
transaction: it erases, rebuilds, restores, retires what depended on an erased fact, writes
tombstones and records the forget run as a prov:Activity without the forgotten payload. Then
the store scrubs its files and each destination reports completion. Running the same request
again finds nothing left to erase, finishes any scrub a crash interrupted, and reports the run
as complete: it is idempotent and resumable.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.change import Draft, PlannedEdge
from kg_memory.domain.consolidation import derive_profile
from kg_memory.domain.dependency import ALWAYS, retirement_walk
from kg_memory.domain.errors import NotFound, ScopeError
from kg_memory.domain.forgetting import (
    ForgetPlan,
    Selector,
    content_key,
    node_key,
    operation_key,
    plan_forget,
)
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Activity, Assertion, Block, EdgeType, EndReason, Tombstone
from kg_memory.domain.supersession import draft_of, plan_write
from kg_memory.services.identity import forget_identity
from kg_memory.services.lineage import forget_view
from kg_memory.services.plan_reads import plan_reads
from kg_memory.services.reconciliation import forget_policy_records
from kg_memory.services.residues import (
    ResidueSearch,
    find_residues,
    orphaned_entities,
    redact_residues,
)
from kg_memory.services.rule_basis import apply_rule_forgetting, plan_rule_forgetting
from kg_memory.store import scrub as scrub_everywhere
from kg_memory.store.protocol import Slot, Store, Transaction, apply_plan

__all__ = ["ForgetReport", "forget", "selector_scopes"]

FORGETTER = "kg-memory-forget"


class ForgetReport(BaseModel):
    """The outcome: the plan, and per destination whether erasure is complete."""

    model_config = ConfigDict(frozen=True)

    selector: str
    dry_run: bool
    status: str  # planned | complete | incomplete | nothing-to-forget
    plan: ForgetPlan
    activity_id: str | None = None
    generation: int | None = None
    block_id: str | None = None
    at: UtcDatetime | None = None
    destinations: tuple[dict[str, Any], ...] = ()
    scope: str | None = None  # the scope of a single run
    scopes: tuple[str, ...] = ()  # the scopes an all-scopes request ran in
    residues_found: int = 0  # residual copies of the erased text in what was retained
    residues_redacted: int = 0  # of those, cut out (none with keep_residues)


def _targets(store: Store, selector: Selector, scope: str) -> tuple[set[str], set[str]]:
    """The episodes and assertions a selector names in ``scope``, by id or by lineage, never
    by text. An id of another scope names nothing here."""
    if selector.kind == "episode":
        return {e.episode_id for e in store.episodes([selector.value]) if e.scope == scope}, set()
    if selector.kind == "assertion":
        return set(), {v.assertion_id for v in store.versions([selector.value])
                       if v.scope == scope}
    if selector.kind == "entity":
        return set(), set(store.find_assertions(scope=scope, subject=selector.value))
    if selector.kind == "source":
        return set(store.find_episodes(selector.value, scope)), set()
    return set(), set(
        store.find_assertions(scope, selector.subject, selector.predicates or "*",
                              selector.project)
    )


def selector_scopes(store: Store, selector: Selector) -> list[str]:
    """Every scope in which an unscoped selector names something (an operator's all-scopes
    request runs once in each, so no single run crosses a scope)."""
    if selector.scope is not None:
        return [selector.scope]
    found: set[str] = set()
    if selector.kind == "episode":
        found = {e.scope for e in store.episodes([selector.value])}
    elif selector.kind == "assertion":
        found = {v.scope for v in store.versions([selector.value])}
    elif selector.kind == "entity":
        found = {e.scope for e in store.entities() if e.entity_id == selector.value}
        found |= {v.scope for v in store.versions(store.find_assertions(subject=selector.value))}
    elif selector.kind == "source":
        found = {e.scope for e in store.episodes(store.find_episodes(selector.value))}
    return sorted(found)


def plan(store: Store, selector: Selector) -> ForgetPlan:
    """The plan of a selector bound to one scope."""
    return _plan(store, selector)[0]


def _plan(store: Store, selector: Selector, keep_residues: bool = False
          ) -> tuple[ForgetPlan, ResidueSearch]:
    """The lineage plan, then what lineage cannot see: orphaned entities and residues (and,
    unless ``keep_residues``, what cutting the residues in rules' words does to them)."""
    scope = _required_scope(selector)
    store = plan_reads(store)  # one state read once, however many passes look at it
    episodes, assertions = _targets(store, selector, scope)
    by_lineage = plan_forget(
        forget_view(store, episodes, assertions, scope), selector, episodes=episodes,
        assertions=assertions,
    )
    rules, bindings = plan_rule_forgetting(store, scope, set(by_lineage.erase))
    if bindings - set(by_lineage.delete):  # a deleted rule's binding facts go with it
        assertions |= bindings
        by_lineage = plan_forget(forget_view(store, episodes, assertions, scope), selector,
                                 episodes=episodes, assertions=assertions)
    by_lineage = by_lineage.model_copy(update={"rules": rules})
    found = find_residues(store, by_lineage)
    if found.rules and not keep_residues:
        by_lineage = by_lineage.model_copy(update={"rules": found.rules})
    entities = orphaned_entities(
        store, by_lineage, selector.value if selector.kind == "entity" else None)
    return by_lineage.model_copy(update={
        "entities": entities, "residues": tuple(r.residue for r in found.found)}), found


def _required_scope(selector: Selector) -> str:
    if selector.scope is None:
        raise ScopeError(
            f"selector {selector} names no scope: add @SCOPE (a forget acts within one scope), "
            "or ask for every scope explicitly (--all-scopes)")
    return selector.scope


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


def _restore(tx: Transaction, store: Store, fact: str, enders: set[str], activity: str) -> None:
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


def _rebuild(
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
    secret = store.secret
    tomb = f"tomb_{node_key(secret, tx.scope, record)[:20]}"
    tx.add_edge(PlannedEdge(src=new_id, type=EdgeType.REVISION_OF, dst=tomb))
    return new_id


def _tombstones(
    store: Store, the_plan: ForgetPlan, secret: bytes, deleted: list[Assertion], scope: str
) -> list[tuple[str, str]]:
    keys: list[tuple[str, str]] = []
    gone_rules = [r.rule_id for r in the_plan.rules if r.outcome == "delete"]
    for node in (*the_plan.delete, *the_plan.rebuild, *the_plan.erase, *gone_rules):
        keys.append(("node", node_key(secret, scope, node)))
    for episode in store.episodes([*the_plan.erase, *the_plan.redact]):
        keys.append(("operation", operation_key(secret, episode.scope, episode.operation_id)))
    for version in deleted:
        if version.kind != "derived":
            keys.append(
                (
                    "content",
                    content_key(
                        secret,
                        version.scope,
                        version.subject,
                        version.predicate,
                        version.qualifiers.project,
                        version.value,
                    ),
                )
            )
    return list(dict.fromkeys(keys))


def forget(
    store: Store, selector: Selector, *, dry_run: bool = False, block: bool = False,
    all_scopes: bool = False,
    keep_residues: bool = False,
) -> ForgetReport:
    """Forget what ``selector`` names and everything derived only from it, in the selector's
    scope. A selector without a scope is refused (:class:`ScopeError`) unless ``all_scopes``
    says the caller means every scope: then it runs once per scope it names something in, and
    the report is the union of those runs.

    Residual copies of the erased text in retained episodes, refusals, documents and derived
    records of the same scope are cut out too, unless ``keep_residues``; either way the report
    counts them (see :mod:`kg_memory.services.residues`)."""
    if selector.scope is None and not all_scopes:
        _required_scope(selector)
    if selector.scope is not None:
        return _forget_in_scope(store, selector, dry_run=dry_run, block=block,
                                keep_residues=keep_residues)
    runs = [_forget_in_scope(store, selector.in_scope(scope), dry_run=dry_run, block=block,
                             keep_residues=keep_residues)
            for scope in selector_scopes(store, selector)]
    return _union(selector, dry_run, runs)


def _union(selector: Selector, dry_run: bool, runs: list[ForgetReport]) -> ForgetReport:
    fields = ("delete", "rebuild", "erase", "redact", "restore", "retire", "retain")
    merged = ForgetPlan(
        selector=selector,
        residues=tuple(residue for r in runs for residue in r.plan.residues),
        rules=tuple(rule for r in runs for rule in r.plan.rules),
        **{f: tuple(sorted({n for r in runs for n in getattr(r.plan, f)}))
           for f in (*fields, "entities")})
    statuses = {r.status for r in runs}
    status = "planned" if dry_run else (
        "incomplete" if "incomplete" in statuses else
        "complete" if "complete" in statuses else "nothing-to-forget")
    activities = [r.activity_id for r in runs if r.activity_id]
    return ForgetReport(
        selector=str(selector), dry_run=dry_run, status=status, plan=merged,
        activity_id=activities[0] if activities else None,
        generation=max((r.generation for r in runs if r.generation), default=None),
        at=max((r.at for r in runs if r.at), default=None),
        destinations=runs[-1].destinations if runs else (),
        scopes=tuple(r.scope for r in runs if r.scope),
        residues_found=sum(r.residues_found for r in runs),
        residues_redacted=sum(r.residues_redacted for r in runs),
    )


def _forget_in_scope(
    store: Store, selector: Selector, *, dry_run: bool, block: bool, keep_residues: bool
) -> ForgetReport:
    scope = _required_scope(selector)
    the_plan, found = _plan(store, selector, keep_residues)
    residues = sum(r.spans for r in the_plan.residues)
    redacted = 0 if keep_residues else residues
    if dry_run:
        return ForgetReport(selector=str(selector), dry_run=True, status="planned", plan=the_plan,
                            scope=scope, residues_found=residues, residues_redacted=redacted)
    if block and selector.kind != "category":
        raise NotFound("--block needs a category selector (SCOPE/SUBJECT/PREDICATE_GLOB)")
    secret = store.secret
    activity_id = block_id = None
    generation = None
    at: datetime | None = None
    if not the_plan.is_empty or block:
        with store.transaction(scope) as tx:
            at = tx.now
            generation = tx.next_generation()
            activity_id = (
                "act_forget_" + hashlib.sha256(f"{selector}/{generation}".encode()).hexdigest()[:16]
            )
            deleted = store.versions(list(the_plan.delete))
            enders = set(the_plan.erase) | {v.recorded_by for v in deleted}
            tombstones = _tombstones(store, the_plan, secret, deleted, scope)
            if not keep_residues:
                for residue in [r.residue for r in found.found if r.residue.where == "record"]:
                    rebuilt = _rebuild(tx, store, residue.node, set(the_plan.delete),
                                       activity_id, generation)
                    if rebuilt is None:
                        redacted -= residue.spans  # no surviving source to rebuild it from
                        continue
                    tx.delete_assertion(residue.node)
                    if found.match is not None and any(
                            found.match.spans(str(v.value)) for v in tx.live_versions_of(rebuilt)):
                        # What its own retained sources say: kept, so not counted as cut.
                        redacted -= residue.spans
            erased = {e.episode_id: e.scope for e in store.episodes(list(the_plan.erase))}
            forget_identity(
                tx, store, erased, selector.value if selector.kind == "entity" else None,
            )
            if not keep_residues:
                redact_residues(tx, store, found)
            forget_policy_records(tx, store, erased)
            apply_rule_forgetting(tx, store, the_plan.rules, set(the_plan.erase), found.match)
            for record in the_plan.rebuild:
                _rebuild(tx, store, record, set(the_plan.delete), activity_id, generation)
            gone = set(the_plan.delete)
            for step in retirement_walk(  # the walk the plan ran, over the transaction's view
                    [(a, ALWAYS) for a in the_plan.delete], episode_id=activity_id, erased=True,
                    live_dependents=lambda key: [
                        v for v in tx.live_dependents(key) if v.assertion_id not in gone]):
                apply_plan(tx, step.model_copy(update={"edges": ()}))  # closed_by names the run
            tx.delete_assertions([*the_plan.delete, *the_plan.rebuild])
            for episode in the_plan.erase:
                tx.erase_episode(episode)
            for episode in the_plan.redact:
                tx.redact_episode(episode, list(the_plan.delete))
            if selector.kind == "entity":
                tx.delete_entity(selector.value)
            for entity in the_plan.entities:
                tx.delete_entity(entity)
            tx.forget_keys([*the_plan.entities,
                            *([selector.value] if selector.kind == "entity" else [])])
            for fact in the_plan.restore:
                _restore(tx, store, fact, enders, activity_id)
            # Set-based: a source with 1,000 derivatives leaves 2,000 tombstones and edges.
            tx.add_tombstones([
                Tombstone(key=key, kind=kind, generation=generation, activity_id=activity_id,
                          created_at=at)
                for kind, key in tombstones])
            tx.add_edges([
                PlannedEdge(src=f"tomb_{key[:20]}", type=EdgeType.INVALIDATED_BY, dst=activity_id)
                for _, key in tombstones])
            if block:
                block_id = "blk_" + hashlib.sha256(str(selector).encode()).hexdigest()[:12]
                tx.add_block(
                    Block(
                        block_id=block_id,
                        scope=selector.scope or "",
                        subject=selector.subject or "",
                        predicates=selector.predicates or "*",
                        project=selector.project,
                        created_at=at,
                    )
                )
            tx.add_activity(
                Activity(
                    activity_id=activity_id,
                    type="forget",
                    agent=FORGETTER,
                    scope=scope,
                    started_at=at,
                    ended_at=at,
                    status="erased",
                    detail=json.dumps(
                        {
                            "selector": selector.kind,
                            "deleted": len(the_plan.delete),
                            "rebuilt": len(the_plan.rebuild),
                            "erased": len(the_plan.erase),
                            "redacted": len(the_plan.redact),
                            "restored": len(the_plan.restore),
                            "retired": len(the_plan.retire),
                            "tombstones": len(tombstones),
                            "generation": generation,
                            "entities": len(the_plan.entities),
                            "rules": len(the_plan.rules),
                            "residues_found": residues,
                            "residues_redacted": redacted,
                        }
                    ),
                )
            )
    destinations = tuple(scrub_everywhere(store))
    complete = all(d["status"] == "complete" for d in destinations)
    pending = [a for a in store.activities("forget") if a.status == "erased"]
    if complete and pending:
        # Includes runs a crash interrupted between their transaction and their scrub.
        for activity in pending:
            with store.transaction(activity.scope) as tx:
                tx.add_activity(activity.model_copy(update={"status": "complete"}))
    status = "complete" if complete else "incomplete"
    if the_plan.is_empty and not block:
        status = "nothing-to-forget" if complete else "incomplete"
    return ForgetReport(
        selector=str(selector),
        dry_run=False,
        status=status,
        plan=the_plan,
        activity_id=activity_id,
        generation=generation,
        block_id=block_id,
        at=at,
        destinations=destinations,
        scope=scope,
        residues_found=residues,
        residues_redacted=redacted,
    )
