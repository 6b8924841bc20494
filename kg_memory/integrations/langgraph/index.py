"""LangGraph's ``index`` config on ``KgMemoryStore``: search by meaning, as LangGraph's stores do.

``KgMemoryStore(memory, index={"dims": 384, "embed": ..., "fields": ["text"]})`` takes what
``InMemoryStore`` and the Postgres and SQLite stores take:

* ``embed``: a function of a list of texts (sync or async), a LangChain ``Embeddings``, a
  kg-memory :class:`~kg_memory.domain.embedding.Embedder`, or a name. A name is first read as
  kg-memory's embedder choice (``minilm``, ``default``, ``hashing``, ``fastembed:<model>``,
  ``sentence-transformers:<model>``, ``openai:<model>``: see
  :mod:`kg_memory.embedders.choice`), so nothing is downloaded that the user's own library does
  not download; any other ``provider:model`` goes to LangChain's ``init_embeddings`` through
  LangGraph's ``ensure_embeddings`` (the user's library, installed by the user).
* ``dims``: the vectors' length; a vector of another length is an
  :class:`~kg_memory.InvalidArgument` naming both, never a silent mix. Optional when ``embed``
  is a kg-memory embedder or name (its own ``dimensions``).
* ``fields``: which parts of an item's value are embedded (LangGraph's paths: ``"$"`` the whole
  value, the default, ``"a.b"``, ``"list[*]"``, ``"{a,b}"``); an item scores the best cosine of
  its fields' vectors, as LangGraph's stores do. ``text_fields`` (SQLite's name) is the same.
* ``distance_type`` (Postgres'): ``cosine`` (the default), ``inner_product`` or ``l2`` (scored
  as the negated distance); ``ann_index_config`` is accepted and has no effect (the search is
  exact over the eligible items).

The given function is wrapped as a kg-memory ``Embedder`` (:attr:`VectorIndex.embedder`), so
``memory.use_embedder(store.index.embedder)`` gives ``Memory.recall`` the same model.
Vectors are kept per text in the process (a text is embedded once) and computed at search for
any eligible item not yet seen, so items written through other doors (an ingested conversation,
another process) are found by meaning too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import PutOp, ensure_embeddings, get_text_at_path, tokenize_path

from kg_memory import Embedder, Fact, InvalidArgument, resolve_embedder
from kg_memory.integrations.langgraph.items import decode, to_namespace

__all__ = ["IndexEmbedder", "VectorIndex"]

#: Texts whose vectors a store keeps in the process before it starts again.
_CACHE_LIMIT = 50_000


def _run(coroutine_function: Callable[[list[str]], Any], texts: list[str]) -> Any:
    """An async embed function's answer from sync code (a store's batch runs in a thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine_function(texts))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # this thread runs a loop already
        return pool.submit(asyncio.run, coroutine_function(texts)).result()


class IndexEmbedder:
    """A LangGraph ``embed`` (function or LangChain ``Embeddings``) as a kg-memory
    ``Embedder``: ``name``, ``dimensions`` (the config's ``dims``) and ``embed``, which checks
    every vector's length."""

    def __init__(self, embeddings: Embeddings, *, dims: int, name: str) -> None:
        self.embeddings, self.dimensions, self.name = embeddings, dims, name

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        if not texts:
            return []
        afunc = getattr(self.embeddings, "afunc", None)
        if afunc is not None and not hasattr(self.embeddings, "func"):
            vectors = _run(afunc, list(texts))  # an async-only function: run it here
        else:
            vectors = self.embeddings.embed_documents(list(texts))
        return checked(self, texts, vectors)

    def embed_query(self, text: str) -> Sequence[float]:
        """The query's vector by the model's own query method (some models embed a question
        unlike a document)."""
        afunc = getattr(self.embeddings, "afunc", None)
        if afunc is not None and not hasattr(self.embeddings, "func"):
            [vector] = _run(afunc, [text])
        else:
            vector = self.embeddings.embed_query(text)
        [vector] = checked(self, [text], [vector])
        return vector


def checked(embedder: Embedder, texts: Sequence[str], vectors: Sequence[Sequence[float]]
            ) -> list[Sequence[float]]:
    """``vectors``, once each is known to have ``embedder.dimensions`` floats."""
    if len(vectors) != len(texts):
        raise InvalidArgument(f"index: the embed function {embedder.name!r} returned "
                              f"{len(vectors)} vectors for {len(texts)} texts", field="index")
    for vector in vectors:
        if len(vector) != embedder.dimensions:
            raise InvalidArgument(
                f"index: the embed function {embedder.name!r} returned a vector of "
                f"{len(vector)} dimensions, but index['dims'] is {embedder.dimensions}: give "
                f"the model's own dimensions", field="index")
    return list(vectors)


def _known_dimensions(embedder: Embedder) -> int | None:
    """``embedder.dimensions`` when it is a plain attribute (reading a property may load the
    model)."""
    for where in (vars(embedder), vars(type(embedder))):
        if isinstance(where.get("dimensions"), int):
            return int(where["dimensions"])
    return None


class _Declared:
    """A kg-memory embedder whose dimensions are the index config's ``dims``."""

    def __init__(self, inner: Embedder, dims: int) -> None:
        self.inner, self.name, self.dimensions = inner, inner.name, dims

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        return checked(self, texts, self.inner.embed(texts))


def _name_of(embed: object) -> str:
    model = getattr(embed, "model", None) or getattr(embed, "model_name", None)
    kind = getattr(embed, "__qualname__", None) or type(embed).__qualname__
    module = getattr(embed, "__module__", None) or type(embed).__module__
    return f"langgraph:{module}.{kind}" + (f":{model}" if isinstance(model, str) else "")


def make_embedder(embed: object, dims: int | None) -> Embedder:
    """The kg-memory ``Embedder`` an ``index['embed']`` stands for (see the module docstring)."""
    if embed is None:
        raise InvalidArgument("index needs 'embed': a function, an Embeddings, an embedder or "
                              "a model name", field="index")
    chosen: Embedder | None = None
    kg_name = False
    if isinstance(embed, str):
        # Not one of kg-memory's names: LangChain's provider:model, below.
        with contextlib.suppress(InvalidArgument):
            chosen, kg_name = resolve_embedder(embed), True
        if kg_name and chosen is None:
            raise InvalidArgument(f"index['embed'] = {embed!r} names no model (with the embed "
                                  f"extra installed, 'default' is the shipped one)",
                                  field="index")
    elif isinstance(embed, Embedder) and not isinstance(embed, Embeddings):
        chosen = embed
    if chosen is not None:
        known = _known_dimensions(chosen)
        if dims is not None and known is not None and dims != known:
            raise InvalidArgument(f"index['dims'] is {dims}, but {chosen.name!r} makes vectors "
                                  f"of {known} dimensions", field="index")
        if dims is None or known is not None:
            return chosen
        # A brought model says its dimensions only once loaded (and its library may download
        # it): take the config's word now, and check every vector it makes against it.
        return _Declared(chosen, dims)
    if dims is None or isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise InvalidArgument(f"index['dims'] must be the vectors' length (a positive int), "
                              f"not {dims!r}", field="index")
    try:
        embeddings = ensure_embeddings(embed)  # type: ignore[arg-type]
    except ValueError as exc:  # a provider string without langchain (or its provider package)
        raise InvalidArgument(f"index['embed'] = {embed!r}: {exc}", field="index") from None
    return IndexEmbedder(embeddings, dims=dims,
                         name=f"langchain:{embed}" if isinstance(embed, str) else _name_of(embed))


Paths = tuple[tuple[str, list[str]], ...]


def _paths(fields: Sequence[str]) -> Paths:
    return tuple((f, tokenize_path(f) if f != "$" else ["$"]) for f in fields)


def texts_of(value: Mapping[str, Any], paths: Paths) -> list[str]:
    """The texts of ``value`` that ``paths`` select, as LangGraph's stores extract them."""
    out: list[str] = []
    for path, tokens in paths:
        out += get_text_at_path(value, "$" if path == "$" else tokens)
    return out


class VectorIndex:
    """One store's index config: the embedder, the default fields, and the vectors of the
    texts embedded so far."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        if not isinstance(config, Mapping):
            raise InvalidArgument(f"index must be a dict with 'dims', 'embed' and 'fields', not "
                                  f"{type(config).__name__}", field="index")
        unknown = set(config) - {"dims", "embed", "fields", "text_fields", "ann_index_config",
                                 "distance_type"}
        if unknown:
            raise InvalidArgument(f"index: unknown keys {sorted(unknown)}; LangGraph's are "
                                  f"dims, embed, fields", field="index")
        # SqliteStore spells ``fields`` as ``text_fields``: its config works here unchanged.
        fields = config.get("fields") or config.get("text_fields")
        if config.get("fields") and config.get("text_fields") and \
                config["fields"] != config["text_fields"]:
            raise InvalidArgument("index: 'fields' and 'text_fields' (SQLite's name for the "
                                  "same setting) disagree; give one", field="index")
        #: The config as given (LangGraph's stores expose it as ``index_config``).
        self.config = dict(config)
        self.embedder = make_embedder(config.get("embed"), config.get("dims"))
        self.distance = config.get("distance_type") or "cosine"
        if self.distance not in _DISTANCES:
            raise InvalidArgument(f"index['distance_type'] = {self.distance!r}: one of "
                                  f"{', '.join(_DISTANCES)}", field="index")
        fields = fields or ["$"]
        if isinstance(fields, str):
            fields = [fields]
        self.fields: tuple[str, ...] = tuple(fields)
        self.paths = _paths(self.fields)
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        # A put's own ``index`` (fields, or False) for its item, by (namespace, key): kept in
        # the process only (a fact has nowhere to hold it); other items use the config's.
        self._item_paths: dict[tuple[tuple[str, ...], str], Paths] = {}

    def paths_for(self, index: bool | Sequence[str] | None) -> Paths:
        """The paths a put's ``index`` argument asks for (None: the config's fields)."""
        if index is None or index is True:
            return self.paths
        if index is False:
            return ()
        return _paths(list(index))

    def index_puts(self, puts: Sequence[PutOp]) -> None:
        """Embed a batch's new values before anything is written, as LangGraph's stores do: a
        model that fails (or answers with the wrong dims) refuses the batch, not a later
        search. Then remember each put's own ``index``."""
        texts: list[str] = []
        chosen: dict[tuple[tuple[str, ...], str], Paths | None] = {}
        for op in puts:
            paths = self.paths_for(op.index)
            chosen[(tuple(op.namespace), op.key)] = (
                None if op.value is None or op.index is None else paths)
            if op.value is not None:
                texts += texts_of(dict(op.value), paths)
        self.embed(texts)
        with self._lock:
            for where, kept in chosen.items():
                if kept is None:
                    self._item_paths.pop(where, None)
                else:
                    self._item_paths[where] = kept

    def ranked(self, query: str, facts: Sequence[Fact]) -> list[tuple[float | None, Fact]]:
        """LangGraph's vector search over exactly ``facts``: each item's best score over its
        fields, highest first, then the items with nothing indexed (score None)."""
        with self._lock:
            paths = [self._item_paths.get((to_namespace(f.scope, f.subject), f.predicate),
                                          self.paths) for f in facts]
        documents = [texts_of(decode(f.value), p) for f, p in zip(facts, paths, strict=True)]
        scored = list(zip(self.scores(query, documents), facts, strict=True))
        scored.sort(key=lambda p: (p[0] is None, -(p[0] or 0.0),
                                   to_namespace(p[1].scope, p[1].subject), p[1].predicate))
        return scored

    def embed(self, texts: Sequence[str]) -> None:
        """Embed every text not embedded yet (one call of the model)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if not missing:
            return
        vectors = checked(self.embedder, missing, self.embedder.embed(missing))
        with self._lock:
            if len(self._vectors) + len(missing) > _CACHE_LIMIT:
                self._vectors.clear()  # a bound, not a policy: any text is embedded again
            for text, vector in zip(missing, vectors, strict=True):
                self._vectors[text] = np.asarray(vector, dtype=np.float64)

    def query_vector(self, query: str) -> Sequence[float]:
        embed_query = getattr(self.embedder, "embed_query", None)
        if callable(embed_query):
            [vector] = checked(self.embedder, [query], [embed_query(query)])
        else:
            [vector] = checked(self.embedder, [query], self.embedder.embed([query]))
        return vector

    def scores(self, query: str, documents: Sequence[Sequence[str]]) -> list[float | None]:
        """Each document's best score with ``query`` by the config's distance (None: a document
        with no text)."""
        self.embed([t for doc in documents for t in doc])
        q = np.asarray(self.query_vector(query), dtype=np.float64)
        with self._lock:
            vectors = [[self._vectors[t] for t in doc if t in self._vectors] for doc in documents]
        if any(len(v) < len(set(d)) for v, d in zip(vectors, documents, strict=True)):
            # Evicted between the two steps by another thread: embed this search's texts again.
            self.embed([t for doc in documents for t in doc])
            with self._lock:
                vectors = [[self._vectors[t] for t in doc] for doc in documents]
        similarity = _DISTANCES[self.distance]
        return [max(similarity(q, v) for v in vs) if vs else None for vs in vectors]


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b)) / norm if norm > 0 else 0.0


#: LangGraph's distance types (Postgres' ``distance_type``) as scores, higher is nearer:
#: cosine similarity (the default and InMemoryStore's), the inner product, and the negated
#: Euclidean distance, as LangGraph's Postgres store reports them.
_DISTANCES: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "cosine": _cosine,
    "inner_product": lambda a, b: float(np.dot(a, b)),
    "l2": lambda a, b: -float(np.linalg.norm(a - b)),
}
