// Batch planning: the episodes already recorded under any of many (scope, operation id) pairs,
// with their payload hashes (episode_by_operation for each). Instants come back as ISO-8601
// text, as in batch_live_slots.
// :params {keys: [{scope: 'u1', operation_id: 'op-1'}]}
UNWIND $keys AS k
MATCH (e:Episode {scope: k.scope, operation_id: k.operation_id})
RETURN e {.episode_id, .operation_id, .payload_hash, .source, .channel, .content, .scope,
          .envelope, .sent_by, .sent_over,
          occurred_at: toString(e.occurred_at), recorded_at: toString(e.recorded_at)} AS episode
