"""What a forget run's scrub means on Neo4j: verifying by query that erased data is unreachable.

The embedded store rewrites its file so that no page keeps an erased byte. Neo4j has no single
file to rewrite, so its scrub checks instead that no node, revision, refusal or content remains
for the ids that forget runs erased (``scrub_check.cypher``), and that no stored episode, fact or
revision id matches a node tombstone of any forget run (``node_tombstones.cypher`` and
``stored_ids.cypher``), which also covers a run that a crash interrupted before its scrub.
Deleted records remain in Neo4j's transaction logs until the server prunes them; the report's
reason says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kg_memory.domain.forgetting import node_key

__all__ = ["COMPLETE_REASON", "erasure_report"]

COMPLETE_REASON = (
    "Neo4j has no single file to scrub; verified by query that nothing remains for the erased "
    "ids and that no stored id matches a node tombstone. Deleted records stay in Neo4j's "
    "transaction logs until they are pruned (db.tx_log.rotation.retention_policy)."
)


def erasure_report(
    location: str,
    left: Mapping[str, Any],
    tombstones: set[str],
    stored_ids: Iterable[tuple[str, str]],
    secret: bytes,
    checked: int,
) -> dict[str, Any]:
    """The destination report of one scrub from what the verification queries found.

    ``left`` is the row of ``scrub_check.cypher``; ``tombstones`` the node tombstone keys;
    ``stored_ids`` the (scope, id) pairs still stored; ``checked`` how many erased ids were
    looked up.
    """
    remaining = {k: int(left[k]) for k in ("nodes", "revisions", "refusals", "vectors",
                                          "unredacted")}
    remaining["tombstoned_ids"] = sum(
        node_key(secret, scope, i) in tombstones for scope, i in stored_ids
    )
    report: dict[str, Any] = {
        "destination": "neo4j",
        "location": location,
        "checked_ids": checked,
        "node_tombstones": len(tombstones),
        "remaining": remaining,
    }
    if any(remaining.values()):
        found = ", ".join(f"{k}={v}" for k, v in remaining.items() if v)
        return {**report, "status": "incomplete",
                "reason": f"erased data is still reachable by query: {found}"}
    return {**report, "status": "complete", "reason": COMPLETE_REASON}
