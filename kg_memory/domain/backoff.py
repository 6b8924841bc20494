"""Bounded retry with exponential backoff and jitter, as a pure schedule.

A writer that finds the store's lock held (:class:`~kg_memory.domain.errors.StoreBusy`) waits and
tries again a bounded number of times. The schedule is pure data: the caller passes the random
source, so a test replays it exactly and the service layer does the sleeping.
"""

from __future__ import annotations

import random

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Backoff"]


class Backoff(BaseModel):
    """``attempts`` tries in all; before try ``n + 1`` wait about ``first * factor**n`` seconds.

    Each wait is drawn uniformly from ``[base / 2, base]`` ("equal jitter"), so writers that
    collided once do not collide again in lockstep, and is capped at ``cap``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    attempts: int = Field(default=5, ge=1, le=100)
    first: float = Field(default=0.05, ge=0.0, le=60.0)
    factor: float = Field(default=2.0, ge=1.0, le=10.0)
    cap: float = Field(default=2.0, ge=0.0, le=600.0)

    def delays(self, rng: random.Random) -> list[float]:
        """The ``attempts - 1`` waits between tries."""
        waits = []
        for n in range(self.attempts - 1):
            base = min(self.cap, self.first * self.factor**n)
            waits.append(rng.uniform(base / 2, base))
        return waits

    @property
    def longest(self) -> float:
        """An upper bound of the total wait (excluding the busy timeouts of the tries)."""
        return sum(min(self.cap, self.first * self.factor**n) for n in range(self.attempts - 1))
