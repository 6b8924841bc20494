// Recall: for each recalled message (`queries`, numbered by `i`), the `size` episodes before
// and after it (by occurred_at, then id) in the same conversation: same scope and channel,
// same source unless `source` is null (a chat), recorded by `known`, with content. One query
// for every message of an answer (one round trip, not one per message). Oldest first. The
// hints keep each branch a seek of the conversation (scope, channel): left to itself the
// planner sought recorded_at, every tenant's episodes recorded by `known`.
// :params {queries: [{i: 0, scope: 'u1', channel: 'chat', source: null, around: datetime('2026-02-14T20:00Z'), episode_id: 'ep_1'}], known: datetime('2026-02-14T20:00Z'), size: 1}
UNWIND $queries AS q
CALL (q) {
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(scope, channel)
  WHERE e.scope = q.scope AND e.channel = q.channel AND (q.source IS NULL OR e.source = q.source)
    AND e.recorded_at <= $known AND e.content <> '' AND e.episode_id <> q.episode_id
    AND (e.occurred_at < q.around OR (e.occurred_at = q.around AND e.episode_id < q.episode_id))
  RETURN e ORDER BY e.occurred_at DESC, e.episode_id DESC LIMIT $size
  UNION
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(scope, channel)
  WHERE e.scope = q.scope AND e.channel = q.channel AND (q.source IS NULL OR e.source = q.source)
    AND e.recorded_at <= $known AND e.content <> '' AND e.episode_id <> q.episode_id
    AND (e.occurred_at > q.around OR (e.occurred_at = q.around AND e.episode_id > q.episode_id))
  RETURN e ORDER BY e.occurred_at, e.episode_id LIMIT $size
}
RETURN q.i AS i, e {.*} AS episode
ORDER BY i, e.occurred_at, e.episode_id
