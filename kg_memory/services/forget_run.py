"""Running a forget request: plan by lineage, execute in one transaction, scrub, report.

The plan (:mod:`kg_memory.services.forget_plan`) is computed the same way for a dry run
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

from kg_memory.domain.errors import NotFound, StoreUnavailable
from kg_memory.domain.forgetting import ID_KINDS, ForgetPlan, Selector
from kg_memory.domain.instant import UtcDatetime
from kg_memory.domain.model import Activity, Block
from kg_memory.services.collection import paused_collection
from kg_memory.services.forget_plan import (
    forget_grounds,
    plan_in_scope,
    required_scope,
    selector_scopes,
)
from kg_memory.services.forget_repair import (
    entity_keys,
    evidence_instants,
    rebuild,
    restore,
    retire_dependents,
    tombstone_keys,
    unname_entities,
)
from kg_memory.services.forget_target import check_named, forgotten_scopes
from kg_memory.services.identity import forget_identity
from kg_memory.services.reconciliation import forget_policy_records
from kg_memory.services.residues import redact_residues
from kg_memory.services.rule_basis import apply_rule_forgetting
from kg_memory.store import scrub as scrub_everywhere
from kg_memory.store.protocol import Store

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
    counts them (see :mod:`kg_memory.services.residues`).

    The cyclic garbage collector is held off for the run (bounded by its plan; why that is
    safe: :mod:`kg_memory.services.collection`)."""
    with paused_collection():
        return _forget(store, selector, dry_run=dry_run, block=block, all_scopes=all_scopes,
                       keep_residues=keep_residues)


def _forget(
    store: Store, selector: Selector, *, dry_run: bool, block: bool, all_scopes: bool,
    keep_residues: bool,
) -> ForgetReport:
    if selector.scope is None and not all_scopes:
        required_scope(selector)
    if selector.scope is not None:
        return _forget_in_scope(store, selector, dry_run=dry_run, block=block,
                                keep_residues=keep_residues)
    scopes = selector_scopes(store, selector)
    if not scopes and selector.kind in ID_KINDS:
        scopes = forgotten_scopes(store, selector)  # NotFound when it never existed
    runs = [_forget_in_scope(store, selector.in_scope(scope), dry_run=dry_run, block=block,
                             keep_residues=keep_residues)
            for scope in scopes]
    return _union(selector, dry_run, runs)


def _union(selector: Selector, dry_run: bool, runs: list[ForgetReport]) -> ForgetReport:
    fields = ("delete", "rebuild", "erase", "redact", "restore", "retire", "retain", "unnamed")
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
    scope = required_scope(selector)
    the_plan, found, before = plan_in_scope(store, selector, keep_residues)
    if the_plan.is_empty:
        check_named(before, selector, scope)  # an id naming nothing is NotFound, not a success
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
            # The state before this transaction, as the plan read it (nothing written yet).
            deleted = before.revisions(list(the_plan.delete))
            enders = set(the_plan.erase) | {v.recorded_by for v in deleted}
            # The chosen entity is in the plan's entities too (once it has a record).
            forgotten = list(dict.fromkeys([*sorted(forget_grounds(selector)),
                                            *the_plan.entities]))
            forgotten_keys = entity_keys(secret, scope, forgotten)
            tombstones = tombstone_keys(
                the_plan, secret, deleted, before.episodes([*the_plan.erase, *the_plan.redact]),
                scope, forgotten_keys, evidence_instants(before, deleted, scope))
            if not keep_residues:
                for residue in [r.residue for r in found.found if r.residue.where == "record"]:
                    rebuilt = rebuild(tx, store, residue.node, set(the_plan.delete),
                                       activity_id, generation)
                    if rebuilt is None:
                        redacted -= residue.spans  # no surviving source to rebuild it from
                        continue
                    tx.delete_assertion(residue.node)
                    if found.match is not None and any(
                            found.match.spans(str(v.value)) for v in tx.live_versions_of(rebuilt)):
                        # What its own retained sources say: kept, so not counted as cut.
                        redacted -= residue.spans
            erased = {e.episode_id: e.scope for e in before.episodes(list(the_plan.erase))}
            forget_identity(
                tx, store, erased, selector.value if selector.kind == "entity" else None,
            )
            if not keep_residues:
                redact_residues(tx, store, found)
            forget_policy_records(tx, store, erased)
            apply_rule_forgetting(tx, store, the_plan.rules, set(the_plan.erase), found.match)
            for record in the_plan.rebuild:
                rebuild(tx, store, record, set(the_plan.delete), activity_id, generation)
            retire_dependents(tx, [*the_plan.delete, *sorted(forget_grounds(selector))],
                              activity_id)
            tx.delete_assertions([*the_plan.delete, *the_plan.rebuild])
            for episode in the_plan.erase:
                tx.erase_episode(episode)
            for episode in the_plan.redact:
                tx.redact_episode(episode, list(the_plan.delete))
            tx.delete_entities(forgotten)
            for entity in the_plan.unnamed:  # a bare reference's: no name, the default type
                tx.rename_entity(entity, None, type_="thing")
            unname_entities(tx, forgotten_keys)
            tx.forget_keys(forgotten)
            for fact in the_plan.restore:
                restore(tx, store, fact, enders, activity_id)
            # Set-based: a source with 1,000 derivatives leaves about 3,000 tombstones, passed
            # as (kind, key) pairs with the run's shared fields, no model per key. Each is
            # INVALIDATED_BY this run: the store records that with it (Transaction protocol).
            tx.add_tombstones(tombstones, generation, activity_id, at)
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
    # This scope's runs only: another tenant's run is that tenant's to finish, and reading
    # every scope's activities would make one tenant's forget pay for all of them.
    pending = [a for a in store.activities("forget", scope) if a.status == "erased"]
    if complete and pending:
        # Includes runs a crash interrupted between their transaction and their scrub.
        try:
            for activity in pending:
                with store.transaction(activity.scope) as tx:
                    tx.add_activity(activity.model_copy(update={"status": "complete"}))
        except StoreUnavailable as exc:  # a full disk: erased, not yet recorded as finished
            complete = False
            destinations += ({"destination": "activities", "location": store.location,
                              "status": "incomplete", "reason": str(exc)},)
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
