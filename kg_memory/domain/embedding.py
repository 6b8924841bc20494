"""Vectors for recall: the :class:`Embedder` protocol and a weights-free baseline.

The default is no embedder (lexical recall only). Any model can be plugged in by wrapping it in
an object with ``name``, ``dimensions`` and ``embed`` (sentence-transformers, fastembed, an
API client); nothing here downloads weights. :class:`HashingEmbedder` is a baseline that needs
none: character trigrams hashed into a fixed number of dimensions. It finds spelling
neighbours ("vegetarian" / "vegetable"), not meaning; it exists so the hybrid path has a real,
deterministic, offline embedder to run and test against.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from kg_memory.domain.recall_text import tokens

__all__ = ["Embedder", "HashingEmbedder", "cosine", "similarity_floor"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of ``dimensions`` floats (the same model for documents and
    queries)."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]: ...


def similarity_floor(embedder: Embedder) -> float:
    """The cosine below which ``embedder``'s neighbours are not candidates: its optional
    ``min_similarity`` attribute, else 0 (any positive similarity). A trained model's unrelated
    texts still score 0.1 to 0.2, and rank fusion sees ranks, not scores: without a
    floor the nearest unrelated fact would rank level with the best lexical match.

    >>> similarity_floor(HashingEmbedder())
    0.0
    """
    return float(getattr(embedder, "min_similarity", 0.0))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0 when either vector is zero."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


class HashingEmbedder:
    """Character trigrams of each token, hashed (blake2b) into ``dimensions`` buckets.

    >>> e = HashingEmbedder()
    >>> near, far = e.embed(["vegetarian", "vegetable"]), e.embed(["vegetarian", "concert"])
    >>> cosine(*near) > cosine(*far)
    True
    """

    name = "hashing-trigram"

    def __init__(self, dimensions: int = 256) -> None:
        self.dimensions = dimensions

    def _bucket(self, gram: str) -> int:
        digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(digest, "big") % self.dimensions

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        out: list[Sequence[float]] = []
        for text in texts:
            # Counts in a float32 array: 4 bytes a dimension, not a Python float object each
            # (a cache of many vectors would otherwise cost ~8 KiB apiece).
            vector = array("f", bytes(4 * self.dimensions))
            for token in tokens(text):
                padded = f"#{token}#"
                for i in range(len(padded) - 2):
                    vector[self._bucket(padded[i:i + 3])] += 1.0
            out.append(vector)
        return out
