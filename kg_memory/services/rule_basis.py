"""Forgetting reaches rules: an erased episode leaves no rule observation pointing at it.

A forget run erases episodes by lineage (:mod:`kg_memory.domain.forgetting`); a rule's basis
names episodes from a store document, which lineage's edges do not hold, so the run asks here
which rules lose observations and what becomes of each
(:func:`~kg_memory.domain.rule_review.forget_basis`: trim, review, or delete). A deleted rule
takes its binding facts with it (they are forgotten as the run's own assertions, so their
episodes and entity go too) and leaves a content-free tombstone, as a derived fact does.
"""

from __future__ import annotations

from collections.abc import Set

from kg_memory.domain.layers import PromotionPolicy, Rule
from kg_memory.domain.rule_review import RuleForget, forget_basis, forgotten_rule
from kg_memory.services.rules import RULE
from kg_memory.store.protocol import Store, Transaction

__all__ = ["apply_rule_forgetting", "plan_rule_forgetting"]


def plan_rule_forgetting(store: Store, scope: str, erased: Set[str],
                         policy: PromotionPolicy | None = None
                         ) -> tuple[tuple[RuleForget, ...], set[str]]:
    """The rules of ``scope`` that erasing ``erased`` reaches, and the binding facts of those
    deleted (to forget with them)."""
    rules = policy or PromotionPolicy()
    entries: list[RuleForget] = []
    bindings: set[str] = set()
    for body in store.documents(RULE, scope):
        rule = Rule.model_validate_json(body)
        entry = forget_basis(rule, erased, rules)
        if entry is None:
            continue
        entries.append(entry)
        if entry.outcome == "delete":
            bindings |= set(store.find_assertions(scope=scope, subject=rule.rule_id,
                                                  predicates="signal.*"))
    return tuple(sorted(entries, key=lambda e: e.rule_id)), bindings


def apply_rule_forgetting(tx: Transaction, store: Store, entries: tuple[RuleForget, ...],
                          erased: Set[str]) -> None:
    """Carry out the plan's rule entries inside the forget run's transaction."""
    for entry in entries:
        found = store.documents(RULE, tx.scope, key=entry.rule_id)
        if not found:
            continue
        after = forgotten_rule(Rule.model_validate_json(found[0]), entry, erased, tx.now)
        if after is None:
            tx.delete_document(RULE, entry.rule_id)
        else:
            tx.put_document(RULE, entry.rule_id, tx.scope, after.model_dump_json())
