"""The store's invariants, as pure rules over a snapshot of what it holds.

A store adapter reads a :class:`Snapshot` (every revision, every typed edge, the ids of
episodes, activities and tombstones, the dependency index, the system-time high-water mark and,
for the embedded store, its outbox); :func:`violations` lists what breaks an invariant, each
with the ids involved, so a person can look at exactly those rows. Nothing here reads a store
or a clock: the same rules judge both backends.

The invariants (rule names as reported):

* ``valid-interval`` / ``system-interval``: a closed end lies after its start.
* ``overlap``: no two revisions of one slot that were believed at the same system time hold
  over overlapping valid time (supersession cuts the old value back; it never leaves two).
* ``reopened``: a revision is closed exactly when it records what closed it, and no system
  time lies beyond the store's high-water mark (a reopened or back-dated revision would).
* ``revision-numbering``: an assertion's revisions are numbered from 1, once each, in
  system-time order, and all stay in one slot.
* ``dangling-edge``: every edge's ends exist, by type (a SUPPORTS edge goes from a stored
  episode to a stored assertion, a GENERATED_BY edge to a stored activity, and so on).
* ``dependency-index`` / ``dependency``: the index that retirement walks lists every
  ``depends_on`` of every revision and nothing else; a believed revision that depends on a
  fact began while that fact held, and never depends on an erased fact.
* ``tombstone``: no stored assertion or episode is tombstoned as forgotten, and an episode
  whose operation was forgotten keeps no content (it may stay, redacted, for what it still
  supports).
* ``lineage-cycle``: lineage is acyclic (nothing derives, even indirectly, from itself);
  SUPERSEDES is replacement, not derivation, and may run both ways.
* ``revision-modified``: no stored revision was changed after it was written, beyond the one
  closure a revision gets (on Neo4j, whose nodes are not immutable, the adapter stores a
  digest with each revision and re-computes it; see
  :func:`kg_memory.store.neo4j.rows.revision_hash`).
* ``episode-fingerprint``: an episode's stored content fingerprint is the fingerprint of the
  content it holds (:func:`kg_memory.domain.corroboration.fingerprint`); corroboration counts
  distinct mentions by it, so a stale one folds or splits copies. Only the embedded store keeps
  one (schema 7); Neo4j computes it from the content when it reads, so there this rule has
  nothing to check.
* ``outbox``: the outbox's sequence numbers are consistent, and a mirror's cursor lies within
  what the outbox issued and still holds (else the mirror missed changes or is ahead of the
  file, e.g. after restoring an old copy).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

import networkx as nx
from pydantic import BaseModel, ConfigDict

from kg_memory.domain.forgetting import node_key, operation_key
from kg_memory.domain.model import Assertion, Edge, EdgeType

__all__ = [
    "LINEAGE_EDGES",
    "RULES",
    "EpisodeMark",
    "IntegrityReport",
    "OutboxState",
    "Snapshot",
    "Violation",
    "counts",
    "report",
    "violations",
]

#: Edge type -> True when the stored edge already points from a derivative to its source.
#: SUPERSEDES is not here on purpose: a value that comes back extends its earlier assertion,
#: which then supersedes what had replaced it, so replacement legitimately runs both ways.
LINEAGE_EDGES: dict[EdgeType, bool] = {
    EdgeType.SUPPORTS: False,
    EdgeType.INVALIDATES: False,
    EdgeType.DERIVED_FROM: True,
    EdgeType.REVISION_OF: True,
    EdgeType.GENERATED_BY: True,
    EdgeType.USED: False,
    EdgeType.DEPENDS_ON: True,
    EdgeType.INVALIDATED_BY: True,
    EdgeType.IMPORTED_BY: True,
}

RULES = (
    "valid-interval", "system-interval", "overlap", "reopened", "revision-numbering",
    "dangling-edge", "dependency-index", "dependency", "tombstone", "lineage-cycle", "outbox",
    "revision-modified", "episode-fingerprint",
)


class Violation(BaseModel):
    """One broken invariant and the ids (``as_…#2``, ``ep_…``, edge ``src-TYPE->dst``) at fault."""

    model_config = ConfigDict(frozen=True)

    rule: str
    ids: tuple[str, ...]
    detail: str


class EpisodeMark(BaseModel):
    """What the rules need of an episode: its ids and whether its content was redacted; with
    the fingerprint a store keeps, that fingerprint and the fingerprint of the content it holds
    (computed as the row is read, so a snapshot of a large store never holds its contents)."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    operation_id: str
    redacted: bool
    scope: str
    #: The stored fingerprint (None: the store keeps none, as Neo4j, so nothing to compare).
    fingerprint: str | None = None
    #: :func:`~kg_memory.domain.corroboration.fingerprint` of the content the store holds.
    content_fingerprint: str | None = None


class OutboxState(BaseModel):
    """The embedded store's outbox: sequence numbers held, and the last one ever issued."""

    model_config = ConfigDict(frozen=True)

    first: int | None  # lowest seq still held (None: empty)
    last: int | None  # highest seq still held
    issued: int  # the highest seq ever issued (never reused, even after pruning)
    rows: int
    unknown_tables: tuple[str, ...] = ()
    mirror: str | None = None  # the mirror this store propagates to, if any
    mirror_cursor: int | None = None  # its cursor, when it was read
    mirror_note: str = ""  # why the cursor was not read


class Snapshot(BaseModel):
    """Everything the invariants are about, as one backend-neutral value."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    location: str
    versions: tuple[Assertion, ...]
    edges: tuple[Edge, ...]
    episodes: tuple[EpisodeMark, ...]
    activities: frozenset[str]
    tombstones: frozenset[str]
    dependencies: frozenset[tuple[str, str]]  # (dep, assertion_id) as the store indexes them
    system_time: datetime | None  # the last system time the store handed out
    outbox: OutboxState | None = None
    #: Revisions (``as_…#2``) whose stored digest no longer matches what they hold, or that
    #: have none (an adapter whose store enforces immutability itself leaves this empty).
    modified: tuple[str, ...] = ()


class IntegrityReport(BaseModel):
    """The result of a check: ``ok`` when no rule is broken; counts of what was checked."""

    model_config = ConfigDict(frozen=True)

    location: str
    ok: bool
    checked: dict[str, int]
    violations: tuple[Violation, ...]
    notes: tuple[str, ...] = ()


def _tag(v: Assertion) -> str:
    return f"{v.assertion_id}#{v.revision}"


def _overlaps(a_start: datetime, a_end: datetime | None, b_start: datetime,
              b_end: datetime | None) -> bool:
    return (a_end is None or b_start < a_end) and (b_end is None or a_start < b_end)


def _intervals(snap: Snapshot) -> Iterable[Violation]:
    for v in snap.versions:
        if v.valid.end is not None and v.valid.end <= v.valid.start:
            yield Violation(rule="valid-interval", ids=(_tag(v),),
                            detail=f"valid_to {v.valid.end} is not after {v.valid.start}")
        if v.system.end is not None and v.system.end <= v.system.start:
            yield Violation(rule="system-interval", ids=(_tag(v),),
                            detail=f"sys_to {v.system.end} is not after {v.system.start}")


def _overlap(snap: Snapshot) -> Iterable[Violation]:
    slots: dict[tuple[str, str, str, str | None], list[Assertion]] = defaultdict(list)
    for v in snap.versions:
        slots[(v.scope, v.subject, v.predicate, v.qualifiers.project)].append(v)
    for (scope, subject, predicate, _), revisions in slots.items():
        # A sweep over system time: compare each revision only with those still believed when
        # it was written, so a long history costs its length, not its square.
        revisions.sort(key=lambda r: r.system.start)
        believed: list[Assertion] = []
        for v in revisions:
            believed = [b for b in believed
                        if b.system.end is None or b.system.end > v.system.start]
            for b in believed:
                if _overlaps(b.valid.start, b.valid.end, v.valid.start, v.valid.end):
                    yield Violation(
                        rule="overlap", ids=(_tag(b), _tag(v)),
                        detail=f"{scope}/{subject}.{predicate}: both believed at "
                        f"{v.system.start.isoformat()} over overlapping valid time")
            believed.append(v)


def _reopened(snap: Snapshot) -> Iterable[Violation]:
    high = snap.system_time
    for v in snap.versions:
        if (v.system.end is None) != (v.closed_by is None) or \
                (v.system.end is None) != (v.close_reason is None):
            yield Violation(rule="reopened", ids=(_tag(v),),
                            detail="open system interval with a recorded closure, or closed "
                            "without one")
        latest = v.system.end or v.system.start
        if high is not None and latest > high:
            yield Violation(rule="reopened", ids=(_tag(v),),
                            detail=f"system time {latest.isoformat()} is after the store's "
                            f"high-water mark {high.isoformat()}")


def _numbering(snap: Snapshot) -> Iterable[Violation]:
    by_id: dict[str, list[Assertion]] = defaultdict(list)
    for v in snap.versions:
        by_id[v.assertion_id].append(v)
    for assertion_id, revisions in by_id.items():
        revisions.sort(key=lambda r: r.revision)
        numbers = [r.revision for r in revisions]
        if numbers[0] < 1 or len(set(numbers)) != len(numbers):
            yield Violation(rule="revision-numbering", ids=(assertion_id,),
                            detail=f"revisions {numbers} are not distinct positive numbers")
        for older, newer in itertools.pairwise(revisions):
            if newer.system.start < older.system.start:
                yield Violation(rule="revision-numbering", ids=(_tag(older), _tag(newer)),
                                detail="a later revision number has an earlier system time")
        if len({(r.scope, r.subject, r.predicate, r.qualifiers.project) for r in revisions}) > 1:
            yield Violation(rule="revision-numbering", ids=(assertion_id,),
                            detail="revisions of one assertion lie in different slots")


def _dangling(snap: Snapshot, assertions: set[str], episodes: set[str]) -> Iterable[Violation]:
    def is_assertion(node: str) -> bool:
        return node in assertions

    def is_episode(node: str) -> bool:
        return node in episodes

    def is_activity(node: str) -> bool:
        return node in snap.activities

    def anything(node: str) -> bool:
        return True

    def revision_target(node: str) -> bool:  # a rebuilt record points at its tombstone
        return node in assertions or node.startswith("tomb_")

    ends: dict[EdgeType, tuple[Callable[[str], bool], Callable[[str], bool]]] = {
        EdgeType.SUPPORTS: (is_episode, is_assertion),
        EdgeType.INVALIDATES: (is_episode, is_assertion),
        EdgeType.SUPERSEDES: (is_assertion, is_assertion),
        EdgeType.DEPENDS_ON: (is_assertion, anything),
        EdgeType.ABOUT: (is_assertion, anything),
        EdgeType.MENTIONS: (is_episode, anything),
        EdgeType.RESOLVED_TO: (is_episode, anything),
        EdgeType.DERIVED_FROM: (is_assertion, is_assertion),
        EdgeType.GENERATED_BY: (is_assertion, is_activity),
        EdgeType.USED: (is_activity, is_assertion),
        EdgeType.REVISION_OF: (is_assertion, revision_target),
        EdgeType.INVALIDATED_BY: (anything, is_activity),
        EdgeType.IMPORTED_BY: (is_episode, is_activity),
    }
    for e in snap.edges:
        src_ok, dst_ok = ends.get(e.type, (anything, anything))
        missing = [n for n, ok in ((e.src, src_ok), (e.dst, dst_ok)) if not ok(n)]
        if missing:
            yield Violation(rule="dangling-edge", ids=(f"{e.src}-{e.type.value}->{e.dst}",),
                            detail=f"{', '.join(missing)} is not stored")


def _dependencies(snap: Snapshot, assertions: set[str]) -> Iterable[Violation]:
    declared = {(dep, v.assertion_id) for v in snap.versions for dep in v.depends_on}
    for dep, assertion_id in sorted(declared - snap.dependencies):
        yield Violation(rule="dependency-index", ids=(assertion_id, dep),
                        detail="depends_on is missing from the index retirement walks")
    for dep, assertion_id in sorted(snap.dependencies - declared):
        yield Violation(rule="dependency-index", ids=(assertion_id, dep),
                        detail="the index lists a dependency no revision declares")
    live: dict[str, list[Assertion]] = defaultdict(list)
    for v in snap.versions:
        if v.system.end is None:
            live[v.assertion_id].append(v)
    for revisions in live.values():
        for v in revisions:
            for dep in v.depends_on:
                if dep.startswith("as_") and dep not in assertions:
                    yield Violation(rule="dependency", ids=(_tag(v), dep),
                                    detail="believed, yet depends on an erased fact")
                elif dep in assertions and not any(
                        d.valid.contains(v.valid.start) for d in live.get(dep, [])):
                    yield Violation(rule="dependency", ids=(_tag(v), dep),
                                    detail="believed from a time its dependency did not hold; "
                                    "it should have been retired")


def _tombstones(snap: Snapshot, secret: bytes) -> Iterable[Violation]:
    if not snap.tombstones:
        return
    # Keys are per scope (a tenant's check never matches another tenant's tombstone).
    for scope, node in sorted({(v.scope, v.assertion_id) for v in snap.versions}):
        if node_key(secret, scope, node) in snap.tombstones:
            yield Violation(rule="tombstone", ids=(node,), detail="forgotten, yet stored")
    for ep in snap.episodes:
        if node_key(secret, ep.scope, ep.episode_id) in snap.tombstones:
            yield Violation(rule="tombstone", ids=(ep.episode_id,), detail="forgotten, yet stored")
        elif not ep.redacted and operation_key(
                secret, ep.scope, ep.operation_id) in snap.tombstones:
            yield Violation(rule="tombstone", ids=(ep.episode_id,),
                            detail="its operation was forgotten, yet it keeps its content")


def _lineage(snap: Snapshot) -> Iterable[Violation]:
    graph: nx.DiGraph[str] = nx.DiGraph()
    for e in snap.edges:
        forward = LINEAGE_EDGES.get(e.type)
        if forward is not None and e.src != e.dst:
            graph.add_edge(*((e.src, e.dst) if forward else (e.dst, e.src)))
        elif forward is not None:
            yield Violation(rule="lineage-cycle", ids=(e.src,),
                            detail=f"{e.type.value} from a node to itself")
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1:
            yield Violation(rule="lineage-cycle", ids=tuple(sorted(component)),
                            detail="these derive from one another in a cycle")


def _outbox(state: OutboxState | None) -> Iterable[Violation]:
    if state is None:
        return
    if state.last is not None and state.last > state.issued:
        yield Violation(rule="outbox", ids=(f"seq:{state.last}",),
                        detail=f"held sequence {state.last} beyond the issued {state.issued}")
    for table in state.unknown_tables:
        yield Violation(rule="outbox", ids=(f"tbl:{table}",), detail="an unknown outbox table")
    cursor = state.mirror_cursor
    if cursor is None:
        return
    if cursor > state.issued:
        yield Violation(rule="outbox", ids=(f"cursor:{cursor}",),
                        detail=f"the mirror at {state.mirror} applied up to {cursor}, beyond "
                        f"the {state.issued} changes this file ever issued")
    if state.first is not None and cursor < state.first - 1:
        yield Violation(rule="outbox", ids=(f"cursor:{cursor}", f"seq:{state.first}"),
                        detail="changes the mirror never applied were pruned from the outbox")
    if state.first is None and cursor < state.issued:
        yield Violation(rule="outbox", ids=(f"cursor:{cursor}",),
                        detail="changes the mirror never applied were pruned from the outbox")


def _modified(snap: Snapshot) -> Iterable[Violation]:
    for tag in snap.modified:
        yield Violation(rule="revision-modified", ids=(tag,),
                        detail="changed after it was stored: its digest no longer matches "
                        "what it holds (a revision is only ever closed)")


def _fingerprints(snap: Snapshot) -> Iterable[Violation]:
    for ep in snap.episodes:
        if ep.fingerprint is not None and ep.fingerprint != ep.content_fingerprint:
            yield Violation(rule="episode-fingerprint", ids=(ep.episode_id,),
                            detail=f"stored fingerprint {ep.fingerprint!r} is not that of "
                            "its content")


def violations(snap: Snapshot, secret: bytes) -> list[Violation]:
    """Every broken invariant of ``snap`` (``secret`` keys the tombstone hashes)."""
    assertions = {v.assertion_id for v in snap.versions}
    episodes = {e.episode_id for e in snap.episodes}
    found: list[Violation] = []
    for rule in (_intervals(snap), _overlap(snap), _reopened(snap), _numbering(snap),
                 _dangling(snap, assertions, episodes), _dependencies(snap, assertions),
                 _tombstones(snap, secret), _lineage(snap), _outbox(snap.outbox),
                 _modified(snap), _fingerprints(snap)):
        found.extend(rule)
    return found


def counts(snap: Snapshot) -> dict[str, int]:
    """What a check looked at, for its report."""
    return {"revisions": len(snap.versions), "edges": len(snap.edges),
            "episodes": len(snap.episodes), "activities": len(snap.activities),
            "tombstones": len(snap.tombstones), "dependencies": len(snap.dependencies),
            "outbox_rows": 0 if snap.outbox is None else snap.outbox.rows}


def report(snap: Snapshot, secret: bytes, notes: Sequence[str] = ()) -> IntegrityReport:
    found = violations(snap, secret)
    return IntegrityReport(location=snap.location, ok=not found, checked=counts(snap),
                           violations=tuple(found), notes=tuple(notes))
