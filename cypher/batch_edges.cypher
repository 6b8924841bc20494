// Batched write (and the mirror's edge upserts): typed edges of one type between hubs, each
// recorded once with the system time it was first seen; a repeat keeps the first `since`.
// One query per relationship type, so the type is one parameter for the whole list.
// Not a MERGE of the relationship: with a dynamic type the planner may serve that MERGE by
// scanning every relationship in the store for every row (it does on a young store, whose
// statistics say there are few); the existing edge is looked for among the start node's own
// relationships instead. Writers hold the system-time lock, so no other transaction can add
// the same edge meanwhile.
// `since` is a DATETIME or ISO-8601 text (datetime() takes either; see batch_versions).
// :params {type: 'SUPPORTS', rows: [{scope: 'u1', src: 'ep_1', dst: 'as_1', since: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MERGE (s:Node {scope: r.scope, id: r.src})
MERGE (d:Node {scope: r.scope, id: r.dst})
WITH s, d, r
WHERE NONE(x IN [(s)-[g]->(e) WHERE type(g) = $type | e] WHERE x = d)
CREATE (s)-[g:$($type)]->(d)
SET g.since = datetime(r.since)
