// Recall: the native vector index's global shortlist of `fetch` nearest episode vectors, then
// the episodes of one scope recorded by `known` and happened by `at`, best `k` first. The
// shortlist is global, so the caller falls back to recall_episode_vector_exact when this
// under-fills. `score` is Neo4j's cosine score, (1 + cosine) / 2.
// :params {vector: [0.6, 0.8], fetch: 200, k: 50, scope: 'u1', known: datetime('2026-02-14T20:00Z'), at: datetime('2026-02-14T20:00Z')}
CALL db.index.vector.queryNodes('recall_episode_vectors', $fetch, $vector) YIELD node, score
WHERE node.scope = $scope
MATCH (e:Episode {episode_id: node.episode_id})
WHERE e.scope = $scope AND e.recorded_at <= $known AND e.occurred_at <= $at
RETURN e {.*} AS episode, score
ORDER BY score DESC, e.episode_id
LIMIT $k
