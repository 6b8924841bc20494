"""Who may be ranked: recall's eligibility rules, applied before any score is computed.

Seed 002: "Eligibility constrains consideration; ranking orders eligible records. [...] A higher
similarity score cannot repair a violated eligibility condition." So every candidate the index
returns is judged here first, and only the eligible ones reach :mod:`kg_memory.domain.ranking`.
A rejected candidate is counted under the first rule it fails, never scored.

The rules, in the order they are checked:

* **scope** is not a rule here but a partition: the store only ever returns candidates of the
  asked scope. Other tenants' matches are not counted either, since even a count would tell one
  tenant what another holds.
* ``not_believed_at_known_at``: the revision's system interval does not contain ``known_at``
  (written later, or already superseded, retracted or retired by then).
* ``not_valid_at``: its valid interval does not contain ``at``.
* ``blocked``: a collection block of a forget request covers its category (blocks active at
  ``known_at`` and blocks active now both count: a block is the user's present instruction).
* ``kind_not_requested``: the caller did not ask for (or may not see) this kind: permission.
* any :class:`EligibilityRule` the caller adds: the extension point for the policies issue's
  decay floor and pending status, and for a deployment's own permission model.

Forgotten content is never a candidate: forgetting erases it from every index in the forget
run's transaction, so there is nothing to count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from kg_memory.domain.model import Assertion, Block, Episode, Kind

__all__ = [
    "ALL_KINDS",
    "BELIEF",
    "BLOCKED",
    "KIND",
    "REFUSED",
    "VALIDITY",
    "EligibilityRule",
    "RecallContext",
    "episode_exclusion",
    "episode_reasons",
    "fact_exclusion",
    "fact_reasons",
]

BELIEF = "not_believed_at_known_at"
VALIDITY = "not_valid_at"
BLOCKED = "blocked"
KIND = "kind_not_requested"
#: A message whose envelope the gate refused: kept for the audit, never served as anyone's words.
REFUSED = "envelope_refused"

ALL_KINDS: frozenset[Kind] = frozenset(Kind)


class EligibilityRule(Protocol):
    """A further eligibility condition (decay floor, pending status, a permission model).

    ``name`` is the key its exclusions are counted under. Both methods must be pure.
    """

    @property
    def name(self) -> str: ...

    def excludes_fact(self, fact: Assertion, context: RecallContext) -> bool: ...

    def excludes_episode(self, episode: Episode, context: RecallContext) -> bool: ...


@dataclass(frozen=True)
class RecallContext:
    """Everything eligibility depends on: the request's scope and both instants."""

    scope: str
    at: datetime
    known_at: datetime
    now: datetime
    kinds: frozenset[Kind] = ALL_KINDS
    blocks: tuple[Block, ...] = ()
    rules: Sequence[EligibilityRule] = field(default_factory=tuple)

    def rule_names(self) -> tuple[str, ...]:
        return (BELIEF, VALIDITY, BLOCKED, KIND, REFUSED, *(r.name for r in self.rules))


def _block_active(block: Block, instant: datetime) -> bool:
    return block.created_at <= instant and (block.revoked_at is None or block.revoked_at > instant)


def _blocked(fact: Assertion, context: RecallContext) -> bool:
    for block in context.blocks:
        if not (_block_active(block, context.known_at) or _block_active(block, context.now)):
            continue
        # Block.covers also checks revocation "now"; a block revoked since known_at still
        # counts for a replay at known_at, so compare the category here.
        live = block.model_copy(update={"revoked_at": None})
        if live.covers(fact.scope, fact.subject, fact.predicate, fact.qualifiers.project):
            return True
    return False


def fact_exclusion(fact: Assertion, context: RecallContext) -> str | None:
    """The first rule ``fact`` fails, or ``None`` when it may be ranked."""
    if fact.scope != context.scope:  # the store partitions by scope; never trust that alone
        raise ValueError(f"candidate {fact.assertion_id} is outside scope {context.scope!r}")
    if not fact.system.contains(context.known_at):
        return BELIEF
    if not fact.valid.contains(context.at):
        return VALIDITY
    if _blocked(fact, context):
        return BLOCKED
    if fact.kind not in context.kinds:
        return KIND
    for rule in context.rules:
        if rule.excludes_fact(fact, context):
            return rule.name
    return None


def episode_exclusion(episode: Episode, context: RecallContext) -> str | None:
    """The first rule ``episode`` fails, or ``None`` when it may be ranked.

    An episode's system time is when it was recorded and its valid time when it occurred: a
    message that arrived after ``known_at``, or was about a moment after ``at``, is not
    evidence at that point of either axis.
    """
    if episode.scope != context.scope:
        raise ValueError(f"candidate {episode.episode_id} is outside scope {context.scope!r}")
    if episode.refused:
        # Before the instants: a forged envelope is nobody's message at any point of either
        # axis, and counting it here tells the caller one was found and held back.
        return REFUSED
    if episode.recorded_at > context.known_at:
        return BELIEF
    if episode.occurred_at > context.at:
        return VALIDITY
    for rule in context.rules:
        if rule.excludes_episode(episode, context):
            return rule.name
    return None


def fact_reasons(fact: Assertion, context: RecallContext) -> tuple[str, ...]:
    """Why an eligible fact may be used: one line per rule it passed."""
    return (
        f"scope {fact.scope}",
        f"believed at known_at: system {fact.system}",
        f"valid at at: valid {fact.valid}",
        "no collection block covers it",
        f"kind {fact.kind.value} requested",
        *(f"passes {r.name}" for r in context.rules),
    )


def episode_reasons(episode: Episode, context: RecallContext) -> tuple[str, ...]:
    return (
        f"scope {episode.scope}",
        f"recorded {episode.recorded_at.isoformat()} (by known_at)",
        f"occurred {episode.occurred_at.isoformat()} (by at)",
        *(f"passes {r.name}" for r in context.rules),
    )
