// Batched write: the entities a batch created or widened, each in its final state (the adapter
// applied put_entity's rules in order: owners only ever grow, a missing name is filled in, the
// type and first recorded_at stay). A placeholder :Node of the id becomes the entity.
// `recorded_at` is a DATETIME or ISO-8601 text (datetime() takes either; see batch_versions).
// :params {rows: [{scope: 'u1', entity_id: 'R1', type: 'booking', name: null, owners: ['restaurant'], recorded_at: datetime('2026-02-14T20:00Z')}]}
UNWIND $rows AS r
MERGE (n:Node {scope: r.scope, id: r.entity_id})
SET n:Entity,
    n.entity_id = r.entity_id,
    n.type = r.type,
    n.name = r.name,
    n.owners = r.owners,
    n.recorded_at = coalesce(n.recorded_at, datetime(r.recorded_at))
