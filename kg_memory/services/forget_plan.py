"""Planning a forget request: what a selector names, and the plan for it, in one scope.

The plan (:func:`kg_memory.domain.forgetting.plan_forget`) is computed the same way for a dry
run and a real one, so ``--dry-run`` prints exactly what will happen. Every read it makes goes
through one :class:`~kg_memory.services.plan_reads.PlanReads` (each node read once, the lineage
walk a level per read); the run reuses those reads for what it needs of the state before its
transaction (the revisions it deletes, the episodes it erases).
"""

from __future__ import annotations

from kg_memory.domain.errors import ScopeError
from kg_memory.domain.forgetting import ForgetPlan, Selector, plan_forget
from kg_memory.services.forget_target import named_episode
from kg_memory.services.lineage import forget_view
from kg_memory.services.node_ids import revision_id
from kg_memory.services.plan_reads import plan_reads
from kg_memory.services.residues import (
    ResidueSearch,
    find_residues,
    orphaned_entities,
    unnamed_entities,
)
from kg_memory.services.rule_basis import plan_rule_forgetting
from kg_memory.store.protocol import Store

__all__ = ["forget_grounds", "plan", "plan_in_scope", "required_scope", "selector_scopes"]


def _targets(store: Store, selector: Selector, scope: str) -> tuple[set[str], set[str]]:
    """The episodes and assertions a selector names in ``scope``, by id or by lineage, never
    by text. An id of another scope names nothing here."""
    episode = named_episode(selector, scope)
    if episode is not None:
        return {e.episode_id for e in store.episodes([episode]) if e.scope == scope}, set()
    if selector.kind == "assertion":
        # As a table prints it, ``as_…#N``: the assertion, every revision (N must exist).
        base, revision = revision_id(selector.value)
        return set(), {v.assertion_id for v in store.versions([base])
                       if v.scope == scope and revision in (None, v.revision)}
    if selector.kind == "entity":
        return set(), set(store.find_assertions(scope=scope, subject=selector.value))
    if selector.kind == "source":
        return set(store.find_episodes(selector.value, scope)), set()
    return set(), set(
        store.find_assertions(scope, selector.subject, selector.predicates or "*",
                              selector.project)
    )


def selector_scopes(store: Store, selector: Selector) -> list[str]:
    """Every scope in which an unscoped selector names something (an operator's all-scopes
    request runs once in each, so no single run crosses a scope)."""
    if selector.scope is not None:
        return [selector.scope]
    if selector.kind == "operation":  # its episode's id is made from its scope: none here
        raise ScopeError(f"selector {selector} names no scope: an operation id means something "
                         "only in its own scope (add @SCOPE)")
    found: set[str] = set()
    if selector.kind == "episode":
        found = {e.scope for e in store.episodes([selector.value])}
    elif selector.kind == "assertion":
        base, revision = revision_id(selector.value)
        found = {v.scope for v in store.versions([base]) if revision in (None, v.revision)}
    elif selector.kind == "entity":
        found = {e.scope for e in store.entities() if e.entity_id == selector.value}
        found |= {v.scope for v in store.versions(store.find_assertions(subject=selector.value))}
    elif selector.kind == "source":
        found = {e.scope for e in store.episodes(store.find_episodes(selector.value))}
    return sorted(found)


def plan(store: Store, selector: Selector) -> ForgetPlan:
    """The plan of a selector bound to one scope."""
    return plan_in_scope(store, selector)[0]


def plan_in_scope(store: Store, selector: Selector, keep_residues: bool = False
                  ) -> tuple[ForgetPlan, ResidueSearch, Store]:
    """The lineage plan, then what lineage cannot see: the entities that go (the chosen one and
    the orphans), those that lose their name, and residues (and, unless ``keep_residues``,
    what cutting the residues in rules' words does to them); and the planning reads, for the
    run to reuse before it writes anything."""
    scope = required_scope(selector)
    store = plan_reads(store)  # one state read once, however many passes look at it
    episodes, assertions = _targets(store, selector, scope)
    # An entity's own dependents: what DEPENDS_ON the entity itself rests on it as much as on
    # the facts about it (the write path retires them when its owner ends it), so they are
    # walked like the dependents of a deleted fact.
    grounds = forget_grounds(selector)
    by_lineage = plan_forget(
        forget_view(store, episodes, assertions, scope, grounds=grounds), selector,
        episodes=episodes, assertions=assertions, grounds=grounds,
    )
    rules, bindings = plan_rule_forgetting(store, scope, set(by_lineage.erase))
    if bindings - set(by_lineage.delete):  # a deleted rule's binding facts go with it
        assertions |= bindings
        by_lineage = plan_forget(
            forget_view(store, episodes, assertions, scope, grounds=grounds), selector,
            episodes=episodes, assertions=assertions, grounds=grounds)
    by_lineage = by_lineage.model_copy(update={"rules": rules})
    chosen = selector.value if selector.kind == "entity" else None
    entities = set(orphaned_entities(store, by_lineage, chosen))
    # The chosen entity goes whatever else the plan holds: an entity only ever declared (no
    # fact about it, nothing depending on it) has nothing else to plan, and its name and type
    # must go all the same (with them, its tombstone and the residue search for its name).
    entities |= set(store.entity_ids([chosen], scope)) if chosen else set()
    by_lineage = by_lineage.model_copy(update={"entities": tuple(sorted(entities))})
    # Entities first: the names that go with them are searched as residues too.
    by_lineage = by_lineage.model_copy(update={"unnamed": unnamed_entities(store, by_lineage)})
    found = find_residues(store, by_lineage)
    if found.rules and not keep_residues:
        by_lineage = by_lineage.model_copy(update={"rules": found.rules})
    return by_lineage.model_copy(update={
        "residues": tuple(r.residue for r in found.found)}), found, store


def forget_grounds(selector: Selector) -> set[str]:
    """The entities a selector forgets as such (not only the facts about them)."""
    return {selector.value} if selector.kind == "entity" else set()


def required_scope(selector: Selector) -> str:
    """The selector's scope, or :class:`ScopeError` (a forget acts within one scope)."""
    if selector.scope is None:
        raise ScopeError(
            f"selector {selector} names no scope: add @SCOPE (a forget acts within one scope), "
            "or ask for every scope explicitly (--all-scopes)")
    return selector.scope
