"""The rule book of one tenant: what :attr:`ScopedMemory.rules
<kg_memory.services.scoped.ScopedMemory.rules>` returns.

:class:`~kg_memory.services.rules.RuleBook` is the operator's: most of its calls take an
optional scope, and without one they reach every tenant (``signal`` moves the signal in every
scope with a rule bound to it, ``due`` reviews every scope's rules). A :class:`ScopedRuleBook`
has no scope argument anywhere. Every call is pinned to its tenant, so another tenant's rule,
episode or signal is reported as not found (never as "exists elsewhere"), exactly as the scoped
memory reports another tenant's facts.

>>> from kg_memory import Memory
>>> memory = Memory.open(":memory:")
>>> u1, u2 = memory.scoped("u1").rules, memory.scoped("u2").rules
>>> rule = u1.propose("retry on 503")
>>> [r.rule_id for r in u1.all()] == [rule.rule_id], u2.all()
(True, [])
>>> u2.show(rule.rule_id)
Traceback (most recent call last):
...
kg_memory.domain.errors.NotFound: no rule '...'
"""

from __future__ import annotations

from datetime import datetime

from kg_memory.domain.errors import ScopeError
from kg_memory.domain.layers import Outcome, PromotionPolicy, Rule, RuleType, Tier
from kg_memory.domain.model import Episode
from kg_memory.services.rules import SIGNAL_SOURCE, Binding, RuleBook

__all__ = ["ScopedRuleBook"]


class ScopedRuleBook:
    """:class:`~kg_memory.services.rules.RuleBook` in exactly one scope (see the module)."""

    def __init__(self, book: RuleBook, scope: str) -> None:
        if not scope:
            raise ScopeError("a scoped rule book needs a non-empty scope")
        self._book = book
        self._scope = scope

    @property
    def scope(self) -> str:
        return self._scope

    @property
    def policy(self) -> PromotionPolicy:
        """What promotion from session to experience takes (seed 004's defaults)."""
        return self._book.policy

    # -- reads ------------------------------------------------------------------------------

    def all(self, tier: Tier | None = None) -> list[Rule]:
        return self._book.all(self._scope, tier)

    def show(self, rule_id: str) -> Rule:
        return self._book.show(rule_id, self._scope)

    def pending_review(self) -> list[Rule]:
        return self._book.pending_review(self._scope)

    def basis(self, rule_id: str) -> list[Episode]:
        """The raw episodes behind one of this tenant's rules, oldest first."""
        # The rule book admits only this scope's episodes as observations; a document written
        # some other way still never lends another tenant's episode here.
        return [e for e in self._book.basis(rule_id, self._scope) if e.scope == self._scope]

    def current_signal(self, name: str) -> str | None:
        return self._book.current_signal(name, self._scope)

    def _own(self, rule: Rule) -> Rule:
        if rule.scope != self._scope:
            # The answer reads the rule's scope's signals: never another tenant's.
            raise ScopeError(f"rule {rule.rule_id} is for scope {rule.scope!r}; this rule book "
                             f"is limited to {self._scope!r}")
        return rule

    def unbound(self, rule: Rule) -> str | None:
        """Why a bound signal no longer holds for ``rule`` (one of this tenant's)."""
        return self._book.unbound(self._own(rule))

    def bindings(self, rule: Rule) -> list[Binding]:
        """Each signal ``rule`` (one of this tenant's) was learned under, and whether its
        binding still holds."""
        return self._book.bindings(self._own(rule))

    # -- the rule's life --------------------------------------------------------------------

    def propose(self, content: str, *, type: RuleType = RuleType.EXPERIENCE,
                conditions: tuple[str, ...] = (), signals: dict[str, str] | None = None,
                corrects: str | None = None, expires_at: datetime | None = None,
                review_every_days: float | None = None) -> Rule:
        """A new session entry of this tenant. ``corrects`` must name one of its own rules
        (another tenant's is not found): a correction starts from that rule's raw record."""
        if corrects is not None:
            self.show(corrects)
        return self._book.propose(self._scope, content, type=type, conditions=conditions,
                                  signals=signals, corrects=corrects, expires_at=expires_at,
                                  review_every_days=review_every_days)

    def observe(self, rule_id: str, *, episode_id: str, task_id: str, scene: str,
                holds: bool = True) -> Rule:
        return self._book.observe(rule_id, episode_id=episode_id, task_id=task_id,
                                  scene=scene, holds=holds, scope=self._scope)

    def promote(self, rule_id: str) -> Rule:
        return self._book.promote(rule_id, scope=self._scope)

    def approve(self, rule_id: str, by: str, *, design_change: bool = False) -> Rule:
        return self._book.approve(rule_id, by, design_change=design_change, scope=self._scope)

    def review(self, rule_id: str, outcome: Outcome, by: str, reason: str = "", *,
               design_change: bool = False) -> Rule:
        return self._book.review(rule_id, outcome, by, reason, design_change=design_change,
                                 scope=self._scope)

    def demote(self, rule_id: str, by: str, reason: str = "", *,
               design_change: bool = False) -> Rule:
        return self._book.demote(rule_id, by, reason, design_change=design_change,
                                 scope=self._scope)

    def overturn(self, rule_id: str, by: str, reason: str, *,
                 design_change: bool = False) -> Rule:
        return self._book.overturn(rule_id, by, reason, design_change=design_change,
                                   scope=self._scope)

    def signal(self, name: str, value: str, *, source: str = SIGNAL_SOURCE) -> list[Rule]:
        """Move an environment signal in this scope only; the rules it sent to review."""
        return self._book.signal(name, value, self._scope, source=source)

    def due(self) -> list[Rule]:
        """Send this tenant's rules whose review conditions came due to review."""
        return self._book.due(self._scope)
