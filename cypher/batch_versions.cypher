// Batched write: the revisions a batch appended (the shape of insert_version, with the recall
// text of recall_index_fact), revision numbers and system intervals assigned by the adapter
// while it planned the batch in order. A revision a later episode of the same batch closed
// arrives closed (`current` false, sys_to set): a stored revision is still never changed.
// Instants travel beside `props` and are stored with datetime(), which takes a DATETIME or
// the ISO-8601 text the adapter sends (see kg_memory/store/neo4j/rows.py); null: open.
// :params {rows: [{scope: 'u1', assertion_id: 'as_1', label: 'Stated', current: true, depends_on: [], valid_from: datetime('2026-02-14T20:00Z'), valid_to: null, sys_from: datetime('2026-02-14T20:00Z'), sys_to: null, props: {assertion_id: 'as_1', revision: 1, scope: 'u1', subject: 'ana', predicate: 'diet', project: '', exceptions: [], value: 'vegetarian', kind: 'stated', writer: 'user', depends_on: [], confidence: 1.0, reason: 'asserted', recorded_by: 'ep_1', closed_by: null, close_reason: null, recall_text: 'ana diet vegetarian', recall_length: 3, content_hash: 'abc'}}]}
UNWIND $rows AS r
MERGE (f:Node {scope: r.scope, id: r.assertion_id})
SET f:Fact, f.assertion_id = r.assertion_id
CREATE (a:Assertion)-[:REVISION_OF_FACT]->(f)
SET a += r.props, a:$(r.label),
    a.valid_from = datetime(r.valid_from), a.valid_to = datetime(r.valid_to),
    a.sys_from = datetime(r.sys_from), a.sys_to = datetime(r.sys_to)
FOREACH (_ IN CASE WHEN r.current THEN [1] ELSE [] END | SET a:Current)
FOREACH (dep IN r.depends_on |
  MERGE (d:Node {scope: r.scope, id: dep})
  MERGE (f)-[:NEEDS]->(d))
