// Batched write (and the mirror's edge upserts): typed edges between hubs, each recorded once
// with the system time it was first seen; a repeat keeps the first `since`.
// Each end is in $nodes once, as [scope, id], and a row names its ends by position there: a
// batch's edges share their ends (an episode's SUPPORTS and MENTIONS, a fact's ABOUT), and one
// unique-index seek per end of every row was a quarter of the server's time in a sync. ORDER BY
// keeps `hubs` in the order of $nodes. Rows are distinct (type, src, dst): a row does not see
// the edge an earlier row of the same statement created.
// Not a MERGE of the relationship: with a dynamic type the planner may serve that MERGE by
// scanning every relationship in the store for every row (it does on a young store, whose
// statistics say there are few); the existing edge is looked for among the start node's own
// relationships instead, except from a node the batch itself created (`fresh`: it has none).
// Writers hold the system-time lock, so no other transaction can add the same edge meanwhile.
// `since` is a DATETIME or ISO-8601 text (datetime() takes either; see batch_versions).
// :params {nodes: [['u1', 'ep_1'], ['u1', 'as_1']], rows: [{type: 'SUPPORTS', src: 0, dst: 1, fresh: false, since: datetime('2026-02-14T20:00Z')}]}
UNWIND range(0, size($nodes) - 1) AS i
MERGE (x:Node {scope: $nodes[i][0], id: $nodes[i][1]})
WITH i, x
ORDER BY i
WITH collect(x) AS hubs
UNWIND $rows AS r
WITH hubs[r.src] AS s, hubs[r.dst] AS d, r
WHERE r.fresh OR NONE(e IN [(s)-[g]->(e) WHERE type(g) = r.type | e] WHERE e = d)
CREATE (s)-[g:$(r.type)]->(d)
SET g.since = datetime(r.since)
