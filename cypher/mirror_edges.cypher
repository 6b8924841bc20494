// Mirror: upsert typed edges between hubs, keeping the system time they were first recorded.
// :params {rows: [{scope: 'u1', src: 'ep_1', type: 'SUPPORTS', dst: 'as_1', since: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MERGE (s:Node {scope: r.scope, id: r.src})
MERGE (d:Node {scope: r.scope, id: r.dst})
MERGE (s)-[g:$(r.type)]->(d)
  ON CREATE SET g.since = r.since
