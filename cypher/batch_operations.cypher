// Batch planning: the episodes already recorded under any of many (scope, operation id) pairs,
// with their payload hashes (episode_by_operation for each). Instants come back as ISO-8601
// text, as in batch_live_slots.
// Every row comes back in one list of one record (`rows`): the Python driver's cost is per
// record (about 35 µs each, measured; the bench's 1,000-slot read returns about 1,700 rows).
// :params {keys: [{scope: 'u1', operation_id: 'op-1'}]}
UNWIND $keys AS k
MATCH (e:Episode {scope: k.scope, operation_id: k.operation_id})
RETURN collect({episode: e {.episode_id, .operation_id, .payload_hash, .source, .channel,
          .content, .scope, .envelope, .sent_by, .sent_over,
          occurred_at: toString(e.occurred_at), recorded_at: toString(e.recorded_at)}}) AS rows
