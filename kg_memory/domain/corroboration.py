"""Corroboration: how many *independent* sources stand behind a fact.

Every episode that supports a fact is kept (it is evidence, and lineage needs it), but support
edges are not corroboration (seed 002: "counting associations does not count independent
corroboration"; "repeated delivery must not manufacture apparently independent evidence"). A
webhook redelivered 30 times under 30 new operation ids is one source saying one thing once:

>>> from datetime import UTC, datetime
>>> at = datetime(2026, 1, 5, tzinfo=UTC)
>>> copies = [Support(episode_id=f"ep{i}", source="restaurant", occurred_at=at,
...                   fingerprint=fingerprint("R1 confirmed")) for i in range(30)]
>>> corroboration(copies)
Corroboration(sources=1, mentions=1, episodes=30)
>>> mentioned(copies, times=2)
False

``sources`` counts distinct writers; ``mentions`` counts distinct (writer, content) pairs, so a
user who says the same thing in two conversations with different words has mentioned it twice,
and a copied episode never counts again. Policies ("replace only when mentioned twice within 30
days", "raise confidence with corroboration") must count with :func:`mentioned` or
:func:`corroboration`, never with ``len(supported_by)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.model import Support

__all__ = ["Corroboration", "corroboration", "fingerprint", "mentioned"]


def fingerprint(content: str) -> str:
    """A short digest of an episode's text, blind to case and whitespace.

    Only equality matters: two copies of one message get one fingerprint. Near-duplicates that
    change a date or a negation are different content and must not be folded, so nothing fuzzier
    than case and whitespace is normalised.
    """
    normal = " ".join(content.casefold().split())
    return hashlib.blake2b(normal.encode(), digest_size=8).hexdigest()


class Corroboration(BaseModel):
    """``sources`` distinct writers, ``mentions`` distinct (writer, content), ``episodes`` all."""

    model_config = ConfigDict(frozen=True)

    sources: int
    mentions: int
    episodes: int

    def __repr__(self) -> str:
        return (
            f"Corroboration(sources={self.sources}, mentions={self.mentions}, "
            f"episodes={self.episodes})"
        )


def corroboration(supports: Iterable[Support]) -> Corroboration:
    """Count the independent evidence among ``supports`` (see the module docstring)."""
    writers: set[str] = set()
    said: set[tuple[str, str]] = set()
    episodes: set[str] = set()
    for support in supports:
        writers.add(support.source)
        said.add((support.source, support.fingerprint or support.episode_id))
        episodes.add(support.episode_id)
    return Corroboration(sources=len(writers), mentions=len(said), episodes=len(episodes))


def mentioned(
    supports: Iterable[Support], *, times: int, since: datetime | None = None
) -> bool:
    """Whether the fact was *mentioned* at least ``times`` times (since ``since``, if given):
    distinct content from a writer counts, redelivered copies do not."""
    recent = [s for s in supports if since is None or s.occurred_at >= since]
    return corroboration(recent).mentions >= times
