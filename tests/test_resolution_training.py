"""Weights learned, not hand-set: EM recovers m and u from unlabelled pairs drawn from a known
model, the shipped file is what the resolver loads, and every decision records its version."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from kg_memory.bench.resolution.training import PairSource, estimate, learn
from kg_memory.domain.resolution import DEFAULT_CONFIG, BlockingIndex, Mention, resolve
from kg_memory.domain.resolution.config import ResolverConfig
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.weights import STARTING_FIELDS, load_trained

LEVELS = (Level.EXACT, Level.CLOSE, Level.DIFFERENT)
#: The true model the pairs are drawn from (unknown to EM): per field, m and u over the levels.
TRUE = {
    Field.BIRTH_DATE: ((0.85, 0.10, 0.05), (0.01, 0.04, 0.95)),
    Field.POSTCODE: ((0.75, 0.20, 0.05), (0.05, 0.10, 0.85)),
    Field.STREET: ((0.70, 0.25, 0.05), (0.01, 0.02, 0.97)),
    Field.STATE: ((0.95, 0.01, 0.04), (0.30, 0.01, 0.69)),
}


def _pairs(n: int, share: float, seed: int) -> PairSource:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        match = rng.random() < share
        pair = []
        for field, (m, u) in TRUE.items():
            if rng.random() < 0.1:
                continue  # missing on one side: left out, as the resolver weighs it zero
            level = rng.choices(LEVELS, weights=m if match else u)[0]
            pair.append((field, level))
        pairs.append(tuple(pair))
    return PairSource(name=f"synthetic-{seed}", pairs=tuple(pairs))


def test_em_recovers_m_and_u_from_unlabelled_pairs() -> None:
    learned, report = estimate([_pairs(6000, 0.3, seed=1)])
    assert report.converged
    assert abs(report.match_share["synthetic-1"] - 0.3) < 0.03
    for field, (m, u) in TRUE.items():
        params = learned[field]
        for level, true_m, true_u in zip(LEVELS, m, u, strict=True):
            got = getattr(params, level.value)
            assert abs(got.m - true_m) < 0.05, (field, level, got.m, true_m)
            assert abs(got.u - true_u) < 0.05, (field, level, got.u, true_u)


def test_names_are_never_learned_and_each_source_keeps_its_own_share() -> None:
    names = PairSource(name="names", pairs=tuple(
        ((Field.GIVEN_NAME, Level.EXACT), (Field.BIRTH_DATE, Level.EXACT)) for _ in range(100)))
    learned, reports = learn([_pairs(3000, 0.6, seed=2), _pairs(1000, 0.1, seed=3), names])
    assert Field.GIVEN_NAME not in learned  # the blocking keys: not independent within a block
    shares = [r.match_share for r in reports]
    assert abs(shares[0]["synthetic-2"] - 0.6) < 0.05
    assert abs(shares[1]["synthetic-3"] - 0.1) < 0.05


def test_the_shipped_config_is_the_trained_file_and_decisions_record_it() -> None:
    trained = load_trained()
    assert trained is not None
    assert trained.rule_version.startswith("fs-em-")
    assert set(trained.trained_on) == {"febrl3-train", "corpus-seed-1"}
    assert DEFAULT_CONFIG.rule_version.startswith(trained.rule_version + "/")
    for field, params in trained.fields.items():
        assert DEFAULT_CONFIG.fields[field] == params
        assert params != STARTING_FIELDS.get(field)  # learned, not the hand-set start
    assert DEFAULT_CONFIG.fields[Field.GIVEN_NAME] == STARTING_FIELDS[Field.GIVEN_NAME]
    untrained = ResolverConfig.with_weights(None)
    assert untrained.rule_version.startswith("fs-2/")
    at = datetime(2026, 1, 1, tzinfo=UTC)
    decision = resolve(Mention(mention_id="m", name="Jo", episode_id="e", at=at),
                       BlockingIndex(), now=at)
    assert decision.rule_version == DEFAULT_CONFIG.rule_version
