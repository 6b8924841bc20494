"""The tombstones' ``INVALIDATED_BY`` edges, read from the tombstones table (schema 8).

Each tombstone row names the forget run that left it (``activity_id``), so its edge
``tomb_<key[:20]> -INVALIDATED_BY-> activity_id`` (since ``created_at``) is derived on read
instead of stored: a cascade of 1,000 derivatives leaves about 3,000 tombstones, and one edge
row each (three B-trees and an outbox row) was the largest part of its cost. Reads of edges
(:meth:`SqliteStore.edges`, ``edges_of``, the integrity snapshot) add these rows, so lineage,
the PROV export and ``kg-memory check`` see what they saw when the edges were stored. Two
cases still store the edge: a key tombstoned again by a later run (its row keeps the first
run) and files from before schema 8, whose stored edges are the very rows derived here (same
four columns), which every read counts once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from kg_memory.store.sqlite import driver

__all__ = ["ALL_INVALIDATIONS", "TOMB", "invalidations", "retombstoned"]

TOMB = "tomb_"
_COLUMNS = ("SELECT 'tomb_' || substr(t.key, 1, 20), 'INVALIDATED_BY', t.activity_id, "
            "t.created_at FROM ")
#: Every tombstone's edge (src, type, dst, since) that is not stored as well (a file from
#: before schema 8 stores them), for the integrity snapshot: ``UNION ALL`` with the stored
#: edges counts each edge once without sorting the whole table to drop duplicates.
ALL_INVALIDATIONS = _COLUMNS + (
    "tombstones t WHERE NOT EXISTS (SELECT 1 FROM edges e WHERE e.scope = t.scope "
    "AND e.src = 'tomb_' || substr(t.key, 1, 20) AND e.type = 'INVALIDATED_BY' "
    "AND e.dst = t.activity_id)")


def invalidations(node_ids: Sequence[str], scope: str | None) -> tuple[str, list[object]]:
    """``UNION`` arms (leading ``UNION``, or ``""``) selecting (src, type, dst, since) of the
    derived edges touching ``node_ids`` in ``scope`` (every scope when ``None``): out of a
    tombstone node, into a forget activity. Only ids that can be either are looked up, so a
    plan's walk over thousands of revisions pays nothing."""
    tombs = [i[len(TOMB):] for i in node_ids if i.startswith(TOMB)]
    runs = [i for i in node_ids if i.startswith("act_")]
    arms: list[str] = []
    params: list[object] = []
    scoped = "" if scope is None else " AND t.scope = ?"
    if tombs:
        # A key range on the primary key per prefix (keys are lower-case hex, all below 'g').
        arms.append(_COLUMNS + "json_each(?) j CROSS JOIN tombstones t ON t.key >= j.value "
                    "AND t.key < j.value || 'g' AND substr(t.key, 1, 20) = j.value" + scoped)
        params += [json.dumps(tombs), *([] if scope is None else [scope])]
    if runs:
        arms.append(_COLUMNS + "json_each(?) j CROSS JOIN tombstones t "
                    "ON t.activity_id = j.value" + scoped)
        params += [json.dumps(runs), *([] if scope is None else [scope])]
    return "".join(" UNION " + arm for arm in arms), params


def retombstoned(conn: driver.Connection, keys: Sequence[str], activity_id: str
                 ) -> list[tuple[str, str]]:
    """``(tombstone node, activity)`` of each of a run's tombstone ``keys`` that an earlier
    run already tombstoned: its row keeps that run, so this run's edge must be stored. Call
    before inserting them."""
    if not keys:
        return []
    rows = conn.execute(
        "SELECT t.key, t.activity_id FROM json_each(?) j CROSS JOIN tombstones t "
        "ON t.key = j.value", [json.dumps(list(keys))]).fetchall()
    earlier = {r[0]: r[1] for r in rows}
    return [(TOMB + key[:20], activity_id) for key in keys
            if key in earlier and earlier[key] != activity_id]
