"""The ranking weights' ranges (``kg_memory.domain.ranking.RankingWeights``): a weight outside
its range is refused naming the field, never served as an order."""

from __future__ import annotations

import math

import pytest

from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.ranking import RankingWeights


@pytest.mark.parametrize(("field", "value"), [
    ("k1", -0.01), ("k1", math.inf), ("k1", math.nan),
    ("b", -0.01), ("b", 1.01), ("b", math.nan), ("b", math.inf),
    ("specificity", -0.01), ("specificity", math.inf), ("specificity", math.nan),
    ("recency", -0.01), ("recency", math.inf), ("recency", math.nan),
    ("evidence", -0.01), ("evidence", math.inf), ("evidence", math.nan),
    ("rrf_k", -1), ("rrf_k", 1.5), ("rrf_k", True),
    ("lexical_weight", -0.01), ("lexical_weight", 1.01), ("lexical_weight", math.nan),
    ("fusion", "max"),
])
def test_a_ranking_weight_outside_its_range_is_refused_naming_it(field: str, value: object
                                                                   ) -> None:
    """Rule: BM25's ``k1`` and the three boosts are finite and at least 0, ``b`` is from 0 to
    1, ``rrf_k`` a whole number at least 0; anything else is an :class:`InvalidArgument`
    naming the field (a negative weight would rank a better match lower)."""
    with pytest.raises(InvalidArgument, match=field) as refused:
        RankingWeights(**{field: value})  # type: ignore[arg-type]
    assert refused.value.field == field
    bound = {"b": "from 0 to 1", "lexical_weight": "from 0 to 1",
             "rrf_k": "a whole number at least 0", "fusion": "'rrf' or 'convex'"}.get(
        field, "finite and at least 0")
    assert bound in str(refused.value)  # the message says what would be accepted


@pytest.mark.parametrize(("field", "value"), [
    ("k1", 0.0), ("k1", 1e6), ("b", 0.0), ("b", 1.0), ("specificity", 0.0),
    ("recency", 0.0), ("evidence", 0.0), ("evidence", 5.0), ("rrf_k", 0), ("rrf_k", 1000),
    ("lexical_weight", 0.0), ("lexical_weight", 1.0), ("fusion", "rrf"), ("fusion", "convex"),
])
def test_a_ranking_weight_at_the_edge_of_its_range_is_accepted(field: str, value: float
                                                                ) -> None:
    assert getattr(RankingWeights(**{field: value}), field) == value  # type: ignore[arg-type]
