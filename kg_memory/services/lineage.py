"""Lineage: where a memory came from and everything derived from it, as a networkx graph.

``lineage_graph(store, node, direction, depth)`` walks the store's edges from one node and
returns a read-only :class:`networkx.MultiDiGraph` whose edges point from a derivative to its
source (the direction of prov:wasDerivedFrom). "Up" follows edges toward sources (episodes,
writers); "down" follows them toward derivatives (facts an episode supports, records derived
from a fact). Entities are shown but never walked through: sharing a subject is not lineage.

Algorithms over the result are plain networkx calls, e.g. ``nx.ancestors`` for everything
derived from a node.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any, Literal, cast

import networkx as nx

from kg_memory.domain.errors import NotFound, ScopeError
from kg_memory.domain.forgetting import LineageView
from kg_memory.domain.layers import Rule
from kg_memory.domain.model import Assertion, EdgeType, Episode
from kg_memory.domain.recall_answer import episode_label
from kg_memory.services.rules import RULE, RuleLink, rule_links
from kg_memory.store.link_reads import Link
from kg_memory.store.protocol import Store

__all__ = [
    "LINEAGE_EDGES",
    "Direction",
    "lineage_graph",
    "lineage_tree",
    "node_about",
    "node_kind",
    "node_scope",
    "scoped_node",
]

Direction = Literal["up", "down", "both"]

# Edge type -> (derivative end, source end): True when the stored edge already points from the
# derivative to its source.
LINEAGE_EDGES: dict[EdgeType, bool] = {
    EdgeType.SUPPORTS: False,  # episode -> assertion: the assertion derives from the episode
    EdgeType.INVALIDATES: False,  # episode -> assertion: the episode shaped (ended) it
    EdgeType.DERIVED_FROM: True,  # derived -> source
    EdgeType.SUPERSEDES: True,  # newer -> older it replaced
    EdgeType.REVISION_OF: True,  # revision -> previous revision
    EdgeType.GENERATED_BY: True,  # derived -> activity
    EdgeType.USED: False,  # activity -> assertion it read
    EdgeType.DEPENDS_ON: True,  # fact -> what it relies on
    EdgeType.INVALIDATED_BY: True,  # tombstone -> forget activity
    EdgeType.IMPORTED_BY: True,  # episode -> the import that brought it in
}
# The relations that read from the source to the derivative (``ep_1 SUPPORTS as_1``).
_FROM_SOURCE = {t.value for t, from_derivative in LINEAGE_EDGES.items() if not from_derivative}


#: Links to activities, which a forget plan does not walk: an activity is a content-free record
#: of what ran (a derived record's generation, an episode's import), never a source to erase.
_NOT_FORGOTTEN = (EdgeType.GENERATED_BY, EdgeType.IMPORTED_BY)


def node_kind(node_id: str) -> str:
    """The kind of node an id names, from its prefix."""
    for prefix, kind in (
        ("ep_", "episode"),
        ("as_", "assertion"),
        ("act_", "activity"),
        ("agent:", "agent"),
        ("tomb_", "tombstone"),
        ("rl_", "rule"),
    ):
        if node_id.startswith(prefix):
            return kind
    return "entity"


def _source(agent: str) -> str:
    return agent.removeprefix("agent:")


def _sent_by(store: Store, agent: str, scope: str | None) -> list[Episode]:
    """The episodes ``agent`` really sent, as the gate decided (:attr:`Episode.sender_id`):
    never one whose envelope only claimed its source. A refused envelope's real sender is
    looked for in ``scope``'s refused episodes (the store indexes claimed sources only)."""
    source = _source(agent)
    sent = [e for e in store.episodes(store.find_episodes(source, scope))
            if e.sender_id == source]
    if not sent and scope is not None:
        sent = [e for e in store.scope_episodes(scope) if e.refused and e.sender_id == source]
    return sent


def node_scope(store: Store, node_id: str) -> str:
    """The scope a node belongs to, for an operator who names a node without one.

    Episode, assertion and activity ids are unique across scopes; an entity id is not, so an
    entity that exists in several scopes must be named with its scope.
    """
    kind = node_kind(node_id)
    found: set[str] = set()
    if kind == "episode":
        found = {e.scope for e in store.episodes([node_id])}
    elif kind == "assertion":
        found = {v.scope for v in store.versions([node_id])}
    elif kind == "activity":
        found = {a.scope for a in store.activities(activity_id=node_id)}
    elif kind == "rule":
        found = {Rule.model_validate_json(b).scope
                 for b in store.documents(RULE, None, key=node_id)}
    elif kind == "agent":  # a source, as lineage prints it: the scopes it sent episodes in
        found = {e.scope for e in _sent_by(store, node_id, None)}
    else:
        found = {e.scope for e in store.entities() if e.entity_id == node_id}
        found |= {v.scope for v in store.history(node_id)}
    if not found:
        raise NotFound(f"no node {node_id!r}")
    if len(found) > 1:
        raise ScopeError(f"{node_id!r} exists in several scopes ({', '.join(sorted(found))}); "
                         "name one with --scope")
    return found.pop()


def scoped_node(store: Store, node_id: str, scope: str) -> bool:
    """Whether ``node_id`` is a node of ``scope`` (an id of another scope is not, and a caller
    limited to ``scope`` is told it does not exist)."""
    kind = node_kind(node_id)
    if kind == "episode":
        return any(e.scope == scope for e in store.episodes([node_id]))
    if kind == "assertion":
        return any(v.scope == scope for v in store.versions([node_id]))
    if kind == "activity":
        return bool(store.activities(scope=scope, activity_id=node_id))
    if kind == "rule":
        return bool(store.documents(RULE, scope, key=node_id))
    if kind == "agent":
        return bool(_sent_by(store, node_id, scope))
    return bool(store.edges(node_id, scope)) or any(
        e.entity_id == node_id for e in store.entities(scope))


def lineage_graph(
    store: Store,
    node_id: str,
    direction: Direction = "both",
    depth: int | None = None,
    *,
    scope: str,
    agents: bool = True,
) -> nx.MultiDiGraph[str]:
    """The lineage around ``node_id`` in ``scope``, up to ``depth`` hops (unbounded when
    ``None``). Only edges drawn in ``scope`` are walked, so the walk never leaves the tenant.

    Nodes carry ``kind`` and ``depth``; edges carry ``type`` and ``since``. With ``agents``,
    each episode also links to ``agent:<source>``, the prov:Agent that sent it.
    """
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    graph.add_node(node_id, kind=node_kind(node_id), depth=0)
    queue: deque[tuple[str, int, str]] = deque([(node_id, 0, direction)])
    # Rules are documents: their edges (signals, basis) are drawn from them, once per walk.
    by_node: dict[str, list[RuleLink]] = defaultdict(list)
    for link in rule_links(store, scope):
        by_node[link[0]].append(link)
        by_node[link[1]].append(link)
    seen: set[tuple[str, str]] = set()
    while queue:
        current, hops, way = queue.popleft()
        if (current, way) in seen or (depth is not None and hops >= depth):
            continue
        seen.add((current, way))
        if node_kind(current) == "entity" and current != node_id:
            continue
        links: list[RuleLink] = [
            (e.src, e.dst, e.type.value, e.since) if LINEAGE_EDGES[e.type]
            else (e.dst, e.src, e.type.value, e.since)
            # A rule reached on the way is walked by its own links only: its id is also the
            # subject of its binding facts, and sharing a subject is not lineage.
            for e in (store.edges(current, scope)
                      if node_kind(current) != "rule" or current == node_id else [])
            if e.type in LINEAGE_EDGES]
        if node_kind(current) == "agent" and current == node_id and way != "up":
            # An agent is drawn from its episodes (ATTRIBUTED_TO is not a stored edge), so
            # a lineage asked of one starts from what it sent.
            links += [(e.episode_id, current, "ATTRIBUTED_TO", e.recorded_at)
                      for e in _sent_by(store, current, scope)]
        for derivative, source, relation, since in [*links, *by_node.get(current, ())]:
            upward = derivative == current
            if (upward and way == "down") or (not upward and way == "up"):
                continue
            other = source if upward else derivative
            if other not in graph:
                graph.add_node(other, kind=node_kind(other), depth=hops + 1)
            graph.add_edge(derivative, source, key=relation, type=relation, since=since)
            queue.append((other, hops + 1, "up" if upward else "down"))
    if agents:
        _attach_agents(store, graph, depth)
    for node, about in node_about(store, graph.nodes, scope).items():
        graph.nodes[node]["about"] = about
    return cast("nx.MultiDiGraph[str]", nx.freeze(graph))


def _attach_agents(store: Store, graph: nx.MultiDiGraph[str], depth: int | None) -> None:
    episodes = [
        n
        for n in graph.nodes
        if graph.nodes[n]["kind"] == "episode"
        and (depth is None or graph.nodes[n]["depth"] < depth)
    ]
    for episode in store.episodes(episodes):
        # Who really sent it, as the gate decided: a refused envelope's claimed source never
        # gets the credit (nor the blame), and the node says it was refused.
        agent = f"agent:{episode.sender_id}"
        graph.nodes[episode.episode_id]["envelope"] = episode.envelope.value
        if episode.refused:
            graph.nodes[episode.episode_id]["label"] = episode_label(episode)[0]
        if agent not in graph:  # the root, when a lineage is asked of the agent
            graph.add_node(agent, kind="agent",
                           depth=graph.nodes[episode.episode_id]["depth"] + 1)
        graph.add_edge(
            episode.episode_id,
            agent,
            key="ATTRIBUTED_TO",
            type="ATTRIBUTED_TO",
            since=episode.recorded_at,
        )


def lineage_tree(graph: nx.MultiDiGraph[str], root: str, direction: Direction) -> dict[str, Any]:
    """A nested dict for printing: sources under a node ("up") or derivatives ("down"), from
    the graph's root however it was named.

    Each node carries ``about`` (what it is: :func:`node_about`) and each child ``from`` and
    ``to``, the ends of its relation as the relation reads (``ep_1 INVALIDATES as_1``): a
    tree hangs sources under a derivative, so a relation stored from the source (SUPPORTS,
    INVALIDATES, USED) points up the tree, not down.
    """

    def children(node: str, way: str) -> Iterable[tuple[str, str]]:
        if way == "up":
            return ((dst, key) for _, dst, key in graph.out_edges(node, keys=True))
        return ((src, key) for src, _, key in graph.in_edges(node, keys=True))

    def ends(node: str, child: str, relation: str, way: str) -> dict[str, str]:
        derivative, source = (node, child) if way == "up" else (child, node)
        if relation in _FROM_SOURCE:
            return {"from": source, "to": derivative}
        # The rest (DERIVED_FROM, rule links, ATTRIBUTED_TO) read derivative → source.
        return {"from": derivative, "to": source}

    def build(node: str, way: str, path: frozenset[str]) -> dict[str, Any]:
        kids = [
            {"relation": rel, **ends(node, child, rel, way), **build(child, way, path | {child})}
            for child, rel in sorted(children(node, way))
            if child not in path
        ]
        shown: dict[str, Any] = {k: graph.nodes[node][k] for k in ("envelope", "label")
                                 if k in graph.nodes[node]}
        return {"id": node, "kind": graph.nodes[node]["kind"], **shown,
                "about": graph.nodes[node].get("about"), "children": kids}

    if root not in graph:  # named as printed (``as_…#N``): the graph's root is the node
        root = next(n for n in graph.nodes if graph.nodes[n]["depth"] == 0)
    tree: dict[str, Any] = {"id": root, "kind": graph.nodes[root]["kind"],
                            "about": graph.nodes[root].get("about")}
    if direction in ("up", "both"):
        tree["sources"] = build(root, "up", frozenset({root}))["children"]
    if direction in ("down", "both"):
        tree["derivatives"] = build(root, "down", frozenset({root}))["children"]
    return tree


def node_about(store: Store, node_ids: Iterable[str], scope: str | None
               ) -> dict[str, dict[str, Any]]:
    """For each node of ``scope`` (of any, when ``None``: an operator's view) that still
    exists, what it is: an assertion's subject, predicate, value (of its latest revision) and
    writer; an episode's source, channel and when it occurred; an entity's type and name; an
    agent's source; an activity's type. A node that is gone (erased) is not described: nothing
    a forget erased is read back."""
    wanted = list(dict.fromkeys(node_ids))
    kinds = {n: node_kind(n) for n in wanted}
    about: dict[str, dict[str, Any]] = {}
    latest: dict[str, Assertion] = {}
    for v in store.versions([n for n in wanted if kinds[n] == "assertion"]):
        newer = v.assertion_id not in latest or v.revision >= latest[v.assertion_id].revision
        if scope in (None, v.scope) and newer:
            latest[v.assertion_id] = v
    for node, v in latest.items():
        about[node] = {"subject": v.subject, "predicate": v.predicate, "value": v.value,
                       "source": v.writer, "revision": v.revision}
    for e in store.episodes([n for n in wanted if kinds[n] == "episode"]):
        if scope in (None, e.scope):
            about[e.episode_id] = {"source": e.source, "channel": e.channel.value,
                                   "occurred_at": e.occurred_at.isoformat(),
                                   "operation_id": e.operation_id}
    entities = {n for n in wanted if kinds[n] == "entity"}
    if entities:
        for entity in store.entities(scope):
            if entity.entity_id in entities:
                about[entity.entity_id] = {"type": entity.type, "name": entity.name}
    for node in wanted:
        if kinds[node] == "agent":
            about[node] = {"source": node.removeprefix("agent:")}
        elif kinds[node] == "activity":
            about.update({a.activity_id: {"type": a.type, "agent": a.agent}
                          for a in store.activities(scope=scope, activity_id=node)})
    return about


def forget_view(
    store: Store, episodes: Iterable[str], assertions: Iterable[str], scope: str, *,
    grounds: Iterable[str] = (),
) -> LineageView:
    """The neighbourhood a forget plan needs in ``scope``, in lineage orientation.

    Everything derived from the seeds (facts an episode supports, records derived from a fact,
    transitively), plus one hop toward the sources of each of those (their other support, a
    derived record's other sources, what a fact superseded, what an episode invalidated), plus
    what those supporting episodes support in turn (to tell "erase" from "redact"), plus what
    depends, transitively, on any of them or on one of ``grounds`` (entities being forgotten).
    The walk reads a whole level of nodes at once (:meth:`Store.links_of`), into plain sets
    (:class:`~kg_memory.domain.forgetting.LineageView`), not a graph: a source with 1,000
    derivatives has about 5,000 links.
    """
    view = LineageView()
    down = {EdgeType.SUPPORTS, EdgeType.DERIVED_FROM}
    explored: set[str] = set()
    kinds = view.kinds  # asked before node_kind: most ends are in view already

    def expand(node: str, links: list[Link]) -> list[str]:
        explored.add(node)
        found = []
        for src, relation, dst in links:
            if relation not in LINEAGE_EDGES or relation in _NOT_FORGOTTEN:
                continue
            derivative, source = (src, dst) if LINEAGE_EDGES[relation] else (dst, src)
            if derivative not in kinds:
                view.add_node(derivative, node_kind(derivative))
            if source not in kinds:
                view.add_node(source, node_kind(source))
            view.add_link(derivative, source, relation)
            if source == node and relation in down:
                found.append(derivative)
        return found

    level = list(dict.fromkeys([*episodes, *assertions]))
    for seed in level:
        view.add_node(seed, node_kind(seed))
    while level:  # the downstream closure, a whole level per read, with each node's neighbours
        links = store.links_of(level, scope)
        reached = [d for node in level for d in expand(node, links[node])]
        level = [d for d in dict.fromkeys(reached) if d not in explored]
    others = [n for n, kind in view.kinds.items() if n not in explored and kind == "episode"]
    links = store.links_of(others, scope)
    for node in others:
        expand(node, links[node])
    grounds = list(dict.fromkeys(grounds))
    for ground, drawn in store.links_of(grounds, scope).items():
        for src, relation, dst in drawn:
            if relation is EdgeType.DEPENDS_ON and dst == ground:
                view.add_node(src, node_kind(src))
                view.add_node(ground, node_kind(ground))
                view.add_link(src, ground, EdgeType.DEPENDS_ON.value)
    _dependents(store, view, scope, explored)
    facts = [n for n, kind in view.kinds.items() if kind == "assertion"]
    # Records, not models: a source with 1,000 derivatives has 1,000 revisions here, and the
    # plan needs only which are derived of most of them.
    view.derived.update(r.assertion_id for r in store.revisions(facts) if r.kind == "derived")
    # The retirement walk reads the believed revisions of dependents only (what DEPENDS_ON
    # something in view): those, and only those, are read as models.
    believed: dict[str, list[Assertion]] = {}
    for v in store.versions([n for n in facts if view.targets(n, EdgeType.DEPENDS_ON)]):
        if v.system.end is None:  # what a retirement for an erased dependency would close
            believed.setdefault(v.assertion_id, []).append(v)
    view.believed.update((node, tuple(found)) for node, found in believed.items())
    return view


def _dependents(store: Store, view: LineageView, scope: str, explored: set[str]) -> None:
    """Add what depends, transitively, on the facts in ``view``: a forget retires the facts
    believed on the ground it erases. Only DEPENDS_ON edges are drawn, so a dependent's own
    support and derivatives stay out of the plan (retiring it erases nothing of theirs).
    An explored node's dependents are in the view already (its every edge was drawn)."""
    depends = EdgeType.DEPENDS_ON
    walked = set(explored)
    level = list(dict.fromkeys(
        src for node in view.kinds for src in view.sources(node, depends) if src not in walked))
    while level:  # one read per level of dependents
        walked.update(level)
        reached: list[str] = []
        for node, links in store.links_of(level, scope).items():
            for src, relation, dst in links:
                if relation is EdgeType.DEPENDS_ON and dst == node:
                    view.add_node(src, node_kind(src))
                    view.add_link(src, node, depends.value)
                    reached.append(src)
        level = [n for n in dict.fromkeys(reached) if n not in walked]
