// Recall: episodes of one scope with indexed text and no vector yet (just recorded, or recorded
// before vectors were used), oldest first. A redacted episode has no recall text: it waits for
// nothing. The text embedded is the content as received.
// The hint reads the scope's episodes through the (scope, operation_id) constraint (every
// episode has an operation id; an erased one has no recall text either): without it the
// planner scanned every episode of every tenant on each hybrid recall.
// :params {scope: 'u1', limit: 512}
MATCH (e:Episode)
USING INDEX SEEK e:Episode(scope, operation_id)
WHERE e.scope = $scope AND e.operation_id IS NOT NULL AND e.recall_length > 0
  AND NOT EXISTS { MATCH (v:EpisodeVector {episode_id: e.episode_id}) }
RETURN e.episode_id AS episode_id, e.content AS text
ORDER BY e.recorded_at, e.episode_id
LIMIT $limit
