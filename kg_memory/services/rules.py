"""The rule book: tiered rules (seed 004) kept as store documents, on either backend.

Each change is a pure function of :mod:`kg_memory.domain.layers` applied to the stored rule and
written back in one transaction, with the transition (who, when, why) inside the rule. A
correction starts from :meth:`RuleBook.basis`, the raw episodes the rule links to.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

from kg_memory.domain.errors import NotFound
from kg_memory.domain.layers import (
    Observation,
    Outcome,
    PromotionPolicy,
    Rule,
    RuleType,
    Tier,
    approve,
    move_signal,
    observe,
    overturn,
    promote,
    review,
)
from kg_memory.domain.model import Episode
from kg_memory.store.protocol import Store

__all__ = ["RULE", "RuleBook"]

RULE = "rule"


class RuleBook:
    """Rules of one store; ``clock`` supplies the time every transition is recorded at."""

    def __init__(self, store: Store, clock: Callable[[], datetime],
                 policy: PromotionPolicy | None = None) -> None:
        self._store, self._clock = store, clock
        self.policy = policy or PromotionPolicy()

    def all(self, scope: str | None = None, tier: Tier | None = None) -> list[Rule]:
        rules = [Rule.model_validate_json(b) for b in self._store.documents(RULE, scope)]
        return [r for r in rules if tier is None or r.tier is tier]

    def show(self, rule_id: str, scope: str | None = None) -> Rule:
        """One rule; with ``scope``, only if it is that tenant's (else not found: another
        tenant's rule is not even confirmed to exist)."""
        found = self._store.documents(RULE, scope, key=rule_id)
        if not found:
            raise NotFound(f"no rule {rule_id!r}")
        return Rule.model_validate_json(found[0])

    def _put(self, rule: Rule) -> Rule:
        with self._store.transaction(rule.scope) as tx:
            tx.put_document(RULE, rule.rule_id, rule.scope, rule.model_dump_json())
        return rule

    def propose(self, scope: str, content: str, *, type: RuleType = RuleType.EXPERIENCE,
                conditions: tuple[str, ...] = (), signals: dict[str, str] | None = None,
                corrects: str | None = None) -> Rule:
        """A new session entry (nothing starts higher: promotion is earned)."""
        digest = hashlib.sha256(f"{scope}/{content}/{conditions}".encode()).hexdigest()[:16]
        rule = Rule(rule_id=f"rl_{digest}", scope=scope, content=content, type=type,
                    conditions=conditions, signals=signals or {}, corrects=corrects)
        return self._put(rule)

    def observe(self, rule_id: str, *, episode_id: str, task_id: str, scene: str,
                holds: bool = True) -> Rule:
        episode = self._store.episodes([episode_id])
        if not episode:
            raise NotFound(f"no episode {episode_id!r}: a rule's basis is raw episodes")
        return self._put(observe(self.show(rule_id), Observation(
            episode_id=episode_id, task_id=task_id, scene=scene, at=episode[0].occurred_at,
            holds=holds)))

    def promote(self, rule_id: str) -> Rule:
        return self._put(promote(self.show(rule_id), self.policy, self._clock()))

    def approve(self, rule_id: str, by: str, *, design_change: bool = False,
                scope: str | None = None) -> Rule:
        return self._put(approve(self.show(rule_id, scope), by, self._clock(),
                                 design_change=design_change))

    def review(self, rule_id: str, outcome: Outcome, by: str, reason: str = "", *,
               scope: str | None = None) -> Rule:
        return self._put(review(self.show(rule_id, scope), outcome, by, self._clock(), reason))

    def demote(self, rule_id: str, by: str, reason: str = "", *,
               scope: str | None = None) -> Rule:
        return self.review(rule_id, Outcome.DEMOTE, by, reason, scope=scope)

    def overturn(self, rule_id: str, by: str, reason: str) -> Rule:
        return self._put(overturn(self.show(rule_id), by, self._clock(), reason))

    def signal(self, name: str, value: str, scope: str | None = None) -> list[Rule]:
        """An environment signal moved: every rule bound to it goes to review."""
        now = self._clock()
        moved = []
        for rule in self.all(scope):
            after = move_signal(rule, name, value, now)
            if after != rule:
                moved.append(self._put(after))
        return moved

    def pending_review(self, scope: str | None = None) -> list[Rule]:
        return [r for r in self.all(scope) if r.status == "review" or r.candidate]

    def basis(self, rule_id: str) -> list[Episode]:
        """The raw episodes behind a rule, oldest first: where a correction starts."""
        rule = self.show(rule_id)
        found = self._store.episodes([o.episode_id for o in rule.basis])
        return sorted(found, key=lambda e: (e.occurred_at, e.episode_id))
