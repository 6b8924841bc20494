"""The Neo4j adapter's reads of one kind of record at a time: as-of answers, histories,
supports, episodes, edges, refusals, and the lineage and identity records forget and
resolution walk.

Mixed into :class:`~kg_memory.store.neo4j.store.Neo4jStore`, whose ``_read`` runs each named
query (a file in ``cypher/``) in the open unit of work or a read session of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from fnmatch import fnmatchcase
from typing import Any, cast

from kg_memory.domain.corroboration import fingerprint
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Edge,
    Entity,
    Episode,
    Refusal,
    Support,
)
from kg_memory.domain.result import Fact
from kg_memory.store.neo4j.rows import (
    activity_from_props,
    block_from_props,
    edge_from_row,
    entity_from_props,
    episode_from_props,
    instant,
    opt_instant,
    refusal_from_props,
    time_of,
    version_from_props,
)
from kg_memory.store.protocol import AsOfQuery, AsOfRows, Store, asof_rows_by_parts

__all__ = ["GraphReads"]


class GraphReads:
    """Mixed into :class:`~kg_memory.store.neo4j.store.Neo4jStore`."""

    def _read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        raise NotImplementedError  # the store's own

    # -- bitemporal reads ---------------------------------------------------------------

    def _versions(self, name: str, /, **params: Any) -> list[Assertion]:
        return [version_from_props(r["version"]) for r in self._read(name, **params)]

    def asof(self, query: AsOfQuery) -> list[Assertion]:
        times = {"valid": instant(query.valid_at), "known": instant(query.known_at)}
        if query.subject is not None and query.predicate is not None:
            return self._versions(
                "asof", subject=query.subject, predicate=query.predicate, scope=query.scope,
                **times,
            )
        if query.subject is not None:
            return self._versions("asof_subject", subject=query.subject, scope=query.scope,
                                  **times)
        if query.scope is not None:
            return self._versions("asof_scope", scope=query.scope, predicate=query.predicate,
                                  **times)
        return self._versions("asof_all", predicate=query.predicate, **times)

    def asof_rows(self, query: AsOfQuery, merge_predicate: str | None = None) -> AsOfRows:
        """One round trip for a subject's lookup (its facts, their supports and the merge
        probe: three before, each a few milliseconds on a loaded server); a scope's or the
        whole store's snapshot in parts."""
        if query.subject is None:
            # Only ever mixed into the store, which is a whole ``Store``.
            return asof_rows_by_parts(cast("Store", self), query, merge_predicate)
        times = {"valid": instant(query.valid_at), "known": instant(query.known_at)}
        where = {"subject": query.subject, "scope": query.scope, **times}
        if query.predicate is not None:
            asked = [p for p in (query.predicate, merge_predicate) if p is not None]
            rows = self._read("asof_rows", predicates=asked, **where)
        else:
            rows = self._read("asof_rows_subject", **where)
        facts: list[Fact] = []
        merges: list[Assertion] = []
        for row in rows:
            version = version_from_props(row["version"])
            if query.predicate in (None, version.predicate):
                facts.append(Fact.of(version, tuple(_support(s) for s in row["supports"])))
            if version.predicate == merge_predicate:
                merges.append(version)
        return AsOfRows(facts=facts, merges=merges)

    def history(
        self, subject: str, predicate: str | None = None, scope: str | None = None
    ) -> list[Assertion]:
        return self._versions("history", subject=subject, predicate=predicate, scope=scope)

    def supports(
        self, assertion_ids: Iterable[str], known_at: datetime | None = None
    ) -> dict[str, tuple[Support, ...]]:
        ids = list(dict.fromkeys(assertion_ids))
        if not ids:
            return {}
        known = opt_instant(known_at)
        found: dict[str, list[Support]] = {i: [] for i in ids}
        for row in self._read("supports", ids=ids, known=known):
            found[row["id"]].append(_support(row))
        return {k: tuple(v) for k, v in found.items()}

    def episodes(self, episode_ids: Sequence[str]) -> list[Episode]:
        if not episode_ids:
            return []
        rows = self._read("episodes", ids=list(episode_ids))
        return [episode_from_props(r["episode"]) for r in rows]

    def edges(self, node_id: str, scope: str | None = None) -> list[Edge]:
        found = map(edge_from_row, self._read("edges", id=node_id, scope=scope))
        return [e for e in found if e is not None]

    def refusals(self, scope: str | None = None) -> list[Refusal]:
        rows = (self._read("refusals", scope=None) if scope is None else
                self._read("scope_refusals", scope=scope))
        return [refusal_from_props(r["refusal"]) for r in rows]

    # -- lineage and forgetting ------------------------------------------------------------

    def versions(self, assertion_ids: Sequence[str]) -> list[Assertion]:
        """Every revision of each assertion, in system-time order."""
        if not assertion_ids:
            return []
        return self._versions("versions", ids=list(assertion_ids))

    def find_episodes(self, source: str, scope: str | None = None) -> list[str]:
        rows = self._read("find_episodes", source=source, scope=scope)
        return [r["episode_id"] for r in rows]

    def scope_episodes(self, scope: str) -> list[Episode]:
        return [episode_from_props(r["episode"]) for r in self._read("scope_episodes",
                                                                      scope=scope)]

    def find_assertions(
        self,
        scope: str | None = None,
        subject: str | None = None,
        predicates: str = "*",
        project: str | None = None,
    ) -> list[str]:
        """Assertion ids with any revision matching; ``predicates`` is a glob."""
        rows = (self._read("find_assertions_subject", subject=subject, scope=scope,
                           project=project) if subject is not None else
                self._read("find_assertions_scope", scope=scope, project=project)
                if scope is not None else
                self._read("find_assertions", scope=None, subject=None, project=project))
        return [
            r["assertion_id"]
            for r in rows
            if any(fnmatchcase(p, predicates) for p in r["predicates"])
        ]

    # -- blocks, activities, documents, entities --------------------------------------------

    def blocks(self, scope: str | None = None) -> list[Block]:
        rows = (self._read("blocks", scope=None) if scope is None else
                self._read("scope_blocks", scope=scope))
        return [block_from_props(r["block"]) for r in rows]

    def activities(self, type_: str | None = None, scope: str | None = None,
                   activity_id: str | None = None) -> list[Activity]:
        # One scope's have a read of their own: the all-or-one form reads every tenant's.
        if activity_id is not None:
            rows = self._read("activity", activity_id=activity_id, type=type_, scope=scope)
        elif scope is not None:
            rows = self._read("scope_activities", type=type_, scope=scope)
        else:
            rows = self._read("activities", type=type_, scope=None)
        return [activity_from_props(r["activity"]) for r in rows]

    def documents(
        self, kind: str, scope: str | None = None, key: str | None = None
    ) -> list[str]:
        """JSON bodies of stored documents of ``kind`` (profiles, decisions), oldest first."""
        rows = (self._read("documents", kind=kind, scope=None, key=key) if scope is None else
                self._read("scope_documents", kind=kind, scope=scope, key=key))
        return [r["body"] for r in rows]

    def mirror_cursor(self) -> int:
        """The last outbox row of an embedded store this database mirrors (0: none yet)."""
        [row] = self._read("mirror_cursor")
        return int(row["cursor"])

    def entities(self, scope: str | None = None) -> list[Entity]:
        rows = (self._read("entities", scope=None) if scope is None else
                self._read("scope_entities", scope=scope))
        return [entity_from_props(r["entity"]) for r in rows]


def _support(row: Any) -> Support:
    """A supporting episode as a lookup reports it (Neo4j keeps no fingerprint: made here)."""
    return Support(episode_id=row["episode_id"], source=row["source"],
                   occurred_at=time_of(row["occurred_at"]),
                   fingerprint=fingerprint(row["content"] or ""))
