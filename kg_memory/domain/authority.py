"""The authority order: whose value wins a slot, and what is kept as a visible conflict.

Writers are ranked in tiers (data, part of the gate policy). Within one tier the newest value
supersedes the older one as usual; across tiers nothing supersedes silently (seed 002:
"conflicting sources should remain visible rather than being silently collapsed"). A tool that
reports ``deposit_preapproved = yes`` over the user's stated ``no`` does not end the user's
statement: both are kept, each attributed to its writer, and an as-of answer serves the user's
value and lists the tool's as a :class:`~kg_memory.domain.result.Conflict`.

>>> tiers = DEFAULT_AUTHORITY
>>> [tier_of(tiers, w).name for w in ("user", "agent", "registry", "restaurant", "consolidator")]
['user', 'user', 'third-party', 'third-party', 'workers']
>>> ranks_at_least(tiers, "tool", "user"), ranks_at_least(tiers, "user", "tool")
(False, True)

A stated fact is therefore ended only by a *statement* from its own tier (the user, or whom the
policy puts in the user's tier: by default the agent, which records what the user said). Within
a tier, statements and other kinds are separate timelines too, and statements rank first: the
agent's world fact (a booking it made, a tool result it relays) never ends the user's statement
in the same slot. :func:`standing` is that order. Retractions follow the
tiers: a writer withdraws its own tier's values (of the kinds the gate lets it write); an attempt
on a higher tier's value is refused, and a lower tier's value is left to its writer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.model import Kind
from kg_memory.domain.result import Conflict, Fact

__all__ = [
    "DEFAULT_AUTHORITY",
    "AuthorityTier",
    "arbitrate",
    "rank",
    "ranks_at_least",
    "same_tier",
    "standing",
    "tier_of",
]


class AuthorityTier(BaseModel):
    """A named group of writers (source names or globs) of equal authority."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    writers: tuple[str, ...]


#: Highest first: the user's conversation, then every other sender, then kg-memory's workers
#: (a derived record never outranks the evidence it was derived from).
DEFAULT_AUTHORITY: tuple[AuthorityTier, ...] = (
    AuthorityTier(name="user", writers=("user", "agent")),
    AuthorityTier(name="third-party", writers=("*",)),
    AuthorityTier(name="workers", writers=("consolidator",)),
)

_UNRANKED = AuthorityTier(name="unranked", writers=())


def rank(tiers: Sequence[AuthorityTier], writer: str) -> int:
    """The tier index of ``writer`` (0 is highest). A writer named exactly in a tier gets that
    tier even when an earlier tier has a matching glob; a writer no tier matches ranks last."""
    for index, tier in enumerate(tiers):
        if writer in tier.writers:
            return index
    for index, tier in enumerate(tiers):
        if any(fnmatchcase(writer, pattern) for pattern in tier.writers):
            return index
    return len(tiers)


def tier_of(tiers: Sequence[AuthorityTier], writer: str) -> AuthorityTier:
    index = rank(tiers, writer)
    return tiers[index] if index < len(tiers) else _UNRANKED


def same_tier(tiers: Sequence[AuthorityTier], a: str, b: str) -> bool:
    return rank(tiers, a) == rank(tiers, b)


def standing(tiers: Sequence[AuthorityTier], writer: str, kind: Kind) -> tuple[int, int]:
    """The order values are served in, lowest first: the writer's tier, then statements before
    every other kind. Values of equal standing share a timeline (the newer supersedes)."""
    return rank(tiers, writer), 0 if kind is Kind.STATED else 1


def ranks_at_least(tiers: Sequence[AuthorityTier], writer: str, other: str) -> bool:
    """Whether ``writer`` has at least the authority of ``other`` (may withdraw its values)."""
    return rank(tiers, writer) <= rank(tiers, other)


def arbitrate(
    facts: Sequence[Fact], tiers: Sequence[AuthorityTier],
    same_as: Mapping[str, str] | None = None,
) -> tuple[tuple[Fact, ...], tuple[Conflict, ...]]:
    """Split the facts of an as-of answer into what is served and what conflicts with it.

    Per slot (scope, subject, predicate, project) the facts of the best :func:`standing`
    present are served. A fact of lower standing with another value is a :class:`Conflict`
    naming the served facts it contradicts; one with the same value agrees and adds nothing.
    ``same_as`` maps each entity merged into the subject asked to it: a merged group's facts
    share the subject's slots, so a lower tier's value about a merged entity conflicts with the
    subject's own instead of being served beside it.
    """
    if len(facts) < 2:
        return tuple(facts), ()  # a single lookup's usual answer: nothing to weigh
    alias = same_as or {}
    slots: dict[tuple[str, str, str, str | None], list[Fact]] = {}
    for fact in facts:
        key = (fact.scope, alias.get(fact.subject, fact.subject), fact.predicate,
               fact.qualifiers.project)
        slots.setdefault(key, []).append(fact)
    if all(len(group) == 1 for group in slots.values()):
        return tuple(facts), ()  # the common case: one fact per slot, nothing to weigh
    served: list[Fact] = []
    conflicts: list[Conflict] = []
    for group in slots.values():
        best = min(standing(tiers, f.writer, f.kind) for f in group)
        top = [f for f in group if standing(tiers, f.writer, f.kind) == best]
        served.extend(top)
        for fact in group:
            if standing(tiers, fact.writer, fact.kind) == best or any(
                t.value == fact.value for t in top
            ):
                continue
            conflicts.append(Conflict(
                fact=fact,
                tier=tier_of(tiers, fact.writer).name,
                contradicts=tuple(t.assertion_id for t in top),
                served_tier=tier_of(tiers, top[0].writer).name,
            ))
    order = {id(f): i for i, f in enumerate(facts)}
    served.sort(key=lambda f: order[id(f)])
    return tuple(served), tuple(conflicts)
