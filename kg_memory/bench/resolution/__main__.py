"""``python -m kg_memory.bench.resolution``: print the benchmark on the committed corpus, with the
naive baselines for contrast. ``python -m kg_memory.bench.resolution corpus DIR`` regenerates the
corpus files into ``DIR`` (byte-identical for the same seed). ``python -m
kg_memory.bench.resolution train [PATH]`` relearns the shipped weights, and ``python -m
kg_memory.bench.resolution misses DATASET [--identifier]`` classifies every miss on a public
dataset's test half (both need the ``resolution-bench`` extra)."""

from __future__ import annotations

import sys
from pathlib import Path

from kg_memory.bench.resolution.benchmark import BASELINES, CORPUS_DIR, evaluate, evaluate_baseline
from kg_memory.bench.resolution.corpus import generate_corpus, load_corpus, write_corpus

__all__ = ["main"]


def main(argv: list[str]) -> int:
    if argv[:1] == ["corpus"] and len(argv) == 2:
        write_corpus(generate_corpus(), Path(argv[1]))
        return 0
    if argv[:1] == ["train"] and len(argv) <= 2:
        from kg_memory.bench.resolution.train import TRAINED_PATH, train

        print(train(Path(argv[1]) if len(argv) == 2 else TRAINED_PATH))
        return 0
    if argv[:1] == ["misses"] and len(argv) in (2, 3) and argv[2:] in ([], ["--identifier"]):
        from kg_memory.bench.resolution.febrl import DATASETS
        from kg_memory.bench.resolution.misses import classify_misses, format_misses

        if argv[1] not in DATASETS:
            # "misses --help" named no dataset: the usage, not a traceback.
            print(f"{argv[1]!r} is not a dataset; one of {', '.join(DATASETS)}\n\n{__doc__}",
                  file=sys.stderr)
            return 2
        print(format_misses(classify_misses(argv[1], identifier=len(argv) == 3)))
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    committed = load_corpus(CORPUS_DIR)
    evaluate(committed, report=print)
    for baseline in BASELINES:
        print()
        evaluate_baseline(committed, baseline, report=print)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
