"""The references recall is measured beside, over the same turns in the same run.

* :class:`Fts5Reference`: raw SQLite FTS5 BM25, the store's own episode index queried through a
  plain read-only connection with the MATCH expression recall sends (tenant token AND any query
  term), ``ORDER BY rank LIMIT 10``. It ranks the same terms with FTS5's bm25 and applies no
  eligibility, supports or labels: its latency is the floor lexical recall is compared with.
* :class:`CosineReference`: brute-force cosine with numpy over every turn of the conversation,
  the turns' vectors from the same embedder (computed once, untimed); a query's time includes
  embedding the question, as recall's does. Hybrid recall is compared with the two added.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kg_memory.domain.embedding import Embedder
from kg_memory.domain.recall_text import query_terms
from kg_memory.store.sqlite import driver
from kg_memory.store.sqlite.recall import match_expression
from kg_memory.store.sqlite.recall_shards import episodes_table, facts_table, shard

__all__ = ["LIMIT", "CosineReference", "Fts5Reference"]

#: Every system returns its top 10.
LIMIT = 10
#: Texts per embedder call when the turns' vectors are computed.
_BATCH = 64


class Fts5Reference:
    """Raw FTS5 over a store file, answering with the turns' episode ids, best first."""

    def __init__(self, store: Path) -> None:
        self._raw = driver.connect(f"file:{store}?mode=ro", uri=True)
        self._episode_of: dict[int, str] = dict(
            self._raw.execute("SELECT rid, episode_id FROM recall_episode_docs"))

    def search(self, scope: str, question: str) -> list[str]:
        """Both tables of the tenant's shard, as recall searches them (the facts table is
        empty here, but recall pays for asking it, so the reference does too)."""
        match = match_expression(scope, query_terms(question))
        if not match:
            return []
        k = shard(scope)
        self._raw.execute(f"SELECT rowid FROM {facts_table(k)} WHERE {facts_table(k)} MATCH ? "
                          f"ORDER BY rank LIMIT {LIMIT}", (match,)).fetchall()
        rows = self._raw.execute(
            f"SELECT rowid FROM {episodes_table(k)} WHERE {episodes_table(k)} MATCH ? "
            f"ORDER BY rank LIMIT {LIMIT}", (match,)).fetchall()
        return [self._episode_of.get(r[0], "") for r in rows]

    def close(self) -> None:
        self._raw.close()


def _unit_rows(vectors: Sequence[Sequence[float]]) -> npt.NDArray[np.float32]:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1, norms), dtype=np.float32)


class CosineReference:
    """Every turn's vector per scope, and the exact top 10 by cosine for a question."""

    def __init__(self, embedder: Embedder, turns: Mapping[str, Sequence[tuple[str, str]]]
                 ) -> None:
        """``turns``: per scope, (turn key, text) pairs; the texts are embedded now."""
        self._embedder = embedder
        self._keys: dict[str, list[str]] = {}
        self._matrix: dict[str, npt.NDArray[np.float32]] = {}
        for scope, pairs in turns.items():
            texts = [text for _, text in pairs]
            vectors: list[Sequence[float]] = []
            for start in range(0, len(texts), _BATCH):
                vectors.extend(embedder.embed(texts[start:start + _BATCH]))
            self._keys[scope] = [key for key, _ in pairs]
            self._matrix[scope] = _unit_rows(vectors) if vectors else \
                np.zeros((0, embedder.dimensions), dtype=np.float32)

    def search(self, scope: str, question: str) -> list[str]:
        matrix = self._matrix.get(scope)
        if matrix is None or not len(matrix):
            return []
        query = _unit_rows(self._embedder.embed([question]))[0]
        scores = matrix @ query
        top = min(LIMIT, len(scores))
        best = np.argpartition(-scores, top - 1)[:top]
        ordered = best[np.argsort(-scores[best], kind="stable")]
        return [self._keys[scope][i] for i in ordered]
