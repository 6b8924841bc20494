"""What ``Memory`` does around its use rather than in it: choosing the embedder recall uses,
upgrading an embedded store's schema, closing. A mixin of :class:`~kg_memory.services.memory.
Memory`, kept here so that module stays one concept (the use cases)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Self

from kg_memory.domain.embedding import Embedder
from kg_memory.domain.errors import StoreUnavailable
from kg_memory.embedders import EmbedderChoice, embedder_from_environment, resolve_embedder
from kg_memory.services.vector_worker import VectorWorker
from kg_memory.store import default_path, is_neo4j_uri
from kg_memory.store.protocol import Store
from kg_memory.store.sqlite.schema import migrate as migrate_file

__all__ = ["Lifecycle", "opened_embedder"]


def opened_embedder(choice: EmbedderChoice) -> Embedder | None:
    """The embedder ``Memory.open`` gives its memory: ``choice`` (a name or an embedder), or
    when it is None, ``$KG_MEMORY_EMBEDDER``, else ``default`` (the shipped model when the
    ``embed`` extra is installed, else none). See :mod:`kg_memory.embedders.choice`."""
    return embedder_from_environment(choice)


class Lifecycle:
    store: Store
    #: Vector similarity for recall when a call passes no embedder (none: lexical only).
    embedder: Embedder | None = None
    _vectors: VectorWorker

    def _embed_written(self, scopes: Iterable[str]) -> None:
        """Have the vectors of what a write just committed in ``scopes`` made, when this
        memory has a model: the store put each new record in its vector backlog in the
        record's own transaction, and the worker embeds it after the write returned (the
        acknowledgement waits for the disk, not for the model), which spares the scope's next
        recall from embedding a whole import at once."""
        if self.embedder is not None:
            self._vectors.submit(dict.fromkeys(scopes), self.embedder)

    def wait_embedded(self, scope: str | None = None, *, timeout: float | None = None) -> bool:
        """Wait until what this memory wrote in ``scope`` (default: every scope) has its
        vectors, or the model failed on it; False if ``timeout`` seconds passed first.

        Writes return before their vectors are made (see
        :mod:`kg_memory.services.vector_worker`); a hybrid recall never needs this, since it
        embeds whatever its scope still waits for, but a benchmark or a test that reads the
        vector index directly does.
        """
        return self._vectors.settle(scope, timeout)

    def _own_vectors(self, scope: str) -> None:
        self._vectors.take_over(scope)

    def use_embedder(self, choice: EmbedderChoice) -> None:
        """Recall with ``choice`` (a name, see :mod:`kg_memory.embedders.choice`, or an
        :class:`~kg_memory.domain.embedding.Embedder`; None or ``none``: lexical only) when a
        call passes no embedder of its own. A store keeps one model's vectors: recall with
        another is :class:`~kg_memory.domain.errors.EmbedderMismatch`."""
        self.embedder = resolve_embedder(choice)

    @staticmethod
    def migrate(path: Path | str | None = None, *, busy_timeout: float | None = None
                ) -> tuple[str, str]:
        """Upgrade the schema of the embedded store at ``path``; ``(from, to)`` versions.

        Opening never changes a store's schema (so a reader never waits for a writer); this
        is the one call that does, on purpose. A Neo4j store's constraints are ensured when
        it connects, so there is nothing to migrate there.
        """
        if is_neo4j_uri(path):
            raise StoreUnavailable("migrate upgrades an embedded store file; a Neo4j store "
                                   "ensures its schema when it connects")
        return migrate_file(Path(path) if path is not None else default_path(),
                            busy_timeout=busy_timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the store, once the vectors of what this memory wrote are made (or their
        model failed: those stay in the store's backlog for the next recall)."""
        self._vectors.close()
        self.store.close()
