"""Ids as the CLI and the tools print them, read back: whatever an output prints names the
node it printed.

Tables print an assertion's revision as ``as_…#N`` (the assertion id, ``#``, the revision);
every command that takes an id takes that form too, for the assertion, provided revision N
exists (a revision that does not exist names nothing: NotFound).
"""

from __future__ import annotations

from kg_memory.domain.errors import NotFound
from kg_memory.services.lineage import node_kind
from kg_memory.store.protocol import Store

__all__ = ["printed_node", "revision_id"]


def revision_id(node_id: str) -> tuple[str, int | None]:
    """``as_…#2`` as printed by a table (an assertion and its revision) split into the
    assertion id and the revision; any other id whole, with no revision."""
    base, sep, rev = node_id.rpartition("#")
    if sep and node_kind(base) == "assertion" and rev.isdigit():
        return base, int(rev)
    return node_id, None


def printed_node(store: Store, node_id: str, scope: str | None) -> str:
    """The node a printed id names: ``as_…#N`` is assertion ``as_…`` when revision N of it
    exists (in ``scope`` when given), else NotFound: a revision that does not exist names
    nothing. Any other id is returned as it is."""
    base, revision = revision_id(node_id)
    if revision is None:
        return node_id
    if not any(v.revision == revision and (scope is None or v.scope == scope)
               for v in store.versions([base])):
        where = "" if scope is None else f" in scope {scope!r}"
        raise NotFound(f"no revision {revision} of {base!r}{where}")
    return base
