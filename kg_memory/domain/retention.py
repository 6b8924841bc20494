"""Retention: how many memories a scope keeps, and which go first (seeds 000 and 001).

Decay bounds *trust*; storage still needs a limit. A sweep keeps at most ``cap`` assertions per
scope and evicts in a deliberate order:

1. already invalid: nothing about it is believed and valid now (superseded, retracted, retired);
2. expired: believed, but its decay factor fell below the floor (it would not be served);
3. the least recently confirmed of the rest.

This is a pure rule over :class:`Held` summaries; the service decides whether an eviction
deletes (through forgetting's erasure rules) or is only reported.

>>> from datetime import UTC, datetime
>>> t = datetime(2026, 1, 1, tzinfo=UTC)
>>> held = [Held(assertion_id="a", scope="s", key="r.f", live=False, expired=False,
...              last_confirmed=t), Held(assertion_id="b", scope="s", key="r.f", live=True,
...              expired=False, last_confirmed=t)]
>>> [e.assertion_id for e in plan_sweep(held, cap=1)]
['a']
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.instant import UtcDatetime

__all__ = ["Eviction", "Held", "plan_sweep"]

INVALID = "already invalid"
EXPIRED = "expired (decayed below the floor)"
OLDEST = "least recently confirmed"


class Held(BaseModel):
    model_config = ConfigDict(frozen=True)

    assertion_id: str
    scope: str
    key: str
    live: bool
    expired: bool
    last_confirmed: UtcDatetime


class Eviction(BaseModel):
    model_config = ConfigDict(frozen=True)

    assertion_id: str
    scope: str
    key: str
    why: str


def _order(h: Held) -> tuple[int, UtcDatetime, str]:
    rank = 0 if not h.live else 1 if h.expired else 2
    return rank, h.last_confirmed, h.assertion_id


def plan_sweep(held: Sequence[Held], *, cap: int) -> list[Eviction]:
    """What to evict so that no scope keeps more than ``cap`` assertions, first to go first."""
    if cap < 0:
        raise ValueError("cap must be at least 0")
    by_scope: dict[str, list[Held]] = {}
    for h in held:
        by_scope.setdefault(h.scope, []).append(h)
    evictions: list[Eviction] = []
    for scope in sorted(by_scope):
        ranked = sorted(by_scope[scope], key=_order)
        for h in ranked[: max(0, len(ranked) - cap)]:
            why = INVALID if not h.live else EXPIRED if h.expired else OLDEST
            evictions.append(Eviction(assertion_id=h.assertion_id, scope=scope, key=h.key,
                                      why=why))
    return evictions
