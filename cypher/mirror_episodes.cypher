// Mirror: upsert episodes as received (content as the embedded store now holds it).
// :params {rows: [{episode_id: 'ep_1', operation_id: 'op-1', payload_hash: '', source: 'user', channel: 'chat', content: 'Ana is vegetarian', occurred_at: 1767603600000000, recorded_at: 1767603600000000, scope: 'u1'}]}
UNWIND $rows AS r
MERGE (e:Node {scope: r.scope, id: r.episode_id})
SET e:Episode, e += r
