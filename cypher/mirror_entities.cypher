// Mirror: upsert entities.
// :params {rows: [{entity_id: 'ana', type: 'person', name: 'Ana', scope: 'u1', owners: [], recorded_at: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MERGE (n:Node {scope: r.scope, id: r.entity_id})
SET n:Entity, n += r
