"""Batches whose commit may still be running when the next one is planned.

:meth:`~kg_memory.store.protocol.Store.pipeline` hands the batch ingest path a
:class:`Pipeline`: its :meth:`~Pipeline.batch` is :meth:`Store.batch`, except that leaving it
may return before the batch's commit did (a store that can, Neo4j, commits batch N on a worker
while batch N+1 is planned). So leaving a batch no longer means durable: the caller
acknowledges a batch's episodes only once :meth:`~Pipeline.durable` counts it, and
:meth:`~Pipeline.drain` waits for the last one (raising its failure).

A store that commits as each batch ends (the embedded one) returns :class:`SyncPipeline`.

A pipelined batch may be refused when it ends (:class:`Replan`): what it planned was read
before another writer committed, so nothing of it was written and the caller runs the same
episodes again in a new batch, which the store then plans under its lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

__all__ = ["Pipeline", "Replan", "SyncPipeline"]


class Replan(BaseException):
    """Nothing of the batch was written: run its episodes again in a new batch.

    A :class:`BaseException`, as :class:`GeneratorExit` is: it says where control goes, so no
    episode's ``except Exception`` (a failed line recorded, a retry) may take it for that
    episode's failure; it passes through to the batch loop, which plans the batch again."""


class Pipeline(Protocol):
    def batch(self) -> AbstractContextManager[None]:
        """:meth:`Store.batch`; the commit may still run when this returns."""

    def durable(self) -> int:
        """How many batches opened through this pipeline have committed, in order."""

    def drain(self) -> None:
        """Wait for the last batch's commit; raises its failure (it is then not counted)."""


class _Batching(Protocol):
    def batch(self) -> AbstractContextManager[None]: ...


class SyncPipeline:
    """A store's batches as they are: each is durable once leaving it returned."""

    def __init__(self, store: _Batching) -> None:
        self._store = store
        self._committed = 0

    @contextmanager
    def batch(self) -> Iterator[None]:
        with self._store.batch():
            yield
        self._committed += 1

    def durable(self) -> int:
        return self._committed

    def drain(self) -> None:
        return None
