"""Errors raised by entity resolution (all are :class:`~kg_memory.errors.KgMemoryError`)."""

from __future__ import annotations

from kg_memory.errors import KgMemoryError

__all__ = ["ResolutionError"]


class ResolutionError(KgMemoryError, ValueError):
    """A resolution request that cannot be honoured: a manual decision about another mention, an
    unmerge of something that was never merged, two profiles with one id in one scope."""
