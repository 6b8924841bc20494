"""The forget plan's lean reads: who links to whom, and which ids are entities, without a model
per row.

A forget of a source with 1,000 derivatives walks about 5,000 edges and asks about 1,000
candidate orphan entities. Its plan needs only each edge's ends and type, and only whether an
id is an entity: building an :class:`~kg_memory.domain.model.Edge` (with its instant) per edge
and an :class:`~kg_memory.domain.model.Entity` for every entity of the scope made these reads
about a third of the plan. :class:`~kg_memory.store.protocol.Store` includes this protocol.

The same holds for the revisions the plan deletes: it reads each one's slot, value, kind,
dependencies and writer, never its intervals as models; an
:class:`~kg_memory.domain.model.Assertion` per revision (two intervals, qualifiers, four
instants) was most of the plan's remaining CPU and of the garbage it left. :class:`Revision`
is that row as a plain tuple.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from kg_memory.domain.instant import to_micros
from kg_memory.domain.model import Assertion, EdgeType, Value

__all__ = ["Link", "LinkReads", "Revision"]

#: ``(src, type, dst)`` of a stored edge, in the store's orientation.
Link = tuple[str, EdgeType, str]


class Revision(NamedTuple):
    """What a forget plan reads of one stored revision (a plain tuple, no model): the fields of
    :class:`~kg_memory.domain.model.Assertion` it uses, the same values."""

    assertion_id: str
    revision: int
    scope: str
    subject: str
    predicate: str
    project: str | None  # ``qualifiers.project``
    value: Value
    kind: str  # a :class:`~kg_memory.domain.model.Kind` value
    depends_on: tuple[str, ...]
    recorded_by: str
    believed: bool  # ``system.end is None``
    sys_from: int  # ``system.start`` and ``valid.start`` in microseconds: the store's order
    valid_from: int

    @classmethod
    def of(cls, v: Assertion) -> Revision:
        """The record of a revision read as a model (a backend whose rows are models anyway)."""
        return cls(v.assertion_id, v.revision, v.scope, v.subject, v.predicate,
                   v.qualifiers.project, v.value, v.kind.value, v.depends_on, v.recorded_by,
                   v.system.end is None, to_micros(v.system.start), to_micros(v.valid.start))


class LinkReads(Protocol):
    """The reads a forget plan's lineage walk and orphan search make (both backends)."""

    def links_of(self, node_ids: Sequence[str], scope: str | None = None
                 ) -> dict[str, list[Link]]:
        """:meth:`~kg_memory.store.protocol.Store.edges_of` as ``(src, type, dst)``: the same
        edges of each id in the same order (every id present, ``[]`` when it has none)."""

    def entity_ids(self, entity_ids: Sequence[str], scope: str | None = None) -> frozenset[str]:
        """Those of ``entity_ids`` naming an entity of ``scope`` (of any scope when ``None``):
        what ``{e.entity_id for e in entities(scope)} & set(entity_ids)`` is, reading only
        the ids asked about."""

    def revisions(self, assertion_ids: Sequence[str]) -> list[Revision]:
        """:meth:`~kg_memory.store.protocol.Store.versions` as :class:`Revision` records: every
        revision of each assertion, in the same (system-time) order."""
