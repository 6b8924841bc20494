// Mirror: upsert episodes as received (content as the embedded store now holds it).
// :params {rows: [{episode_id: 'ep_1', operation_id: 'op-1', payload_hash: '', source: 'user', channel: 'chat', content: 'Ana is vegetarian', occurred_at: datetime('2026-02-14T20:00Z'), recorded_at: datetime('2026-02-14T20:00Z'), scope: 'u1'}]}
UNWIND $rows AS r
MERGE (e:Node {scope: r.scope, id: r.episode_id})
SET e:Episode, e += r
