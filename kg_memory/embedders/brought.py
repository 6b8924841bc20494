"""Embedders for the models users bring: fastembed, sentence-transformers, an OpenAI-compatible
embeddings endpoint.

Each imports its library (or opens its connection) on first use, never at construction, and
none is installed by kg-memory: a missing library is
:class:`~kg_memory.domain.errors.ExtraMissing` naming the package. Their downloads of weights
happen on the user's machine, by the library, when the user asks for that model; kg-memory's
own tests drive them with the shipped model or a local HTTP server, never a download.

A store records the model that embedded it by :attr:`name`: ``fastembed:<model>``,
``sentence-transformers:<model>``, ``openai:<model>`` (the endpoint is not part of the name,
so the same model served elsewhere reads the same vectors).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from array import array
from collections.abc import Sequence
from typing import Any

from kg_memory.domain.errors import StoreUnavailable
from kg_memory.embedders.minilm import require

__all__ = [
    "OPENAI_BASE_URL_ENV",
    "OPENAI_KEY_ENV",
    "FastEmbedEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformersEmbedder",
]

#: Where the OpenAI-compatible endpoint is and the key it wants (the OpenAI SDK's own names).
OPENAI_BASE_URL_ENV = "OPENAI_BASE_URL"
OPENAI_KEY_ENV = "OPENAI_API_KEY"
_OPENAI_DEFAULT = "https://api.openai.com/v1"


def _floats(vector: Any) -> array[float]:
    return array("f", (float(x) for x in vector))


class _Lazy:
    """A model loaded once, on first use, whose dimensions are measured on one probe text when
    the library cannot say them without loading."""

    name: str

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dimensions: int | None = None

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        raise NotImplementedError

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            [probe] = self.embed(["dimensions"])
            self._dimensions = len(probe)
        return self._dimensions


class FastEmbedEmbedder(_Lazy):
    """``fastembed.TextEmbedding(model)``; ``options`` go to its constructor (``cache_dir``,
    ``specific_model_path``, ``threads``...)."""

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__()
        self.model, self.options = model, options
        self.name = f"fastembed:{model}"
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        with self._lock:
            if self._model is None:
                fastembed = require("fastembed", extra="fastembed", feature=self.name)
                self._model = fastembed.TextEmbedding(model_name=self.model, **self.options)
        return [_floats(v) for v in self._model.embed(list(texts))]


class SentenceTransformersEmbedder(_Lazy):
    """``sentence_transformers.SentenceTransformer(model)``, unit vectors; ``options`` go to
    its constructor (``device``, ``cache_folder``...)."""

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__()
        self.model, self.options = model, options
        self.name = f"sentence-transformers:{model}"
        self._model: Any = None

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        with self._lock:
            if self._model is None:
                st = require("sentence_transformers", extra="sentence-transformers",
                             feature=self.name)
                self._model = st.SentenceTransformer(self.model, **self.options)
                self._dimensions = int(self._model.get_sentence_embedding_dimension())
        vectors = self._model.encode(list(texts), normalize_embeddings=True)
        return [_floats(v) for v in vectors]


class OpenAIEmbedder(_Lazy):
    """``POST {base_url}/embeddings`` as OpenAI's API and its compatible servers (vLLM,
    Ollama, LiteLLM, text-embeddings-inference) define it. ``base_url`` defaults to
    ``$OPENAI_BASE_URL`` (else OpenAI's), ``api_key`` to ``$OPENAI_API_KEY`` (none: no
    Authorization header). An endpoint that fails is
    :class:`~kg_memory.domain.errors.StoreUnavailable`: recall cannot run, which is never an
    empty answer."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 batch_size: int = 256, timeout: float = 60.0) -> None:
        super().__init__()
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = (base_url or os.environ.get(OPENAI_BASE_URL_ENV)
                         or _OPENAI_DEFAULT).rstrip("/")
        self._key = api_key if api_key is not None else os.environ.get(OPENAI_KEY_ENV)
        self.batch_size, self.timeout = batch_size, timeout

    def _post(self, texts: list[str]) -> list[Sequence[float]]:
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(
            f"{self.base_url}/embeddings", method="POST", headers=headers,
            data=json.dumps({"model": self.model, "input": texts}).encode("utf-8"))
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = json.loads(response.read())
            rows = sorted(body["data"], key=lambda d: int(d["index"]))
            vectors = [_floats(d["embedding"]) for d in rows]
        except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreUnavailable(
                f"the embeddings endpoint {self.base_url} failed for {self.model!r}: "
                f"{exc}") from exc
        if len(vectors) != len(texts):
            raise StoreUnavailable(f"the embeddings endpoint {self.base_url} returned "
                                   f"{len(vectors)} vectors for {len(texts)} texts")
        return list(vectors)

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        out: list[Sequence[float]] = []
        for start in range(0, len(texts), self.batch_size):
            out += self._post(list(texts[start:start + self.batch_size]))
        return out
