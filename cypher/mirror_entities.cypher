// Mirror: upsert entities. `recorded_at` travels beside `props`, stored with datetime() (a
// DATETIME or ISO-8601 text; see mirror_versions).
// :params {rows: [{recorded_at: datetime('2026-02-14T20:00Z'), props: {entity_id: 'ana', type: 'person', name: 'Ana', scope: 'u1', owners: []}}]}
UNWIND $rows AS r
MERGE (n:Node {scope: r.props.scope, id: r.props.entity_id})
SET n:Entity, n += r.props, n.recorded_at = datetime(r.recorded_at)
