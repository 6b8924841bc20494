"""The Neo4j store's write side: one explicit Neo4j transaction per unit of work.

Every method is one query from ``cypher/`` (see :mod:`kg_memory.store.neo4j.cypher`), so a method
is one
round trip; methods that write many rows do it with ``UNWIND``/``FOREACH`` inside that query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from neo4j.exceptions import ClientError, DriverError, Neo4jError, TransientError

from kg_memory.domain.change import Closure, Draft, PlannedEdge
from kg_memory.domain.errors import StoreBusy, StoreUnavailable
from kg_memory.domain.interval import Interval
from kg_memory.domain.model import (
    Activity,
    Assertion,
    Block,
    Entity,
    Episode,
    Refusal,
    Tombstone,
)
from kg_memory.domain.recall_text import episode_document, fact_document
from kg_memory.store.neo4j.cypher import load
from kg_memory.store.neo4j.rows import (
    block_from_props,
    entity_from_props,
    envelope_props,
    episode_from_props,
    instant,
    opt_instant,
    revision_hash,
    time_of,
    version_from_props,
    version_params,
)
from kg_memory.store.neo4j.unit import ScopedUnit
from kg_memory.store.protocol import Slot

__all__ = ["Neo4jTransaction", "QueryTarget", "run_query"]


class QueryTarget(Protocol):
    """A driver session or transaction: anything that runs a query with parameters."""

    def run(self, query: Any, parameters: dict[str, Any] | None = ...) -> Any: ...


def run_query(
    target: QueryTarget, name: str, params: Mapping[str, Any], *, where: str, reads: bool,
    plain: bool = False,
) -> list[dict[str, Any]]:
    """Run ``cypher/<name>.cypher`` with ``params`` and return its rows as dicts.

    A lost connection or a server failure is :class:`StoreUnavailable` (never an empty answer);
    on reads every server error is, as in the embedded store. A client error in a write (a
    constraint the write broke) propagates as it is, like SQLite's integrity errors.

    ``plain``: the query returns only maps, lists and scalars (no nodes or relationships, as
    the batched queries), so its rows are taken as they come instead of through ``.data()``,
    whose recursive copy of every value was a tenth of a batch's client time.
    """
    try:
        result = target.run(load(name), dict(params))
        rows: list[dict[str, Any]] = (
            [dict(zip(record.keys(), record, strict=True)) for record in result] if plain
            else result.data())
    except TransientError as exc:
        # A lock wait that timed out or a deadlock the server broke: nothing of the unit is
        # committed, and the same unit may succeed when retried.
        raise StoreBusy(f"the Neo4j store at {where} is busy ({name}): {exc}") from exc
    except ClientError as exc:
        if not reads:
            raise
        raise StoreUnavailable(f"cannot read the Neo4j store at {where} ({name}): {exc}") from exc
    except (DriverError, Neo4jError) as exc:
        raise StoreUnavailable(f"cannot query the Neo4j store at {where}: {exc}") from exc
    return rows


class Neo4jTransaction(ScopedUnit):
    """One atomic unit of writes at system time :attr:`now`, each method one query."""

    def __init__(self, tx: QueryTarget, now: datetime, where: str, scope: str) -> None:
        super().__init__(now, scope)
        self._tx = tx
        self._where = where

    def _rows(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return run_query(self._tx, name, params, where=self._where, reads=False)

    def run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Run one named cypher/ query inside this unit (the mirror's batch writes)."""
        return self._rows(name, **params)

    def episode_by_operation(self, operation_id: str) -> tuple[Episode, str] | None:
        rows = self._rows("episode_by_operation", scope=self._scope, operation_id=operation_id)
        if not rows:
            return None
        props = rows[0]["episode"]
        return episode_from_props(props), props["payload_hash"]

    def add_episode(self, episode: Episode, payload_hash: str) -> None:
        self._in_scope(episode.scope)
        self._rows(
            "add_episode",
            episode_id=episode.episode_id,
            operation_id=episode.operation_id,
            payload_hash=payload_hash,
            source=episode.source,
            channel=episode.channel.value,
            content=episode.content,
            occurred_at=instant(episode.occurred_at),
            recorded_at=instant(episode.recorded_at),
            scope=episode.scope,
            **envelope_props(episode),
        )
        text = episode_document(episode.content)
        if text:
            self._rows("recall_index_episode", episode_id=episode.episode_id, text=text,
                       length=text.count(" ") + 1)

    def entity(self, entity_id: str) -> Entity | None:
        rows = self._rows("entity", scope=self._scope, entity_id=entity_id)
        return entity_from_props(rows[0]["entity"]) if rows else None

    def put_entity(self, entity: Entity) -> None:
        self._in_scope(entity.scope)
        self._rows(
            "put_entity",
            entity_id=entity.entity_id,
            type=entity.type,
            name=entity.name,
            scope=entity.scope,
            owners=list(entity.owners),
            now=self.now,
        )

    def _versions(self, name: str, /, **params: Any) -> list[Assertion]:
        return [version_from_props(r["version"]) for r in self._rows(name, **params)]

    def live_versions(self, slot: Slot) -> list[Assertion]:
        self._in_scope(slot.scope)
        return self._versions(
            "live_versions",
            scope=slot.scope,
            subject=slot.subject,
            predicate=slot.predicate,
            project=slot.project or "",
        )

    def live_versions_of(self, assertion_id: str) -> list[Assertion]:
        return self._versions("live_versions_of", assertion_id=assertion_id, scope=self._scope)

    def live_dependents(self, key: str) -> list[Assertion]:
        return self._versions("live_dependents", scope=self._scope, key=key)

    def live_dependents_many(self, keys: Sequence[str]) -> dict[str, list[Assertion]]:
        """:meth:`live_dependents` of each key in one query (a forget run asks for the
        dependents of 1,000 erased facts at once: one round trip each was half its queries)."""
        found: dict[str, list[Assertion]] = {key: [] for key in keys}
        if found:
            for row in self._rows("live_dependents_many", scope=self._scope, keys=list(found)):
                found[row["key"]].append(version_from_props(row["version"]))
        return found

    def close_version(self, closure: Closure) -> None:
        rows = self._rows(
            "close_version",
            assertion_id=closure.assertion_id,
            revision=closure.revision,
            now=self.now,
            closed_by=closure.closed_by,
            close_reason=closure.reason.value,
        )
        if not rows:
            raise StoreUnavailable(
                f"revision {closure.assertion_id}#{closure.revision} is not live; "
                "the store changed under this transaction"
            )
        if rows[0]["fresh"]:
            self._vanished.add(closure.assertion_id)

    def finish(self) -> None:
        """Before commit: the hub of a fact all of whose revisions this unit wrote and
        replaced goes, with its edges (it was never visible; they would dangle)."""
        if self._vanished:
            self._rows("sweep_vanished", ids=sorted(self._vanished))
            self._vanished.clear()

    def insert_version(self, draft: Draft) -> Assertion:
        self._in_scope(draft.scope)
        [row] = self._rows("insert_version", **version_params(draft, self.now))
        version = Assertion(
            **draft.model_dump(exclude={"valid"}),
            valid=draft.valid,
            revision=row["revision"],
            system=Interval(start=self.now),
        )
        self._index_fact(version)
        return version

    def _index_fact(self, version: Assertion) -> None:
        """Give a revision its recall text, with the subject's and project's names as known
        now, in the fact's scope only (as on the embedded store: another tenant's entity of the
        same id must not lend its name)."""
        ids = [version.subject,
               *([version.qualifiers.project] if version.qualifiers.project else [])]
        names = tuple(sorted((e.entity_id, e.name) for e in map(self.entity, ids)
                              if e is not None and e.name and e.scope == version.scope))
        text = fact_document(version, version.qualifiers.project, version.qualifiers.exceptions,
                             tuple(name for _, name in names))
        self._rows("recall_index_fact", assertion_id=version.assertion_id,
                   revision=version.revision, text=text or None,
                   length=text.count(" ") + 1 if text else None)

    def add_edge(self, edge: PlannedEdge) -> None:
        self._rows("add_edge", scope=self._scope, src=edge.src, type=edge.type.value,
                   dst=edge.dst, now=self.now)

    def add_refusal(self, refusal: Refusal) -> None:
        self._rows(
            "add_refusal",
            episode_id=refusal.episode_id,
            source=refusal.source,
            what=refusal.what,
            reason=refusal.reason,
            at=instant(refusal.at),
        )

    # -- forgetting ------------------------------------------------------------------------

    def delete_assertion(self, assertion_id: str) -> None:
        """Erase every revision of an assertion and every edge touching it."""
        self.delete_assertions([assertion_id])

    def delete_assertions(self, assertion_ids: list[str]) -> None:
        """:meth:`delete_assertion` of each, in order, in one query (a cascade erases
        thousands: one round trip each was most of a forget's time)."""
        if not assertion_ids:
            return
        self._rows("delete_assertions", assertion_ids=list(assertion_ids), scope=self._scope)
        self.erased.extend(assertion_ids)

    def delete_entity(self, entity_id: str) -> None:
        self._rows("delete_entity", scope=self._scope, entity_id=entity_id)
        self.erased_entities.append((self._scope, entity_id))

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        """:meth:`delete_entity` of each (once), in order, in one query (a forget run erases
        the 1,000 entities of a source's facts at once)."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return
        self._rows("delete_entities", scope=self._scope, entity_ids=ids)
        self.erased_entities.extend((self._scope, entity_id) for entity_id in ids)

    def rename_entity(self, entity_id: str, name: str | None,
                      type_: str | None = None) -> None:
        """Give an entity of this scope a new display name (and type, when ``type_`` is
        given); the recall text follows, so no revision's indexed text keeps a name that came
        from forgotten input."""
        self._rows("rename_entity", scope=self._scope, entity_id=entity_id, name=name,
                   type=type_)
        for row in self._rows("entity_revisions", scope=self._scope, entity_id=entity_id):
            self._index_fact(version_from_props(row["version"]))

    def rewrite_dependencies(self, renames: Mapping[str, str]) -> None:
        """Replace each key of ``renames`` with its value in this scope's revisions that
        depend on it, each with its digest re-computed here as on insert (``kg-memory check``
        re-checks it), and in the dependency links: two queries for the whole set."""
        if not renames:
            return
        rows = []
        for row in self._rows("dependency_revisions", scope=self._scope, keys=list(renames)):
            version = version_from_props(row["version"])
            depends = tuple(dict.fromkeys(renames.get(d, d) for d in version.depends_on))
            if depends == version.depends_on:
                continue
            rows.append({"assertion_id": version.assertion_id, "revision": version.revision,
                         "depends_on": list(depends), "content_hash": revision_hash(
                             version.model_copy(update={"depends_on": depends}))})
        self._rows("rewrite_dependencies", scope=self._scope, rows=rows,
                   renames=[{"old": old, "new": new} for old, new in renames.items()])

    def erase_episode(self, episode_id: str) -> None:
        """Erase an episode, its edges and what the gate refused from it."""
        self._rows("erase_episode", episode_id=episode_id, scope=self._scope)
        self.erased.append(episode_id)

    def redact_episode(self, episode_id: str, supports_to_drop: list[str]) -> None:
        """Keep the episode node for the facts it still supports; drop its content."""
        self._rows(
            "redact_episode", scope=self._scope, episode_id=episode_id,
            supports_to_drop=list(supports_to_drop),
        )
        self.redacted.append(episode_id)

    def replace_content(self, episode_id: str, content: str) -> None:
        self._rows("replace_content", episode_id=episode_id, content=content)

    def rewrite_refusal(self, episode_id: str, what: str, new_what: str) -> None:
        self._rows("rewrite_refusal", episode_id=episode_id, what=what, new_what=new_what)

    def forget_keys(self, keys: list[str]) -> None:
        """Nothing to do: Neo4j keeps no change log of keys (its transaction logs are the
        scrub report's concern)."""

    def next_generation(self) -> int:
        [row] = self._rows("next_generation", scope=self._scope)
        return int(row["generation"])

    def add_tombstone(self, tombstone: Tombstone) -> None:
        self.add_tombstones([(tombstone.kind, tombstone.key)], tombstone.generation,
                            tombstone.activity_id, tombstone.created_at)

    def add_tombstones(self, keys: Sequence[tuple[str, str]], generation: int,
                       activity_id: str, created_at: datetime) -> None:
        """One query for the run's tombstones, each with the INVALIDATED_BY edge to its run
        that the graph shows (an edge here, as before schema 8; the embedded store derives it
        from the row instead)."""
        # A tombstone is the node of its key's first 20 characters: the first row naming it
        # writes it, as when each row was its own query. Repeats were no-ops then and are left
        # out here, so the query's rows are independent (it relies on that).
        rows: dict[str, dict[str, str]] = {}
        for kind, key in keys:
            rows.setdefault(key[:20], {"kind": kind, "key": key})
        if not rows:
            return
        self._rows("add_tombstones", scope=self._scope, keys=list(rows.values()),
                   generation=generation, activity_id=activity_id,
                   created_at=instant(created_at), now=self.now)

    def tombstones(self, keys: list[str]) -> dict[str, datetime]:
        """Which of ``keys`` are tombstoned, and since when (checked inside the write)."""
        if not keys:
            return {}
        rows = self._rows("tombstones", keys=list(keys))
        return {r["key"]: time_of(r["created_at"]) for r in rows}

    def add_activity(self, activity: Activity) -> None:
        self._in_scope(activity.scope)
        self._rows(
            "add_activity",
            activity_id=activity.activity_id,
            scope=activity.scope,
            type=activity.type,
            agent=activity.agent,
            started_at=instant(activity.started_at),
            ended_at=opt_instant(activity.ended_at),
            status=activity.status,
            detail=activity.detail,
        )

    def add_block(self, block: Block) -> None:
        self._in_scope(block.scope)
        self._rows(
            "add_block",
            block_id=block.block_id,
            scope=block.scope,
            subject=block.subject,
            predicates=block.predicates,
            project=block.project,
            created_at=instant(block.created_at),
        )

    def revoke_block(self, block_id: str) -> bool:
        [row] = self._rows("revoke_block", block_id=block_id, scope=self._scope, now=self.now)
        return int(row["revoked"]) > 0

    def active_blocks(self, scope: str) -> list[Block]:
        self._in_scope(scope)
        return [block_from_props(r["block"]) for r in self._rows("active_blocks", scope=scope)]

    # -- identity documents ----------------------------------------------------------------

    def put_document(self, kind: str, key: str, scope: str, body: str,
                     lookup: list[str] | None = None) -> None:
        """Insert or replace a JSON document; ``lookup`` keys find it by :meth:`documents_by`."""
        self._in_scope(scope)
        self._rows("put_document", kind=kind, key=key, scope=scope, body=body,
                   lookup=list(lookup or []), now=self.now)

    def documents_by(self, kind: str, scope: str, lookup: list[str]) -> list[str]:
        """Bodies of the ``kind`` documents in ``scope`` reachable from any ``lookup`` key."""
        self._in_scope(scope)
        if not lookup:
            return []
        rows = self._rows("documents_by", kind=kind, scope=scope, lookup=list(lookup))
        return [r["body"] for r in rows]

    def delete_document(self, kind: str, key: str) -> None:
        self._rows("delete_document", kind=kind, scope=self._scope, key=key)
