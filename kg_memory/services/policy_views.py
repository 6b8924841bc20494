"""What :class:`~kg_memory.Memory` offers about write policies: pending candidates, admission
decisions, the retention sweep and the rule book (kept apart so the memory module stays small).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from kg_memory.domain.errors import PolicyError
from kg_memory.domain.gate import WriterPolicy
from kg_memory.domain.instant import Clock
from kg_memory.domain.limits import check_text
from kg_memory.domain.pending import AdmissionDecision, PendingCandidate
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.write_policy import WritePolicy
from kg_memory.services.ingestion import IngestReport
from kg_memory.services.pending import admission_counts, admission_decisions, pending_candidates
from kg_memory.services.rules import RuleBook
from kg_memory.services.sweep import SweepReport, sweep
from kg_memory.store.protocol import Store

__all__ = ["PolicyViews"]


class PolicyViews:
    """Mixed into :class:`~kg_memory.Memory`, which sets these attributes."""

    store: Store
    #: admission, reconcile and decay (:mod:`kg_memory.domain.write_policy`); ``None`` writes
    #: every admitted value at once and records no admission decisions
    write_policy: WritePolicy | None
    #: the writer gate, which also says who may write signals and bindings
    policy: WriterPolicy
    _clock: Clock
    #: the memory's write path (:meth:`kg_memory.Memory.ingest`)
    ingest: Callable[[IngestRecord], IngestReport]

    def pending(self, scope: str | None = None, *, status: str | None = "pending"
                ) -> list[PendingCandidate]:
        """Values the write policy holds back until corroborated; never served as facts."""
        check_text(scope=scope)
        return pending_candidates(self.store, scope, status=status)

    def admissions(self, scope: str | None = None) -> list[AdmissionDecision]:
        """Every decision the write policy made (accepted, refused with reason, pending)."""
        check_text(scope=scope)
        return admission_decisions(self.store, scope)

    def admission_counts(self, scope: str | None = None) -> dict[str, dict[str, int]]:
        """Acceptance and rejection counts by reason: ``{decision: {category: n}}``."""
        check_text(scope=scope)
        return admission_counts(self.store, scope)

    @property
    def rules(self) -> RuleBook:
        """Tiered rules (session, experience, metadata) and their promotion and review."""
        # Signals and bindings go through the memory's own write path (gate, channel policy).
        return RuleBook(self.store, self._now, ingest=self.ingest, writers=self.policy)

    def _now(self) -> datetime:
        return self._clock()

    def sweep(self, *, cap: int | None = None, scope: str | None = None,
              delete: bool | None = None) -> SweepReport:
        """Keep every scope under ``cap`` assertions: already-invalid ones go first, then
        expired ones, then the least recently confirmed. Without ``delete`` only reported;
        with it each eviction is a forget request (see :mod:`kg_memory.services.sweep`).
        ``cap`` and ``delete`` default to the write policy's ``retention``."""
        check_text(scope=scope)
        policy = self.write_policy or WritePolicy.default()
        kept = policy.retention
        if cap is None:
            if kept is None:
                raise PolicyError("a sweep needs a cap: give one, or a write policy with "
                                  "retention")
            cap = kept.cap
        if delete is None:
            delete = kept is not None and kept.delete
        return sweep(self.store, policy, cap=cap, now=self._clock(), scope=scope,
                     delete=delete)
