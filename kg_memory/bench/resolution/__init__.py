"""The resolver's labelled corpus and its benchmark: a tool that measures the resolver, not part
of it. The corpus generator builds synthetic people with known identities
(``fixtures/resolution/corpus``); :func:`evaluate` replays it through the pure resolver of
:mod:`kg_memory.domain.resolution` and counts merges, misses and reviews per slice.
"""

from kg_memory.bench.resolution.benchmark import (
    BASELINES,
    CORPUS_DIR,
    ResolutionMetrics,
    SliceMetrics,
    evaluate,
    evaluate_baseline,
)
from kg_memory.bench.resolution.corpus import (
    Corpus,
    generate_corpus,
    load_corpus,
    write_corpus,
)
from kg_memory.bench.resolution.labelled import LabelledMention, Slice

__all__ = [
    "BASELINES",
    "CORPUS_DIR",
    "Corpus",
    "LabelledMention",
    "ResolutionMetrics",
    "Slice",
    "SliceMetrics",
    "evaluate",
    "evaluate_baseline",
    "generate_corpus",
    "load_corpus",
    "write_corpus",
]
