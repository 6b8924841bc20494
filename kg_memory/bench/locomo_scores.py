"""How well a ranked list finds a question's evidence: recall_any@k, recall_all@k, MRR.

A question names its evidence turns (``D<session>:<turn>``); a system returns a ranked list of
turns. At turn level, ``any@k`` counts a question when one of its evidence turns is in the top
``k`` and ``all@k`` when every one is. At session level a returned turn stands for its session:
``any@k`` when a turn of an evidence turn's session is in the top ``k``, ``all@k`` when the top
``k`` covers every evidence session (what a reader that expands a hit to its session would
see). MRR is the mean of 1/rank of the first evidence turn (0 when none is returned).

>>> scores = RankScores()
>>> scores.add(["D1:2", "D2:1", "D1:1"], ("D1:1", "D2:1"))
>>> scores.add([], ("D3:1",))
>>> q = scores.quality()
>>> q.turn["any@1"], q.turn["any@5"], q.turn["all@5"], q.session["all@1"], q.mrr
(0.0, 0.5, 0.5, 0.0, 0.25)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from kg_memory.bench.locomo_data import session_of

__all__ = ["KS", "Quality", "RankScores", "hit_counts"]

#: The cut-offs the issue asks for.
KS = (1, 5, 10)


class Quality(BaseModel):
    """Rates over ``questions``: ``turn`` and ``session`` map ``any@k`` / ``all@k`` to a
    fraction; ``mrr`` is the mean reciprocal rank of the first evidence turn."""

    model_config = ConfigDict(frozen=True)

    questions: int
    turn: dict[str, float]
    session: dict[str, float]
    mrr: float


def hit_counts(found: Sequence[str], evidence: Sequence[str]) -> dict[str, bool]:
    """One question's verdicts: ``turn any@k``, ``turn all@k``, ``session any@k``, ... ."""
    wanted = set(evidence)
    sessions = {session_of(e) for e in wanted}
    out: dict[str, bool] = {}
    for k in KS:
        top = found[:k]
        top_sessions = {session_of(d) for d in top if d}
        out[f"turn any@{k}"] = bool(wanted.intersection(top))
        out[f"turn all@{k}"] = bool(wanted) and wanted.issubset(top)
        out[f"session any@{k}"] = bool(sessions & top_sessions)
        out[f"session all@{k}"] = bool(sessions) and sessions <= top_sessions
    return out


@dataclass
class RankScores:
    """Counts over the questions added so far."""

    questions: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    reciprocal: float = 0.0

    def add(self, found: Sequence[str], evidence: Sequence[str]) -> None:
        self.questions += 1
        for name, hit in hit_counts(found, evidence).items():
            self.counts[name] = self.counts.get(name, 0) + hit
        wanted = set(evidence)
        first = next((rank for rank, d in enumerate(found, 1) if d in wanted), None)
        self.reciprocal += 1 / first if first else 0.0

    def quality(self) -> Quality:
        n = max(1, self.questions)

        def level(prefix: str) -> dict[str, float]:
            return {f"{kind}@{k}": self.counts.get(f"{prefix} {kind}@{k}", 0) / n
                    for kind in ("any", "all") for k in KS}

        return Quality(questions=self.questions, turn=level("turn"),
                       session=level("session"), mrr=self.reciprocal / n)
