// Batched write: record the episodes of one batch exactly as received (the shape of
// add_episode, with the recall text recall_index_episode gives), one row each, in order.
// Instants travel beside `props`, stored with datetime() (a DATETIME or ISO-8601 text; see
// batch_versions).
// :params {rows: [{scope: 'u1', episode_id: 'ep_1', occurred_at: datetime('2026-02-14T20:00Z'), recorded_at: datetime('2026-02-14T20:00Z'), props: {episode_id: 'ep_1', operation_id: 'op-1', payload_hash: 'abc', source: 'user', channel: 'chat', content: 'Ana is vegetarian', scope: 'u1', envelope: 'admitted', sent_by: 'user', sent_over: 'chat', recall_text: 'ana is vegetarian', recall_length: 3}}]}
UNWIND $rows AS r
MERGE (e:Node {scope: r.scope, id: r.episode_id})
SET e:Episode, e += r.props,
    e.occurred_at = datetime(r.occurred_at), e.recorded_at = datetime(r.recorded_at)
