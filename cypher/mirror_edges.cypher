// Mirror: upsert typed edges between hubs, keeping the system time they were first recorded.
// :params {rows: [{src: 'ep_1', type: 'SUPPORTS', dst: 'as_1', since: 1767603600000000}]}
UNWIND $rows AS r
MERGE (s:Node {id: r.src})
MERGE (d:Node {id: r.dst})
MERGE (s)-[g:$(r.type)]->(d)
  ON CREATE SET g.since = r.since
