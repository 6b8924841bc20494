// Migration from schema 2: give each edge (by element id) its `since` as a DATETIME.
// :params {rows: [{id: '5:00000000-0000-0000-0000-000000000000:0', since: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MATCH ()-[g]->()
WHERE elementId(g) = r.id
SET g.since = r.since
