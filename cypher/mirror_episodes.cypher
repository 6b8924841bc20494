// Mirror: upsert episodes as received (content as the embedded store now holds it). Instants
// travel beside `props`, stored with datetime() (a DATETIME or ISO-8601 text; see
// mirror_versions).
// :params {rows: [{occurred_at: datetime('2026-02-14T20:00Z'), recorded_at: datetime('2026-02-14T20:00Z'), props: {episode_id: 'ep_1', operation_id: 'op-1', payload_hash: '', source: 'user', channel: 'chat', content: 'Ana is vegetarian', scope: 'u1', envelope: 'admitted', sent_by: 'user', sent_over: 'chat'}}]}
UNWIND $rows AS r
MERGE (e:Node {scope: r.props.scope, id: r.props.episode_id})
SET e:Episode, e += r.props,
    e.occurred_at = datetime(r.occurred_at), e.recorded_at = datetime(r.recorded_at)
