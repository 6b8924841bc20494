"""``kg-memory sweep``: keep each scope under its cap, evicting in retention's order.

An eviction either is reported only (``delete=False``, the default: a dry run) or is carried out
as a forget request for that assertion, so a sweep removes exactly what forgetting would:
every revision, what derives only from it, with tombstones so a replay cannot bring it back.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.decay import judge
from kg_memory.domain.forgetting import Selector
from kg_memory.domain.model import Assertion
from kg_memory.domain.retention import Eviction, Held, plan_sweep
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services.forget_run import forget
from kg_memory.store.protocol import Store

__all__ = ["SweepReport", "sweep"]


class SweepReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    cap: int
    deleted: bool
    held: dict[str, int]
    evictions: tuple[Eviction, ...]


def _held(store: Store, policy: WritePolicy, now: datetime, scope: str | None) -> list[Held]:
    by_id: dict[str, list[Assertion]] = {}
    for v in store.versions(store.find_assertions(scope=scope)):
        by_id.setdefault(v.assertion_id, []).append(v)
    supports = store.supports(list(by_id), now)
    held: list[Held] = []
    for assertion_id, revisions in by_id.items():
        latest = max(revisions, key=lambda x: x.revision)
        believed = [x for x in revisions if x.system.end is None and x.valid.contains(now)]
        seen = [s.occurred_at for s in supports.get(assertion_id, ())]
        confirmed = max(seen) if seen else latest.valid.start
        expired = bool(believed) and not judge(
            policy.rule_for(latest.predicate), latest.confidence, confirmed, now).served
        held.append(Held(assertion_id=assertion_id, scope=latest.scope, key=latest.key,
                         live=bool(believed), expired=expired, last_confirmed=confirmed))
    return held


def sweep(store: Store, policy: WritePolicy, *, cap: int, now: datetime,
          scope: str | None = None, delete: bool = False) -> SweepReport:
    """Plan (and with ``delete``, carry out) the evictions that keep every scope under ``cap``."""
    held = _held(store, policy, now, scope)
    evictions = plan_sweep(held, cap=cap)
    if delete:
        for e in evictions:
            forget(store, Selector(kind="assertion", value=e.assertion_id, scope=e.scope))
    counts: dict[str, int] = {}
    for h in held:
        counts[h.scope] = counts.get(h.scope, 0) + 1
    return SweepReport(cap=cap, deleted=delete, held=dict(sorted(counts.items())),
                       evictions=tuple(evictions))
