"""Train the shipped weights: ``python -m kg_memory.bench.resolution train [PATH]``.

Two sources of unlabelled candidate pairs, neither of them what the benchmark reports on:

* the *training* half of FEBRL 3 (even-numbered people; the benchmark reports on the odd
  half), with its social-security numbers filed as national ids, for the person-record fields;
* the development corpus of seed 1 (the committed corpus has another seed), for the fields of
  a conversation (employer, project, co-mentions ...).

Labels are never read. The output replaces ``kg_memory/domain/resolution/trained.json``; bump
:data:`TRAINED_VERSION` whenever the sources or the method change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from kg_memory.bench.resolution.corpus import generate_corpus
from kg_memory.bench.resolution.febrl import Part, load_febrl, mentions
from kg_memory.bench.resolution.training import (
    candidate_pairs,
    learn,
    trained_weights,
    write_weights,
)
from kg_memory.domain.resolution.config import ResolverConfig

__all__ = ["TRAINED_PATH", "TRAINED_VERSION", "train"]

TRAINED_VERSION: Final = "fs-em-3"  # 3: national ids near at two edits
TRAINED_PATH: Final = Path(__file__).resolve().parents[2] / "domain" / "resolution" / "trained.json"
_DEV_SEED: Final = 1


def train(path: Path = TRAINED_PATH) -> Path:
    """Learn the weights from the two sources and write the versioned file to ``path``."""
    start = ResolverConfig.with_weights(None)  # EM starts from the hand-set values
    febrl = candidate_pairs(
        "febrl3-train",
        mentions(load_febrl("febrl3", part=Part.TRAIN, identifier=True)),
        config=start,
    )
    corpus = generate_corpus(_DEV_SEED)
    dev = candidate_pairs(
        f"corpus-seed-{_DEV_SEED}",
        [m.mention for m in corpus.mentions],
        corpus.profiles,
        config=start,
    )
    learned, reports = learn([febrl, dev], start=start)
    weights = trained_weights(TRAINED_VERSION, learned, reports, [febrl.name, dev.name])
    write_weights(weights, path)
    return path
