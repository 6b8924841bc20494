// Recall: the `size` episodes before and after one (by occurred_at, then id) in the same
// conversation: same scope and channel, same source unless `source` is null (a chat), recorded
// by `known`, with content. Oldest first.
// :params {scope: 'u1', channel: 'chat', source: null, around: datetime('2026-02-14T20:00Z'), episode_id: 'ep_1', known: datetime('2026-02-14T20:00Z'), size: 1}
CALL {
  MATCH (e:Episode)
  WHERE e.scope = $scope AND e.channel = $channel AND ($source IS NULL OR e.source = $source)
    AND e.recorded_at <= $known AND e.content <> '' AND e.episode_id <> $episode_id
    AND (e.occurred_at < $around OR (e.occurred_at = $around AND e.episode_id < $episode_id))
  RETURN e ORDER BY e.occurred_at DESC, e.episode_id DESC LIMIT $size
  UNION
  MATCH (e:Episode)
  WHERE e.scope = $scope AND e.channel = $channel AND ($source IS NULL OR e.source = $source)
    AND e.recorded_at <= $known AND e.content <> '' AND e.episode_id <> $episode_id
    AND (e.occurred_at > $around OR (e.occurred_at = $around AND e.episode_id > $episode_id))
  RETURN e ORDER BY e.occurred_at, e.episode_id LIMIT $size
}
RETURN e {.*} AS episode
ORDER BY e.occurred_at, e.episode_id
