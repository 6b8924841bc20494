"""What a forget selector's id names in one scope: a node there, a node an earlier forget
erased, or nothing.

An id selector (``episode:``, ``operation:``, ``assertion:``, ``entity:``) names one node. A
plan that would change nothing is then one of two answers a caller must be able to tell apart:
the node was forgotten already (the store holds its tombstone: ``nothing-to-forget``, so
running the same request again stays safe), or no such node ever existed in the scope
(:class:`~kg_memory.domain.errors.NotFound`: a mistyped id, an operation id given as an episode
id, another tenant's id; a success there would tell a user their data is gone when nothing was
even found). A ``source:`` or ``category:`` selector names a set, by name or pattern, and an
empty set is an answer, not an error.

Another scope's node is not found here, with the same words as a node that never existed, so
the answer says nothing about other tenants. The tombstone is found by its keyed hash of scope
and id (the node ``tomb_<key[:20]>`` and the ``INVALIDATED_BY`` edge to the run that left it),
so nothing of the forgotten id is stored to answer this.
"""

from __future__ import annotations

from kg_memory.domain.errors import NotFound
from kg_memory.domain.forgetting import ID_KINDS, Selector, node_key, operation_key
from kg_memory.domain.ids import episode_id_for
from kg_memory.domain.model import EdgeType
from kg_memory.store.protocol import Store

__all__ = ["check_named", "forgotten_scopes", "named_episode"]


def named_episode(selector: Selector, scope: str) -> str | None:
    """The episode an ``episode:`` or ``operation:`` selector names in ``scope``."""
    if selector.kind == "operation":
        return episode_id_for(scope, selector.value)
    return selector.value if selector.kind == "episode" else None


def _tombstoned(store: Store, key: str, scope: str) -> bool:
    return any(e.type is EdgeType.INVALIDATED_BY
               for e in store.edges(f"tomb_{key[:20]}", scope))


def _forgotten(store: Store, selector: Selector, scope: str) -> bool:
    """Whether an earlier forget run in ``scope`` erased what ``selector`` names."""
    secret = store.secret
    if selector.kind == "operation":
        return _tombstoned(store, operation_key(secret, scope, selector.value), scope)
    return _tombstoned(store, node_key(secret, scope, selector.value), scope)


def _present(store: Store, selector: Selector, scope: str) -> bool:
    """Whether ``selector``'s id names a node of ``scope`` now."""
    episode = named_episode(selector, scope)
    if episode is not None:
        return any(e.scope == scope for e in store.episodes([episode]))
    if selector.kind == "assertion":
        return any(v.scope == scope for v in store.versions([selector.value]))
    # An entity is a node once anything names it: its record, a fact about it, a mention or
    # a dependency on it.
    return (any(e.entity_id == selector.value for e in store.entities(scope))
            or bool(store.find_assertions(scope=scope, subject=selector.value))
            or bool(store.edges(selector.value, scope)))


def check_named(store: Store, selector: Selector, scope: str) -> None:
    """Raise :class:`NotFound` when ``selector`` (bound to ``scope``) names an id that
    neither is in ``scope`` nor was forgotten there; anything else passes."""
    if selector.kind not in ID_KINDS or _present(store, selector, scope) or _forgotten(
            store, selector, scope):
        return
    hint = ""
    if selector.kind == "episode" and _present(
            store, Selector(kind="operation", value=selector.value, scope=scope), scope):
        hint = (f"; {selector.value!r} is an operation id there: forget "
                f"operation:{selector.value}@{scope}")
    raise NotFound(f"no {selector.kind} {selector.value!r} in scope {scope!r}{hint}")


def forgotten_scopes(store: Store, selector: Selector) -> list[str]:
    """For an id selector that names nothing live in any scope (an all-scopes request): the
    scopes in which an earlier run forgot it, or :class:`NotFound` when there are none. Only
    scopes a forget ran in can hold its tombstone, so only those are asked."""
    ran = sorted({a.scope for a in store.activities("forget")})
    forgotten = [scope for scope in ran if _forgotten(store, selector, scope)]
    if not forgotten:
        raise NotFound(f"no {selector.kind} {selector.value!r} in any scope")
    return forgotten
