"""Forgetting reaches rules: an erased episode leaves no rule observation pointing at it.

A forget run erases episodes by lineage (:mod:`kg_memory.domain.forgetting`); a rule's basis
names episodes from a store document, which lineage's edges do not hold, so the run asks here
which rules lose observations and what becomes of each
(:func:`~kg_memory.domain.rule_review.forget_basis`: trim, review, or delete). A deleted rule
takes its binding facts with it (they are forgotten as the run's own assertions, so their
episodes and entity go too) and leaves a content-free tombstone, as a derived fact does.

With the residue search's needles (``match``), a rule that survives also loses every copy of
the forgotten text in its own words, and goes to review when that changes what it says
(:func:`~kg_memory.domain.rule_review.forget_words`): the plan lists it, and the run cuts it in
the same single write that trims its basis.
"""

from __future__ import annotations

from collections.abc import Set

from kg_memory.domain.layers import PromotionPolicy, Rule
from kg_memory.domain.residue import Matcher
from kg_memory.domain.rule_review import RuleForget, forget_basis, forget_words, forgotten_rule
from kg_memory.services.rules import RULE
from kg_memory.store.protocol import Store, Transaction

__all__ = ["apply_rule_forgetting", "plan_rule_forgetting"]


def plan_rule_forgetting(store: Store, scope: str, erased: Set[str],
                         policy: PromotionPolicy | None = None, match: Matcher | None = None
                         ) -> tuple[tuple[RuleForget, ...], set[str]]:
    """The rules of ``scope`` that erasing ``erased`` reaches (with ``match``, also those
    whose words quote what is erased), and the binding facts of those deleted (to forget with
    them)."""
    rules = policy or PromotionPolicy()
    entries: list[RuleForget] = []
    bindings: set[str] = set()
    for body in store.documents(RULE, scope):
        rule = Rule.model_validate_json(body)
        entry = forget_basis(rule, erased, rules)
        if match is not None:
            entry = forget_words(rule, entry, erased, match)
        if entry is None:
            continue
        entries.append(entry)
        if entry.outcome == "delete":
            bindings |= set(store.find_assertions(scope=scope, subject=rule.rule_id,
                                                  predicates="signal.*"))
    return tuple(sorted(entries, key=lambda e: e.rule_id)), bindings


def apply_rule_forgetting(tx: Transaction, store: Store, entries: tuple[RuleForget, ...],
                          erased: Set[str], match: Matcher | None = None) -> None:
    """Carry out the plan's rule entries inside the forget run's transaction (``match``: the
    residue search's needles, for the entries that cut words)."""
    for entry in entries:
        found = store.documents(RULE, tx.scope, key=entry.rule_id)
        if not found:
            continue
        after = forgotten_rule(Rule.model_validate_json(found[0]), entry, erased, tx.now,
                               match)
        if after is None:
            tx.delete_document(RULE, entry.rule_id)
        else:
            tx.put_document(RULE, entry.rule_id, tx.scope, after.model_dump_json())
