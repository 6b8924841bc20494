"""Reading what write policies decided: pending candidates and admission counts.

>>> from kg_memory import Memory
>>> admission_counts(Memory.open(":memory:").store)
{}
"""

from __future__ import annotations

from collections import Counter

from kg_memory.domain.pending import AdmissionDecision, PendingCandidate
from kg_memory.services.reconciliation import ADMISSION, PENDING
from kg_memory.store.protocol import Store

__all__ = ["admission_counts", "admission_decisions", "pending_candidates"]


def pending_candidates(store: Store, scope: str | None = None, *,
                       status: str | None = "pending") -> list[PendingCandidate]:
    """Values waiting for corroboration (``status=None``: promoted ones too), oldest first."""
    found = [PendingCandidate.model_validate_json(b) for b in store.documents(PENDING, scope)]
    return [p for p in found if status is None or p.status == status]


def admission_decisions(store: Store, scope: str | None = None) -> list[AdmissionDecision]:
    """Every decision a write policy made, oldest first."""
    return [AdmissionDecision.model_validate_json(b) for b in store.documents(ADMISSION, scope)]


def admission_counts(store: Store, scope: str | None = None) -> dict[str, dict[str, int]]:
    """``{decision: {category: count}}``: acceptance and rejection by reason."""
    counts: dict[str, Counter[str]] = {}
    for d in admission_decisions(store, scope):
        counts.setdefault(d.decision, Counter())[d.category] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(counts.items())}
