"""Publishing a derived record: optimistic, conditional, with full PROV links.

A consolidation worker reads a record's basis (its current revision and the evidence
revisions), derives a draft, and publishes *if nothing it read has changed* (HTTP If-Match
semantics). Every check runs inside the publishing transaction, so a forget run or a
correction that lands between read and publish makes the publish fail instead of resurrecting
what it removed. A forgotten source is a terminal
:class:`~kg_memory.domain.errors.ForgottenError`; a
changed one a :class:`~kg_memory.domain.errors.ConcurrencyError` (reassess and retry).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.change import Draft, PlannedEdge
from kg_memory.domain.consolidation import Evidence, derive_profile, etag, scope_problems
from kg_memory.domain.errors import (
    ConcurrencyError,
    ConsolidationRefused,
    ForgottenError,
    InvalidArgument,
    NotFound,
    PolicyError,
)
from kg_memory.domain.forgetting import node_key
from kg_memory.domain.gate import WriterPolicy, admit
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import Activity, Assertion, EdgeType, EndReason, Kind, Qualifiers, Value
from kg_memory.domain.precondition import current_record
from kg_memory.domain.supersession import plan_write
from kg_memory.store.protocol import Slot, Store, Transaction, apply_plan

__all__ = ["CONSOLIDATOR", "Basis", "Published", "current_record", "publish_derived", "read_basis"]

CONSOLIDATOR = "consolidator"


class Basis(BaseModel):
    """What a worker read: the record's tag and the evidence revisions."""

    model_config = ConfigDict(frozen=True)

    slot: Slot
    expected: str | None
    evidence: tuple[Evidence, ...]


class Published(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: ``committed``, or ``duplicate``: the record already said this from this evidence (a
    #: retried worker), nothing was written, and the ids are the stored record's.
    status: str
    assertion_id: str
    etag: str
    value: Value
    activity_id: str


def _derived(versions: Sequence[Assertion]) -> list[Assertion]:
    """A record's own revisions: a derived record supersedes derived values only, never a value
    someone stated or reported in the same slot (that stays, a conflict of other authority)."""
    return [v for v in versions if v.kind is Kind.DERIVED]


def read_basis(store: Store, slot: Slot, evidence_ids: Sequence[str]) -> Basis:
    """Read the record's current tag and the current revision of each evidence assertion.

    Evidence that does not exist (or is no longer believed) is :class:`NotFound` here, before
    anything is derived: a record derived from nothing would be published with an empty value
    and no support.
    """
    if not evidence_ids:
        raise InvalidArgument("a derived record needs at least one evidence assertion")
    if not all(evidence_ids):
        raise InvalidArgument("an evidence assertion id is empty", field="evidence")
    # Evidence of another scope is invisible here, as if it did not exist: a record never
    # derives from another tenant's facts.
    versions = [v for v in store.versions(list(evidence_ids))
                if v.system.end is None and v.scope == slot.scope]
    latest: dict[str, Assertion] = {}
    for version in versions:
        if version.valid.end is None or version.assertion_id not in latest:
            latest[version.assertion_id] = version
    missing = [e for e in dict.fromkeys(evidence_ids) if e not in latest]
    if missing:
        secret = store.secret
        # Raised inside the transaction, so it rolls back: reading tombstones commits nothing.
        with store.transaction(slot.scope) as tx:
            if tx.tombstones([node_key(secret, slot.scope, e) for e in missing]):
                raise ForgottenError(
                    "evidence of this record was forgotten; it cannot be published")
            raise NotFound(f"no current assertion {', '.join(map(repr, missing))} to derive from")
    live = _derived([
        v
        for v in store.history(slot.subject, slot.predicate, slot.scope)
        if v.system.end is None and v.qualifiers.project == slot.project
    ])
    record = current_record(live)
    return Basis(
        slot=slot,
        expected=etag(record),
        evidence=tuple(
            Evidence(assertion_id=v.assertion_id, revision=v.revision) for v in latest.values()
        ),
    )


def _checked_sources(
    tx: Transaction, secret: bytes, evidence: Sequence[Evidence]
) -> list[Assertion]:
    forgotten = tx.tombstones([node_key(secret, tx.scope, e.assertion_id) for e in evidence])
    if forgotten:
        raise ForgottenError("evidence of this record was forgotten; it cannot be published")
    by_id = {}
    for e in evidence:
        live = [v for v in tx.live_versions_of(e.assertion_id) if v.revision == e.revision]
        if not live:
            raise ConcurrencyError(f"precondition failed: evidence {e} is no longer current")
        by_id[e.assertion_id] = live[0]
    return list(by_id.values())


def publish_derived(
    store: Store,
    basis: Basis,
    *,
    policy: WriterPolicy,
    value: Value | None = None,
    qualifiers: Qualifiers | None = None,
) -> Published:
    """Publish a derived record for ``basis.slot`` if the basis still holds.

    Without ``value`` the record is derived with
    :func:`~kg_memory.domain.consolidation.derive_profile`.
    A draft that drops a project or an exception of its evidence is refused for review.
    """
    slot = basis.slot
    if not admit(
        policy,
        source=CONSOLIDATOR,
        kind=Kind.DERIVED,
        subject=slot.subject,
        predicate=slot.predicate,
    ).admitted:
        raise PolicyError(f"the writer policy does not let {CONSOLIDATOR} derive {slot.subject}")
    secret = store.secret
    with store.transaction(slot.scope) as tx:
        sources = _checked_sources(tx, secret, basis.evidence)
        live = _derived(tx.live_versions(slot))
        previous = current_record(live)
        if etag(previous) != basis.expected:
            raise ConcurrencyError(
                f"precondition failed: record is {etag(previous)}, not {basis.expected}"
            )
        if value is None:
            value, derived_qualifiers = derive_profile(sources, slot.project)
            qualifiers = qualifiers or derived_qualifiers
        qualifiers = qualifiers or Qualifiers(project=slot.project)
        if qualifiers.project != slot.project:
            raise ConsolidationRefused(
                f"review required: record is for project {slot.project!r}, "
                f"draft says {qualifiers.project!r}"
            )
        problems = scope_problems(qualifiers, sources)
        if problems:
            raise ConsolidationRefused("review required: " + "; ".join(problems))
        digest = hashlib.sha256(
            json.dumps([slot.model_dump(), [str(e) for e in basis.evidence], str(tx.now)]).encode()
        )
        activity_id = f"act_consolidate_{digest.hexdigest()[:16]}"
        draft = Draft(
            assertion_id=f"as_{digest.hexdigest()[16:36]}",
            scope=slot.scope,
            subject=slot.subject,
            predicate=slot.predicate,
            value=value,
            qualifiers=qualifiers,
            kind=Kind.DERIVED,
            writer=CONSOLIDATOR,
            valid=Interval(start=tx.now),
            reason=EndReason.ASSERTED,
            recorded_by=activity_id,
        )
        plan = plan_write(live, draft, episode_id=activity_id)
        if not plan.drafts:
            # The record already says this, over all of the draft's valid time (plan_write
            # refreshes it): a retried worker. Versioning nothing and linking a new id would
            # leave edges to a record that was never stored.
            kept = next(v for v in live if v.assertion_id == plan.effects[0].assertion_id)
            linked = _sources_of(store, kept)
            if {s.assertion_id for s in sources} <= linked:
                return Published(status="duplicate", assertion_id=kept.assertion_id,
                                 etag=etag(kept) or "", value=kept.value,
                                 activity_id=kept.recorded_by)
            return _also_derived_from(tx, kept, sources, activity_id, basis, linked)
        # A derived record is generated by its activity, not supported by an episode.
        plan = plan.model_copy(
            update={"edges": tuple(e for e in plan.edges if e.type is not EdgeType.SUPPORTS)}
        )
        apply_plan(tx, plan)
        new_id = plan.drafts[-1].assertion_id
        record_edges = [PlannedEdge(src=new_id, type=EdgeType.GENERATED_BY, dst=activity_id)]
        for source in sources:
            record_edges.append(
                PlannedEdge(src=new_id, type=EdgeType.DERIVED_FROM, dst=source.assertion_id)
            )
            record_edges.append(
                PlannedEdge(src=activity_id, type=EdgeType.USED, dst=source.assertion_id)
            )
        if previous is not None and previous.assertion_id != new_id:
            record_edges.append(
                PlannedEdge(src=new_id, type=EdgeType.REVISION_OF, dst=previous.assertion_id)
            )
        for edge in record_edges:
            tx.add_edge(edge)
        tx.add_activity(
            Activity(
                activity_id=activity_id,
                type="consolidation",
                agent=CONSOLIDATOR,
                scope=slot.scope,
                started_at=tx.now,
                ended_at=tx.now,
                detail=json.dumps({"record": new_id, "evidence": [str(e) for e in basis.evidence]}),
            )
        )
        record = current_record(_derived(tx.live_versions(slot)))
        assert record is not None  # just written in this transaction
        return Published(
            status="committed",
            assertion_id=new_id,
            etag=etag(record) or "",
            value=value,
            activity_id=activity_id,
        )


def _sources_of(store: Store, record: Assertion) -> set[str]:
    """The evidence ``record`` is linked to (its ``DERIVED_FROM`` edges)."""
    return {e.dst for e in store.edges(record.assertion_id, record.scope)
            if e.src == record.assertion_id and e.type is EdgeType.DERIVED_FROM}


def _also_derived_from(
    tx: Transaction, record: Assertion, sources: Sequence[Assertion], activity_id: str,
    basis: Basis, linked: set[str],
) -> Published:
    """The same content from other evidence: the record stays as it is (same id, same
    revision) and gains the lineage of the sources it was not linked to yet, through one more
    consolidation activity that used them all."""
    for source in sources:
        if source.assertion_id not in linked:
            tx.add_edge(PlannedEdge(src=record.assertion_id, type=EdgeType.DERIVED_FROM,
                                    dst=source.assertion_id))
        tx.add_edge(PlannedEdge(src=activity_id, type=EdgeType.USED, dst=source.assertion_id))
    tx.add_activity(Activity(
        activity_id=activity_id, type="consolidation", agent=CONSOLIDATOR, scope=record.scope,
        started_at=tx.now, ended_at=tx.now,
        detail=json.dumps({"record": record.assertion_id,
                           "evidence": [str(e) for e in basis.evidence]})))
    return Published(status="committed", assertion_id=record.assertion_id,
                     etag=etag(record) or "", value=record.value, activity_id=activity_id)
