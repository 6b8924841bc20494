"""``kg-memory neo4j migrate``: convert a schema 2 database to schema 3 in place, in batches.

Schema 2 stored every instant as integer microseconds since the Unix epoch and a revision's
value and qualifiers as JSON text. Schema 3 stores instants as Neo4j ``DATETIME`` (UTC), values
as their own types and qualifiers as properties (see :mod:`kg_memory.store.neo4j.rows`). The
store refuses to open a schema 2 database (:class:`~kg_memory.domain.errors.StoreNeedsMigration`)
because its readers would compare integers with datetimes and silently find nothing.

Each batch is its own transaction and converts ``batch_size`` nodes (or edges): a database of
any size migrates in bounded memory, and a migration cut short is resumed by running it again,
since a converted node no longer matches the "still an integer" probe. The version node is
written last.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from kg_memory.domain.errors import InvalidArgument
from kg_memory.domain.instant import from_micros
from kg_memory.store.neo4j.rows import revision_hash, version_from_props

__all__ = ["NODE_LAYOUTS", "MigrationReport", "convert_node", "migrate"]

#: label -> (the instant property every node of it has, every instant property it may have).
NODE_LAYOUTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "Assertion": ("sys_from", ("valid_from", "valid_to", "sys_from", "sys_to")),
    "Episode": ("recorded_at", ("occurred_at", "recorded_at")),
    "Entity": ("recorded_at", ("recorded_at",)),
    "Activity": ("started_at", ("started_at", "ended_at")),
    "Tombstone": ("created_at", ("created_at",)),
    "Block": ("created_at", ("created_at", "revoked_at")),
    "Refusal": ("at", ("at",)),
    "Document": ("recorded_at", ("recorded_at",)),
}

Run = Callable[..., list[dict[str, Any]]]


class MigrationReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    location: str
    from_version: str
    to_version: str
    nodes: int  # nodes converted
    edges: int  # edges converted
    batches: int


def convert_node(label: str, props: dict[str, Any]) -> dict[str, Any]:
    """A schema 2 node's properties in schema 3's layout (pure, so it is tested without a
    server)."""
    out = dict(props)
    for name in NODE_LAYOUTS[label][1]:
        if isinstance(out.get(name), int):
            out[name] = from_micros(out[name])
    if label == "Assertion":
        if isinstance(out.get("value"), str):
            out["value"] = json.loads(out["value"])
        qualifiers = json.loads(out.pop("qualifiers", None) or "{}")
        out["exceptions"] = list(qualifiers.get("exceptions") or [])
        out["project"] = out.get("project") or qualifiers.get("project") or ""
        out["content_hash"] = revision_hash(version_from_props(out))
    return out


def migrate(run: Run, location: str, *, found: str, target: str,
            batch_size: int = 5000) -> MigrationReport:
    """Convert the database ``run`` queries (one auto-commit transaction per call) from schema
    ``found`` to ``target``."""
    if found == target:
        return MigrationReport(location=location, from_version=found, to_version=target,
                               nodes=0, edges=0, batches=0)
    if batch_size < 1:
        raise InvalidArgument(f"batch_size must be at least 1, got {batch_size}")
    nodes = edges = batches = 0
    for label, (probe, _) in NODE_LAYOUTS.items():
        while rows := run("migrate_nodes", label=label, probe=probe, size=batch_size):
            run("migrate_set_nodes", rows=[
                {"id": r["id"], "props": convert_node(label, r["props"])} for r in rows])
            nodes += len(rows)
            batches += 1
    while rows := run("migrate_edges", size=batch_size):
        run("migrate_set_edges", rows=[
            {"id": r["id"], "since": from_micros(r["since"])} for r in rows])
        edges += len(rows)
        batches += 1
    run("migrate_system_time")
    run("migrate_done", version=target)
    return MigrationReport(location=location, from_version=found, to_version=target,
                           nodes=nodes, edges=edges, batches=batches)
