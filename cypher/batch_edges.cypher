// Batched write (and the mirror's edge upserts): typed edges of one type between hubs, each
// recorded once with the system time it was first seen; a repeat keeps the first `since`.
// One query per relationship type, so the type is one parameter for the whole list.
// :params {type: 'SUPPORTS', rows: [{scope: 'u1', src: 'ep_1', dst: 'as_1', since: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MERGE (s:Node {scope: r.scope, id: r.src})
MERGE (d:Node {scope: r.scope, id: r.dst})
MERGE (s)-[g:$($type)]->(d)
  ON CREATE SET g.since = r.since
