"""Embedder adapters: the models recall's vectors come from (the shipped one, and those users
bring), and the one way to choose among them by name. An adapter layer beside the store
adapters: it imports only the domain, and loads every model lazily."""

from kg_memory.embedders.brought import (
    FastEmbedEmbedder,
    OpenAIEmbedder,
    SentenceTransformersEmbedder,
)
from kg_memory.embedders.choice import (
    EMBEDDER_ENV,
    EMBEDDER_NAMES,
    EmbedderChoice,
    embedder_from_environment,
    resolve_embedder,
)
from kg_memory.embedders.minilm import MODEL_NAME, MiniLMEmbedder

__all__ = [
    "EMBEDDER_ENV",
    "EMBEDDER_NAMES",
    "MODEL_NAME",
    "EmbedderChoice",
    "FastEmbedEmbedder",
    "MiniLMEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformersEmbedder",
    "embedder_from_environment",
    "resolve_embedder",
]
