// Batched write: typed edges of one type from hubs the same batch created (its episodes and
// its new facts), so none of them can exist yet and each is created without looking for it
// (a lookup the planner may serve by scanning every relationship when the statistics are
// young). The start node was written earlier in the same transaction; the end node may be a
// placeholder, created here if no write named it before.
// The SEEK hint keeps `s` a seek of the node_scope_id constraint: planned on the statistics of
// an empty index (a new or wiped store) the planner scanned the whole index for every row.
// `since` is a DATETIME or ISO-8601 text (datetime() takes either; see batch_versions).
// :params {type: 'SUPPORTS', rows: [{scope: 'u1', src: 'ep_1', dst: 'as_1', since: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MATCH (s:Node {scope: r.scope, id: r.src})
USING INDEX SEEK s:Node(scope, id)
MERGE (d:Node {scope: r.scope, id: r.dst})
CREATE (s)-[g:$($type)]->(d)
SET g.since = datetime(r.since)
