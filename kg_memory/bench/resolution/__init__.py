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
from kg_memory.bench.resolution.dataset import DatasetReport, format_report
from kg_memory.bench.resolution.labelled import LabelledMention, Slice

#: Datasets ``benchmark_dataset`` accepts (FEBRL, from the optional ``resolution-bench`` extra).
DATASETS = ("febrl1", "febrl2", "febrl3", "febrl4")


def benchmark_dataset(dataset: str, *, identifier: bool = False, limit: int | None = None,
                      throughput: bool = True) -> DatasetReport:
    """The resolver and two baselines on a public dataset's test half (see
    :mod:`kg_memory.bench.resolution.dataset`); imported lazily, as it needs the extra."""
    from kg_memory.bench.resolution.dataset import benchmark_dataset as run

    return run(dataset, identifier=identifier, limit=limit, throughput=throughput)

__all__ = [
    "BASELINES",
    "CORPUS_DIR",
    "DATASETS",
    "Corpus",
    "DatasetReport",
    "LabelledMention",
    "ResolutionMetrics",
    "Slice",
    "SliceMetrics",
    "benchmark_dataset",
    "evaluate",
    "evaluate_baseline",
    "format_report",
    "generate_corpus",
    "load_corpus",
    "write_corpus",
]
