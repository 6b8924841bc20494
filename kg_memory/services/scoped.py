"""A memory handle for one tenant: what an application serving a user should hold.

:class:`~kg_memory.services.memory.Memory` is the operator's handle: it can read every scope
and, when asked explicitly (``all_scopes=True``), forget across them. A :class:`ScopedMemory`
is bound to one scope for its whole life and has no way to name another: every query, export,
lineage walk, resolution, consolidation and forget it runs is pinned to its scope, an id of
another scope is reported as not found (never as "exists elsewhere"), and it does not expose
the store. Its rule book (:attr:`ScopedMemory.rules`) is pinned the same way.

>>> from kg_memory import IngestRecord, Memory
>>> memory = Memory.open(":memory:")
>>> u1, u2 = memory.scoped("u1"), memory.scoped("u2")
>>> def said(scope: str, value: str) -> IngestRecord:
...     return IngestRecord.model_validate({
...         "operation_id": "op-1", "source": "user", "channel": "chat", "scope": scope,
...         "occurred_at": "2026-01-05T09:00:00Z", "content": f"Ana is {value}",
...         "assertions": [{"subject": "ana", "predicate": "diet", "value": value,
...                         "kind": "stated"}]})
>>> u1.ingest(said("u1", "vegetarian")).status, u2.ingest(said("u2", "vegan")).status
('accepted', 'accepted')
>>> u1.asof(subject="ana").values(), u2.asof(subject="ana").values()
(['vegetarian'], ['vegan'])
>>> u2.forget("entity:ana").status, u1.asof(subject="ana").values()
('complete', ['vegetarian'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Protocol

import networkx as nx
from prov.model import ProvDocument

from kg_memory.domain.eligibility import ALL_KINDS, EligibilityRule
from kg_memory.domain.embedding import Embedder
from kg_memory.domain.errors import NotFound, ScopeError
from kg_memory.domain.forgetting import Selector
from kg_memory.domain.model import Block, Channel, Entity, Kind, Qualifiers, Refusal, Value
from kg_memory.domain.recall_answer import RecallAnswer
from kg_memory.domain.record import IngestRecord
from kg_memory.domain.resolution import EntityProfile
from kg_memory.domain.resolution.review_pair import ReviewPair
from kg_memory.domain.result import AsOfAnswer, HistoryEntry
from kg_memory.services.forget_run import ForgetReport
from kg_memory.services.identity import Resolved
from kg_memory.services.ingestion import IngestReport
from kg_memory.services.inlet import Inlet
from kg_memory.services.lineage import Direction
from kg_memory.services.publication import Basis, Published
from kg_memory.services.recall_request import RecallMode
from kg_memory.services.review_queue import Decision
from kg_memory.services.rules import RuleBook
from kg_memory.services.scoped_rules import ScopedRuleBook

__all__ = ["Operator", "ScopedMemory"]


class Operator(Protocol):
    """What a scoped handle needs of the operator's memory (:class:`Memory
    <kg_memory.services.memory.Memory>` is one): every call it makes names the scope."""

    def close(self) -> None: ...
    def ingest(self, record: IngestRecord) -> IngestReport: ...
    def inlet(self, source: str, channel: Channel | str, *, scope: str | None = ...
              ) -> Inlet: ...
    def ingest_many(self, records: Iterable[IngestRecord], *, batch_size: int = ...,
                    on_report: Callable[[IngestReport], None] | None = ...
                    ) -> list[IngestReport]: ...
    def ingest_file(self, path: Path, *,
                    on_report: Callable[[IngestReport], None] | None = ...,
                    batch_size: int = ..., scope: str | None = ...) -> list[IngestReport]: ...
    def asof(self, valid_at: datetime | None = ..., known_at: datetime | None = ..., *,
             subject: str | None = ..., predicate: str | None = ...,
             scope: str | None = ...) -> AsOfAnswer: ...
    def history(self, subject: str, predicate: str | None = ..., *,
                scope: str | None = ...) -> list[HistoryEntry]: ...
    def refusals(self, scope: str | None = ...) -> list[Refusal]: ...
    def recall(self, query: str, *, scope: str, subject: str | None = ...,
               project: str | None = ..., at: datetime | None = ...,
               known_at: datetime | None = ..., kinds: Iterable[Kind | str] = ...,
               include_episodes: bool = ..., limit: int = ...,
               rules: Iterable[EligibilityRule] = ..., embedder: Embedder | None = ...,
               mode: RecallMode | None = ...) -> RecallAnswer: ...
    def lineage(self, node_id: str, direction: Direction = ..., depth: int | None = ..., *,
                scope: str | None = ...) -> nx.MultiDiGraph[str]: ...
    def prov(self, node_ids: list[str] | None = ..., *,
             scope: str | None = ...) -> ProvDocument: ...
    def read_basis(self, subject: str, predicate: str, evidence: list[str], *,
                   scope: str = ..., project: str | None = ...) -> Basis: ...
    def publish(self, basis: Basis, *, value: Value | None = ...,
                qualifiers: Qualifiers | None = ...) -> Published: ...
    def consolidate(self, subject: str, predicate: str, evidence: list[str], *,
                    scope: str = ..., project: str | None = ...,
                    attempts: int = ...) -> Published: ...
    def forget(self, selector: str | Selector, *, dry_run: bool = ..., block: bool = ...,
               all_scopes: bool = ..., keep_residues: bool = ...) -> ForgetReport: ...
    def blocks(self, scope: str | None = ...) -> list[Block]: ...
    def revoke_block(self, block_id: str, *, scope: str | None = ...) -> None: ...
    def entities(self, scope: str | None = ...) -> list[Entity]: ...
    def profile(self, entity_id: str, scope: str | None = ...) -> EntityProfile | None: ...
    def decisions(self, scope: str | None = ...,
                  entity_id: str | None = ...) -> list[Resolved]: ...
    def review(self, scope: str | None = ...) -> list[Resolved]: ...
    def review_queue(self, scope: str | None = ..., *, settled: bool = ...
                     ) -> list[ReviewPair]: ...
    def settle(self, provisional: str, candidate: str, decision: Decision, *, by: str,
               reason: str = ..., scope: str) -> Resolved: ...
    def merge(self, keep: str, other: str, *, by: str, reason: str,
              scope: str) -> Resolved: ...
    def unmerge(self, keep: str, other: str, *, by: str, reason: str,
                scope: str) -> Resolved: ...
    def unmerge_decision(self, decision_id: str, *, by: str, reason: str,
                         scope: str | None = ...) -> Resolved: ...
    def keep_apart(self, provisional: str, candidate: str, *, by: str, reason: str,
                   scope: str) -> Resolved: ...
    @property
    def rules(self) -> RuleBook: ...


class ScopedMemory:
    """Everything a tenant may do, in exactly one scope. Build it with
    :meth:`Memory.scoped <kg_memory.services.memory.Memory.scoped>`
    (``Memory.open(path).scoped("u1")``)."""

    def __init__(self, memory: Operator, scope: str) -> None:
        if not scope:
            raise ScopeError("a scoped memory needs a non-empty scope")
        self._memory = memory
        self._scope = scope

    @property
    def scope(self) -> str:
        return self._scope

    def __enter__(self) -> ScopedMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._memory.close()

    def _check(self, scope: str | None, what: str) -> str:
        if scope is not None and scope != self._scope:
            raise ScopeError(f"{what} is for scope {scope!r}; this memory is limited to "
                             f"{self._scope!r}")
        return self._scope

    # -- writes ----------------------------------------------------------------------------

    def ingest(self, record: IngestRecord) -> IngestReport:
        self._check(record.scope, f"episode {record.operation_id!r}")
        return self._memory.ingest(record)

    def inlet(self, source: str, channel: Channel | str) -> Inlet:
        """An authenticated channel into this tenant: its records are from ``source`` over
        ``channel``, in this scope (a payload naming another scope is refused)."""
        return self._memory.inlet(source, channel, scope=self._scope)

    def ingest_many(self, records: Iterable[IngestRecord], *, batch_size: int = 500,
                    on_report: Callable[[IngestReport], None] | None = None
                    ) -> list[IngestReport]:
        """Like :meth:`Memory.ingest_many`; a record of another scope stops the run with a
        :class:`ScopeError` (the records before it stay accepted)."""
        def checked() -> Iterable[IngestRecord]:
            for record in records:
                self._check(record.scope, f"episode {record.operation_id!r}")
                yield record

        return self._memory.ingest_many(checked(), batch_size=batch_size, on_report=on_report)

    def ingest_file(self, path: Path, *, on_report: Callable[[IngestReport], None] | None = None
                    ) -> list[IngestReport]:
        """Like :meth:`Memory.ingest_file`; a line of another scope stops it (ScopeError)."""
        return self._memory.ingest_file(path, on_report=on_report, scope=self._scope)

    # -- reads -----------------------------------------------------------------------------

    def recall(self, query: str, *, subject: str | None = None, project: str | None = None,
               at: datetime | None = None, known_at: datetime | None = None,
               kinds: Iterable[Kind | str] = ALL_KINDS, include_episodes: bool = True,
               limit: int = 10, rules: Iterable[EligibilityRule] = (),
               embedder: Embedder | None = None, mode: RecallMode | None = None
               ) -> RecallAnswer:
        """:meth:`Memory.recall` in this tenant's scope (there is no other to search)."""
        return self._memory.recall(query, scope=self._scope, subject=subject, project=project,
                                   at=at, known_at=known_at, kinds=kinds,
                                   include_episodes=include_episodes, limit=limit,
                                   rules=rules, embedder=embedder, mode=mode)

    def asof(self, valid_at: datetime | None = None, known_at: datetime | None = None, *,
             subject: str | None = None, predicate: str | None = None) -> AsOfAnswer:
        return self._memory.asof(valid_at, known_at, subject=subject, predicate=predicate,
                                 scope=self._scope)

    def history(self, subject: str, predicate: str | None = None) -> list[HistoryEntry]:
        return self._memory.history(subject, predicate, scope=self._scope)

    def refusals(self) -> list[Refusal]:
        return self._memory.refusals(self._scope)

    def lineage(self, node_id: str, direction: Direction = "both", depth: int | None = None
                ) -> nx.MultiDiGraph[str]:
        return self._memory.lineage(node_id, direction, depth, scope=self._scope)

    def prov(self, node_ids: list[str] | None = None) -> ProvDocument:
        return self._memory.prov(node_ids, scope=self._scope)

    @property
    def rules(self) -> ScopedRuleBook:
        """This tenant's tiered rules (:mod:`kg_memory.services.scoped_rules`): another
        tenant's rules, episodes and signals are not found from here."""
        return ScopedRuleBook(self._memory.rules, self._scope)

    # -- consolidation and forgetting --------------------------------------------------------

    def read_basis(self, subject: str, predicate: str, evidence: list[str], *,
                   project: str | None = None) -> Basis:
        return self._memory.read_basis(subject, predicate, evidence, scope=self._scope,
                                       project=project)

    def publish(self, basis: Basis, *, value: Value | None = None,
                qualifiers: Qualifiers | None = None) -> Published:
        self._check(basis.slot.scope, "the record")
        return self._memory.publish(basis, value=value, qualifiers=qualifiers)

    def consolidate(self, subject: str, predicate: str, evidence: list[str], *,
                    project: str | None = None, attempts: int = 3) -> Published:
        return self._memory.consolidate(subject, predicate, evidence, scope=self._scope,
                                        project=project, attempts=attempts)

    def forget(self, selector: str | Selector, *, dry_run: bool = False,
               block: bool = False, keep_residues: bool = False) -> ForgetReport:
        """Forget within this scope; a selector naming another scope is refused."""
        chosen = selector if isinstance(selector, Selector) else Selector.parse(selector)
        self._check(chosen.scope, f"selector {chosen}")
        return self._memory.forget(chosen.in_scope(self._scope), dry_run=dry_run, block=block,
                                   keep_residues=keep_residues)

    def blocks(self) -> list[Block]:
        return self._memory.blocks(self._scope)

    def revoke_block(self, block_id: str) -> None:
        self._memory.revoke_block(block_id, scope=self._scope)

    # -- identity ----------------------------------------------------------------------------

    def entities(self) -> list[Entity]:
        return self._memory.entities(self._scope)

    def profile(self, entity_id: str) -> EntityProfile | None:
        return self._memory.profile(entity_id, self._scope)

    def decisions(self, entity_id: str | None = None) -> list[Resolved]:
        return self._memory.decisions(self._scope, entity_id)

    def review(self) -> list[Resolved]:
        return self._memory.review(self._scope)

    def review_queue(self, *, settled: bool = False) -> list[ReviewPair]:
        """This tenant's review pairs, most impact first (:meth:`Memory.review_queue`)."""
        return self._memory.review_queue(self._scope, settled=settled)

    def settle(self, provisional: str, candidate: str, decision: Decision, *, by: str,
               reason: str = "") -> Resolved:
        """Settle one of this tenant's review pairs; another tenant's pair is not found."""
        return self._memory.settle(provisional, candidate, decision, by=by, reason=reason,
                                   scope=self._scope)

    def merge(self, keep: str, other: str, *, by: str, reason: str) -> Resolved:
        return self._memory.merge(keep, other, by=by, reason=reason, scope=self._scope)

    def unmerge(self, keep: str, other: str, *, by: str, reason: str) -> Resolved:
        return self._memory.unmerge(keep, other, by=by, reason=reason, scope=self._scope)

    def unmerge_decision(self, decision_id: str, *, by: str, reason: str) -> Resolved:
        if not any(r.decision.decision_id == decision_id for r in self.decisions()):
            raise NotFound(f"no merge decision {decision_id!r}")
        return self._memory.unmerge_decision(decision_id, by=by, reason=reason,
                                             scope=self._scope)

    def keep_apart(self, provisional: str, candidate: str, *, by: str, reason: str
                   ) -> Resolved:
        return self._memory.keep_apart(provisional, candidate, by=by, reason=reason,
                                       scope=self._scope)
