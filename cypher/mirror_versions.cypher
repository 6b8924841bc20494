// Mirror: upsert revisions exactly as the embedded store holds them (sync from the outbox).
// Same shape as insert_version: one :Assertion per revision on its :Fact hub, kind label,
// :Current while the system interval is open. Instants travel beside `props` and are stored
// with datetime(), which takes a DATETIME or the ISO-8601 text sync sends (see
// kg_memory/store/neo4j/rows.py); null: open. A revision a forget run rewrote names a forgotten
// entity by its tombstone (`tomb_…`) instead of its id: its hub's links to ids no revision
// names any more go, and so does a bare node left touching nothing (the id is user text).
// Each hub (a fact's, or a node a revision depends on) is in $hubs once, as [scope, id], the
// first $facts of them the facts': a slice holds a fact's revisions together, and a
// unique-index seek per hub of every row was most of this query's time. Rows name their fact
// and dependencies by position there; ORDER BY keeps `hubs` in the order of $hubs.
// :params {facts: 1, hubs: [['u1', 'as_1']], rows: [{assertion_id: 'as_1', revision: 1, fact: 0, label: 'Stated', current: true, deps: [], valid_from: datetime('2026-02-14T20:00Z'), valid_to: null, sys_from: datetime('2026-02-14T20:00Z'), sys_to: null, props: {assertion_id: 'as_1', revision: 1, scope: 'u1', subject: 'ana', predicate: 'diet', project: '', value: 'vegetarian', exceptions: [], kind: 'stated', writer: 'user', depends_on: [], confidence: 1.0, reason: 'asserted', recorded_by: 'ep_1', closed_by: null, close_reason: null}}]}
UNWIND range(0, size($hubs) - 1) AS i
MERGE (n:Node {scope: $hubs[i][0], id: $hubs[i][1]})
FOREACH (_ IN CASE WHEN i < $facts THEN [1] ELSE [] END |
  SET n:Fact, n.assertion_id = $hubs[i][1])
WITH i, n
ORDER BY i
WITH collect(n) AS hubs
UNWIND $rows AS r
WITH hubs[r.fact] AS f, [j IN r.deps | hubs[j]] AS needs, r
MERGE (a:Assertion {assertion_id: r.assertion_id, revision: r.revision})
SET a += r.props, a:$(r.label),
    a.valid_from = datetime(r.valid_from), a.valid_to = datetime(r.valid_to),
    a.sys_from = datetime(r.sys_from), a.sys_to = datetime(r.sys_to)
MERGE (a)-[:REVISION_OF_FACT]->(f)
FOREACH (_ IN CASE WHEN r.current THEN [1] ELSE [] END | SET a:Current)
FOREACH (_ IN CASE WHEN r.current THEN [] ELSE [1] END | REMOVE a:Current)
FOREACH (d IN needs | MERGE (f)-[:NEEDS]->(d))
WITH f, r
WHERE any(dep IN r.props.depends_on WHERE dep STARTS WITH 'tomb_')
WITH DISTINCT f
MATCH (f)-[n:NEEDS]->(d:Node)
WHERE NOT EXISTS { MATCH (f)<-[:REVISION_OF_FACT]-(a:Assertion) WHERE d.id IN a.depends_on }
DELETE n
WITH DISTINCT d
WHERE labels(d) = ['Node'] AND NOT EXISTS { (d)--() }
DELETE d
