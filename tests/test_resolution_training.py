"""Weights learned, not hand-set: EM recovers m and u from unlabelled pairs drawn from a known
model, the shipped file is what the resolver loads, and every decision records its version."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from kg_memory.bench.resolution.training import PairSource, estimate, learn
from kg_memory.domain.resolution import (
    DEFAULT_CONFIG,
    BlockingIndex,
    EntityProfile,
    Mention,
    resolve,
)
from kg_memory.domain.resolution.config import ResolverConfig
from kg_memory.domain.resolution.field import Field, Level
from kg_memory.domain.resolution.name_kinds import NAME_KINDS
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


def test_names_are_learned_over_their_kinds_without_voting_and_each_source_keeps_its_share(
) -> None:
    # Names drawn independently of the match class: were they allowed to vote in the E-step
    # (round 1), pairs chosen for a similar name would teach EM that the name is the match.
    rng = random.Random(4)
    base = _pairs(3000, 0.6, seed=2)
    named = PairSource(name=base.name, pairs=tuple(
        (*pair, (Field.GIVEN_NAME, rng.choice(("exact", "typo", "replaced"))))
        for pair in base.pairs))
    learned, reports = learn([named, _pairs(1000, 0.1, seed=3)])
    shares = [r.match_share for r in reports]
    assert abs(shares[0]["synthetic-2"] - 0.6) < 0.05
    assert abs(shares[1]["synthetic-3"] - 0.1) < 0.05
    given = learned[Field.GIVEN_NAME]
    assert set(given.kinds) == set(NAME_KINDS)
    for kind in ("exact", "typo", "replaced"):
        assert abs(given.kinds[kind].weight) < 0.2, kind  # independent of the class: no evidence


def test_name_kinds_are_kept_in_order_of_agreement() -> None:
    # A training file whose duplicates replace given names more often than strangers differ
    # (FEBRL) and whose strangers share nicknames: still, disagreeing is never evidence for,
    # and no close kind outweighs an exact name.
    rng = random.Random(5)
    pairs = []
    for _ in range(4000):
        match = rng.random() < 0.5
        birth = Level.EXACT if match == (rng.random() < 0.95) else Level.DIFFERENT
        given = rng.choices(("exact", "nickname", "replaced"),
                            weights=(0.5, 0.05, 0.45) if match else (0.5, 0.3, 0.2))[0]
        pairs.append(((Field.BIRTH_DATE, birth), (Field.GIVEN_NAME, given)))
    learned, _ = estimate([PairSource(name="skewed", pairs=tuple(pairs))])
    kinds = learned[Field.GIVEN_NAME].kinds
    different = [k for k, lv in NAME_KINDS.items() if lv is Level.DIFFERENT]
    assert all(kinds[k].weight <= 1e-9 for k in different)
    floor = max(kinds[k].weight for k in different)
    for kind, level in NAME_KINDS.items():
        if level is Level.CLOSE:
            assert floor - 1e-9 <= kinds[kind].weight <= kinds["exact"].weight + 1e-9, kind
    assert kinds["replaced"].weight == pytest.approx(0.0, abs=1e-6)  # clipped, not for


def test_the_shipped_config_is_the_trained_file_and_decisions_record_it() -> None:
    trained = load_trained()
    assert trained is not None
    assert trained.rule_version.startswith("fs-em-")
    assert set(trained.trained_on) == {"febrl3-train", "corpus-seed-1"}
    assert DEFAULT_CONFIG.rule_version.startswith(trained.rule_version + "/")
    for field, params in trained.fields.items():
        assert DEFAULT_CONFIG.fields[field] == params
        assert params != STARTING_FIELDS.get(field)  # learned, not the hand-set start
    assert DEFAULT_CONFIG.fields[Field.GIVEN_NAME].kinds  # names learned too (fs-em-2)
    untrained = ResolverConfig.with_weights(None)
    assert untrained.rule_version.startswith("fs-2/")
    at = datetime(2026, 1, 1, tzinfo=UTC)
    decision = resolve(Mention(mention_id="m", name="Jo", episode_id="e", at=at),
                       BlockingIndex(), now=at)
    assert decision.rule_version == DEFAULT_CONFIG.rule_version
    known = EntityProfile(entity_id="p", names=("Bob Smith",))
    said = Mention(mention_id="n", name="Robert Smith", episode_id="e", at=at)
    scored = resolve(said, BlockingIndex([known]), now=at).candidates[0]
    given = next(f for f in scored.fields if f.field is Field.GIVEN_NAME)
    # Every decision records the kind and the learned weight it carried.
    assert given.kind == "nickname"
    assert given.weight == DEFAULT_CONFIG.fields[Field.GIVEN_NAME].kinds["nickname"].weight
