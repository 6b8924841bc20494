// Record one episode exactly as received, with the gate's decision on its envelope
// (`envelope`: 'admitted' or 'refused') and who really sent it over which channel (`sent_by`,
// null when no channel established it; `sent_over`). The node is also the :Node hub that the
// episode's edges (SUPPORTS, MENTIONS, INVALIDATES) start from.
// :params {episode_id: 'ep_1', operation_id: 'op-1', payload_hash: 'abc', source: 'user', channel: 'chat', content: 'Ana is vegetarian', occurred_at: datetime('2026-02-14T20:00Z'), recorded_at: datetime('2026-02-14T20:00Z'), scope: 'u1', envelope: 'admitted', sent_by: 'user', sent_over: 'chat'}
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
    e.scope = $scope,
    e.envelope = $envelope,
    e.sent_by = $sent_by,
    e.sent_over = $sent_over
