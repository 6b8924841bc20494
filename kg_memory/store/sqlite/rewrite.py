"""The one edit a forget run makes to stored revisions: a forgotten entity's id in what
depended on it becomes the entity's tombstone reference.

A revision is immutable (the ``versions_immutable`` trigger of ``schema.sql``): only its open
system interval may be closed. Yet a fact that ``DEPENDS_ON`` a forgotten entity names it by
its id, user-chosen text (a person's name as id), and retiring the fact keeps its history, id
included. So the forget run replaces the reference, inside its own transaction, with the
entity's content-free tombstone reference, and nothing else: the guard is lifted for that one
statement and put back, from its own stored text, before the transaction commits, so no other
writer ever sees the table unguarded (SQLite DDL is transactional, and a crash rolls it back
with the rest), and every other field of every revision is untouched. The outbox's update
trigger tells the mirror to re-send the rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from kg_memory.store.sqlite import driver

__all__ = ["DependencyRewrite"]

_GUARD = "versions_immutable"


class DependencyRewrite:
    """:meth:`rewrite_dependencies` of :class:`~kg_memory.store.sqlite.tx.SqliteTransaction`."""

    _conn: driver.Connection
    _scope: str

    def rewrite_dependencies(self, renames: Mapping[str, str]) -> None:
        """Replace each key of ``renames`` with its value in the ``depends_on`` of every
        revision of this scope whose dependency rows name it, and in those rows (see the
        module docstring). One read for the whole set, however many entities go."""
        if not renames:
            return
        # The dependency rows are the scope's; the assertion ids they name are unique across
        # scopes, and the revisions are filtered on the scope too (another tenant's R1 stays).
        rows = self._conn.execute(
            "SELECT DISTINCT v.vid, v.depends_on FROM json_each(?) j JOIN dependencies d "
            "ON d.scope = ? AND d.dep = j.value JOIN versions v "
            "ON v.assertion_id = d.assertion_id WHERE v.scope = ?",
            (json.dumps(list(renames)), self._scope, self._scope)).fetchall()
        updates = []
        for vid, stored in rows:
            depends = json.loads(stored)
            rewritten = list(dict.fromkeys(renames.get(d, d) for d in depends))
            if rewritten != depends:
                updates.append((json.dumps(rewritten), vid))
        if updates:
            [guard] = self._conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                (_GUARD,)).fetchone()
            self._conn.execute("DROP TRIGGER versions_immutable")
            self._conn.executemany("UPDATE versions SET depends_on = ? WHERE vid = ?", updates)
            self._conn.execute(guard)
        pairs = list(renames.items())
        self._conn.executemany(
            "UPDATE OR IGNORE dependencies SET dep = ? WHERE scope = ? AND dep = ?",
            [(new, self._scope, old) for old, new in pairs])
        self._conn.executemany("DELETE FROM dependencies WHERE scope = ? AND dep = ?",
                               [(self._scope, old) for old, _ in pairs])
