"""One way to choose the embedder: a name (or an :class:`~kg_memory.domain.embedding.Embedder`)
that ``Memory.open``, ``$KG_MEMORY_EMBEDDER``, ``kg-memory recall --embedder`` and
``kg-memory mcp --embedder`` all read the same way.

- ``default``: the shipped model (:class:`~kg_memory.embedders.minilm.MiniLMEmbedder`) when the
  ``embed`` extra is installed, else none;
- ``minilm``: the shipped model, or :class:`~kg_memory.domain.errors.ExtraMissing` without the
  extra;
- ``hashing``: :class:`~kg_memory.domain.embedding.HashingEmbedder` (character trigrams);
- ``none``: no vectors, lexical recall only;
- ``fastembed:<model>``, ``sentence-transformers:<model>``, ``openai:<model>``: the adapters of
  :mod:`kg_memory.embedders.brought` (the OpenAI-compatible endpoint's URL and key from
  ``$OPENAI_BASE_URL`` and ``$OPENAI_API_KEY``).

Nothing is loaded when a name is resolved: each embedder loads its model on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from kg_memory.domain.embedding import Embedder, HashingEmbedder
from kg_memory.domain.errors import InvalidArgument
from kg_memory.embedders.brought import (
    FastEmbedEmbedder,
    OpenAIEmbedder,
    SentenceTransformersEmbedder,
)
from kg_memory.embedders.minilm import MiniLMEmbedder, installed

__all__ = ["EMBEDDER_ENV", "EMBEDDER_NAMES", "EmbedderChoice", "embedder_from_environment",
           "resolve_embedder"]

#: The environment variable ``Memory.open`` reads when it is given no embedder.
EMBEDDER_ENV = "KG_MEMORY_EMBEDDER"

#: The names that take no model (the prefixed ones take ``<prefix>:<model>``).
EMBEDDER_NAMES = ("default", "minilm", "hashing", "none")
_PREFIXED: dict[str, Callable[[str], Embedder]] = {
    "fastembed": FastEmbedEmbedder,
    "sentence-transformers": SentenceTransformersEmbedder,
    "openai": OpenAIEmbedder,
}

#: What a caller may pass: a name, an embedder, or None (``none`` for ``Memory``'s
#: constructor; ``$KG_MEMORY_EMBEDDER``, else ``default``, for ``Memory.open``).
EmbedderChoice = Embedder | str | None


def resolve_embedder(choice: EmbedderChoice) -> Embedder | None:
    """The embedder a name stands for (see the table above), an embedder itself, or None for
    ``none``; an unknown name is :class:`~kg_memory.domain.errors.InvalidArgument`.

    >>> resolve_embedder("hashing").name, resolve_embedder("none")
    ('hashing-trigram', None)
    """
    if choice is None:
        return None
    if not isinstance(choice, str):
        if not isinstance(choice, Embedder):
            raise InvalidArgument(f"an embedder needs name, dimensions and embed(), not "
                                  f"{type(choice).__name__}")
        return choice
    name = choice.strip()
    prefix, colon, model = name.partition(":")
    if colon:
        if prefix.lower() not in _PREFIXED or not model.strip():
            raise InvalidArgument(_unknown(name))
        return _PREFIXED[prefix.lower()](model.strip())
    match name.lower():
        case "none" | "":
            return None
        case "hashing":
            return HashingEmbedder()
        case "minilm":
            return MiniLMEmbedder()
        case "default":
            return MiniLMEmbedder() if installed() else None
    raise InvalidArgument(_unknown(name))


def embedder_from_environment(choice: EmbedderChoice = None) -> Embedder | None:
    """``choice`` resolved, or when it is None, ``$KG_MEMORY_EMBEDDER``, else ``default``."""
    if choice is None:
        choice = os.environ.get(EMBEDDER_ENV) or "default"
    return resolve_embedder(choice)


def _unknown(name: str) -> str:
    return (f"unknown embedder {name!r}: one of {', '.join(EMBEDDER_NAMES)}, or "
            f"{', '.join(f'{p}:<model>' for p in _PREFIXED)}")
