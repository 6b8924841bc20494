"""W3C PROV export of the memory graph, through the ``prov`` package.

Mapping: episodes, assertions, derived records and tombstones are prov:Entity; the extraction of
each episode, consolidations, imports and forget runs are prov:Activity; sources (user, agent, third
parties), the extractor, the consolidator and the forgetter are prov:Agent. Relations:
wasAttributedTo (episode to its sender as the gate decided: its source, or for a refused
envelope who really sent it, never the source it claimed; fact to its writer), wasGeneratedBy /
used / wasAssociatedWith (activities), wasDerivedFrom (a fact from the episodes that first
supported it, a derived record from its sources), wasRevisionOf (successive derived records),
wasInvalidatedBy (tombstones by the forget run), wasInfluencedBy (an imported episode by its
import, which ran after the episode's system time). Later corroboration of an existing fact is
wasInfluencedBy, because deriving from a source generated later would be incoherent.

Exports carry lineage, not payloads: no episode content and no fact values, so an export never
becomes a copy that a forget request has to chase. Times are system times.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from prov.model import (
    ProvActivity,
    ProvDerivation,
    ProvDocument,
    ProvGeneration,
    ProvInvalidation,
    ProvUsage,
)

from kg_memory.domain.model import EdgeType, Kind
from kg_memory.services.history_import import IMPORT
from kg_memory.services.lineage import lineage_graph, node_kind, node_scope
from kg_memory.services.rules import rule_links
from kg_memory.store.protocol import Store

__all__ = ["NAMESPACE", "add_tombstones", "export_prov", "prov_problems", "qname", "serialize_prov"]

NAMESPACE = "https://kg-memory.org/ns#"
EXTRACTOR = "agent:kg-memory-extractor"
FORMATS = {
    "json": {"format": "json"},
    "provn": {"format": "provn"},
    "xml": {"format": "xml"},
    "ttl": {"format": "rdf", "rdf_format": "turtle"},
}


def qname(node_id: str) -> str:
    """A QName-safe ``kgm:`` identifier for any node id."""
    local = re.sub(r"[^A-Za-z0-9_.-]", "_", node_id)
    if not re.match(r"[A-Za-z_]", local):
        local = f"n_{local}"
    return f"kgm:{local}"


def _agent(doc: ProvDocument, name: str, seen: set[str]) -> str:
    ident = qname(name if name.startswith("agent:") else f"agent:{name}")
    if ident not in seen:
        seen.add(ident)
        label = name.removeprefix("agent:")
        software = label in (
            "agent",
            "timer",
            "consolidator",
            "kg-memory-forget",
            "kg-memory-extractor",
        )
        doc.agent(
            ident,
            {
                "prov:label": label,
                "prov:type": "prov:SoftwareAgent"
                if software
                else "prov:Person"
                if label == "user"
                else "prov:Agent",
            },
        )
    return ident


def _nodes(store: Store, node_ids: Iterable[str] | None, scope: str | None) -> set[str]:
    if node_ids is None:  # everything the scope (or, for an operator, the store) holds
        nodes = set(store.find_assertions(scope))
        for activity in store.activities(scope=scope):
            nodes.add(activity.activity_id)
            nodes.update(e.src for e in store.edges(activity.activity_id, scope))
        for assertion in list(nodes):
            nodes.update(e.src for e in store.edges(assertion, scope)
                         if e.type is EdgeType.SUPPORTS)
        nodes.update(link[0] for link in rule_links(store, scope))
        return nodes
    found: set[str] = set()
    for node in node_ids:
        within = scope if scope is not None else node_scope(store, node)
        found.update(lineage_graph(store, node, "both", agents=False, scope=within).nodes)
    return found


def export_prov(
    store: Store, node_ids: Iterable[str] | None = None, scope: str | None = None
) -> ProvDocument:
    """A PROV document for the lineage of ``node_ids`` (everything when ``None``) in
    ``scope``; ``scope=None`` is an operator's export of every scope."""
    doc = ProvDocument()
    doc.add_namespace("kgm", NAMESPACE)
    nodes = _nodes(store, node_ids, scope)
    agents: set[str] = set()
    episodes = {
        e.episode_id: e
        for e in store.episodes(sorted(n for n in nodes if node_kind(n) == "episode"))
        if scope is None or e.scope == scope
    }
    extractor = _agent(doc, EXTRACTOR, agents)
    for ep in episodes.values():
        attributes: dict[str, Any] = {
            "prov:type": "kgm:Episode",
            "kgm:channel": ep.channel.value,
            "kgm:occurredAt": ep.occurred_at,
            "kgm:envelope": ep.envelope.value,
        }
        if ep.refused:  # what it claimed, kept for the audit; the credit goes to its sender
            attributes["kgm:claimedSource"] = ep.source
        doc.entity(qname(ep.episode_id), attributes)
        doc.wasAttributedTo(qname(ep.episode_id), _agent(doc, ep.sender_id, agents))
        act = doc.activity(qname(f"extract_{ep.episode_id}"), ep.recorded_at, ep.recorded_at)
        doc.used(act, qname(ep.episode_id), ep.recorded_at)
        doc.wasAssociatedWith(act, extractor)
    activities = {a.activity_id: a for a in store.activities(scope=scope)}
    for activity in activities.values():
        if activity.activity_id in nodes or node_ids is None:
            act = doc.activity(
                qname(activity.activity_id),
                activity.started_at,
                activity.ended_at,
                {"prov:type": f"kgm:{activity.type}"},
            )
            doc.wasAssociatedWith(act, _agent(doc, activity.agent, agents))
            if activity.type == IMPORT:
                _imported(doc, store, activity.activity_id, activity.scope, episodes)
    versions = store.versions(sorted(n for n in nodes if node_kind(n) == "assertion"))
    first: dict[str, Any] = {}
    for v in versions:
        if scope is None or v.scope == scope:
            first.setdefault(v.assertion_id, v)
    for aid, v in first.items():
        ident = qname(aid)
        doc.entity(
            ident,
            {
                "prov:type": "kgm:DerivedRecord" if v.kind is Kind.DERIVED else "kgm:Assertion",
                "kgm:kind": v.kind.value,
                "prov:label": f"{v.subject}.{v.predicate}",
            },
        )
        doc.wasAttributedTo(ident, _agent(doc, v.writer, agents))
        born: datetime = v.system.start
        if v.recorded_by in episodes:
            doc.wasGeneratedBy(ident, qname(f"extract_{v.recorded_by}"), born)
        elif v.recorded_by in activities:
            doc.wasGeneratedBy(ident, qname(v.recorded_by), born)
        for edge in store.edges(aid, v.scope):
            _relation(doc, edge.type, edge.src, edge.dst, aid, born, episodes, activities, nodes)
    _rules(doc, store, nodes, scope, episodes, set(first))
    return doc


def _imported(doc: ProvDocument, store: Store, activity_id: str, scope: str,
              episodes: dict[str, Any]) -> None:
    """An imported episode was influenced by its import: not generated by it, since the
    episode is known from its system time in the source, before the import ran."""
    for edge in store.edges(activity_id, scope):
        if edge.type is EdgeType.IMPORTED_BY and edge.src in episodes:
            doc.wasInfluencedBy(qname(edge.src), qname(activity_id),
                                other_attributes={"kgm:relation": "importedBy"})


def _rules(doc: ProvDocument, store: Store, nodes: set[str], scope: str | None,
           episodes: dict[str, Any], assertions: set[str]) -> None:
    """Rules (seed 004) in view: derived from their basis episodes, influenced by the signal
    facts they depend on."""
    for derivative, source, relation, _since in rule_links(store, scope):
        if derivative not in nodes:
            continue
        if not doc.get_record(qname(derivative)):
            doc.entity(qname(derivative), {"prov:type": "kgm:Rule"})
        if relation == "BASED_ON" and source in episodes:
            doc.wasDerivedFrom(qname(derivative), qname(source))
        elif relation == "DEPENDS_ON" and source in assertions:
            doc.wasInfluencedBy(qname(derivative), qname(source),
                                other_attributes={"kgm:relation": "dependsOn"})


def _relation(
    doc: ProvDocument,
    kind: EdgeType,
    src: str,
    dst: str,
    aid: str,
    born: datetime,
    episodes: dict[str, Any],
    activities: dict[str, Any],
    nodes: set[str],
) -> None:
    if kind is EdgeType.SUPPORTS and dst == aid and src in episodes:
        if episodes[src].recorded_at <= born:
            doc.wasDerivedFrom(qname(aid), qname(src))
        else:
            doc.wasInfluencedBy(
                qname(aid), qname(src), other_attributes={"kgm:relation": "corroborates"}
            )
    elif kind is EdgeType.DERIVED_FROM and src == aid and dst in nodes:
        doc.wasDerivedFrom(qname(aid), qname(dst))
    elif kind is EdgeType.USED and dst == aid and src in activities:
        doc.used(qname(src), qname(aid), activities[src].started_at)
    elif kind is EdgeType.REVISION_OF and src == aid:
        if dst.startswith("tomb_"):
            doc.entity(qname(dst), {"prov:type": "kgm:Tombstone"})
        doc.wasRevisionOf(qname(aid), qname(dst))


def add_tombstones(doc: ProvDocument, store: Store, scope: str | None = None) -> None:
    """Tombstones and their invalidation by forget runs (content-free by construction), of
    ``scope``'s runs (every scope's when ``None``)."""
    for activity in store.activities("forget", scope):
        for edge in store.edges(activity.activity_id, activity.scope):
            if edge.type is EdgeType.INVALIDATED_BY:
                ident = qname(edge.src)
                if not doc.get_record(ident):
                    doc.entity(ident, {"prov:type": "kgm:Tombstone"})
                doc.wasInvalidatedBy(ident, qname(activity.activity_id), activity.started_at)


def serialize_prov(doc: ProvDocument, fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    return str(doc.serialize(**FORMATS[fmt]))


def _attrs(record: Any) -> dict[str, Any]:
    return {str(key): value for key, value in record.formal_attributes}


def prov_problems(doc: ProvDocument) -> list[str]:
    """Checks the ``prov`` package does not make: ordering constraints of PROV-CONSTRAINTS.

    * an entity is not used after its invalidation;
    * nothing is derived from a source generated after it;
    * an entity has at most one generation.
    """
    problems: list[str] = []
    generated: dict[str, list[datetime | None]] = {}
    invalidated: dict[str, datetime] = {}
    starts = {
        str(r.identifier): _attrs(r).get("prov:startTime") for r in doc.get_records(ProvActivity)
    }
    for rec in doc.get_records(ProvGeneration):
        attrs = _attrs(rec)
        entity = str(attrs.get("prov:entity"))
        generated.setdefault(entity, []).append(attrs.get("prov:time"))
    for rec in doc.get_records(ProvInvalidation):
        attrs = _attrs(rec)
        if attrs.get("prov:time") is not None:
            invalidated[str(attrs["prov:entity"])] = attrs["prov:time"]
    for entity, times in generated.items():
        if len(times) > 1:
            problems.append(f"{entity} has {len(times)} generations")
    for rec in doc.get_records(ProvUsage):
        attrs = _attrs(rec)
        entity, when = (
            str(attrs.get("prov:entity")),
            attrs.get("prov:time") or starts.get(str(attrs.get("prov:activity"))),
        )
        if entity in invalidated and when is not None and when > invalidated[entity]:
            problems.append(f"{entity} used after its invalidation")
    for rec in doc.get_records(ProvDerivation):
        attrs = _attrs(rec)
        derived = generated.get(str(attrs.get("prov:generatedEntity")), [None])[0]
        source = generated.get(str(attrs.get("prov:usedEntity")), [None])[0]
        if derived is not None and source is not None and source > derived:
            problems.append(f"{attrs.get('prov:generatedEntity')} derived from a later source")
    return problems
