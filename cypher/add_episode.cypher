// Record one episode exactly as received. The node is also the :Node hub that the episode's
// edges (SUPPORTS, MENTIONS, INVALIDATES) start from.
// :params {episode_id: 'ep_1', operation_id: 'op-1', payload_hash: 'abc', source: 'user', channel: 'chat', content: 'Ana is vegetarian', occurred_at: 1767603600000000, recorded_at: 1767603600000000, scope: 'u1'}
MERGE (e:Node {scope: $scope, id: $episode_id})
SET e:Episode,
    e.episode_id = $episode_id,
    e.operation_id = $operation_id,
    e.payload_hash = $payload_hash,
    e.source = $source,
    e.channel = $channel,
    e.content = $content,
    e.occurred_at = $occurred_at,
    e.recorded_at = $recorded_at,
    e.scope = $scope
