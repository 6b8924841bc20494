"""The plug-in point for a learned scorer (an embedding model, an LLM judge).

A scorer reads a mention and one candidate profile and may return extra evidence as a weight in
bits, like any other field. The resolver clips that weight to ``±config.max_scorer_weight``,
never asks a scorer about a vetoed candidate, and never lets scorer evidence count as the
"something other than the name agrees" a MERGE needs. So a model can tip a close call, but it
cannot turn a name-only match into a merge, and it cannot override a veto. kg-memory ships no
model; :class:`ConstantScorer` exists for tests and as the smallest example.

>>> from kg_memory.domain.resolution.scorer import ConstantScorer, Scorer
>>> isinstance(ConstantScorer("always-yes", 2.0), Scorer)
True
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.resolution.mention import Mention
from kg_memory.domain.resolution.profile import EntityProfile

__all__ = ["ConstantScorer", "Scorer", "ScorerEvidence"]


class ScorerEvidence(BaseModel):
    """What a scorer contributed: its raw opinion and the (clipped) weight actually applied."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scorer: str
    weight: float  # in bits, after clipping
    raw_weight: float
    reason: str = ""


@runtime_checkable
class Scorer(Protocol):
    """Anything with a ``name`` and a ``score`` method. ``score`` returns a weight in bits
    (positive: likelier the same entity) and a short reason, or ``None`` to abstain. It must be
    deterministic for a given input if decisions are to be reproducible."""

    @property
    def name(self) -> str: ...

    def score(self, mention: Mention, profile: EntityProfile) -> tuple[float, str] | None: ...


class ConstantScorer:
    """A scorer with one fixed opinion about every candidate."""

    def __init__(self, name: str, weight: float, reason: str = "constant") -> None:
        self._name = name
        self._weight = weight
        self._reason = reason

    @property
    def name(self) -> str:
        return self._name

    def score(self, mention: Mention, profile: EntityProfile) -> tuple[float, str] | None:
        return self._weight, self._reason
