// Recall: the `k` episodes of one scope nearest `vector`, recorded by `known` and happened by
// `at`, best first, as one record (`rows`). A scope with at most `below` episode vectors is
// scored exactly (`exact` true); a larger one takes the native index's global shortlist of
// `fetch` and keeps this scope's, so it can under-fill: the caller then falls back to
// recall_episode_vector_exact. `score` is Neo4j's cosine score, (1 + cosine) / 2.
// :params {vector: [0.6, 0.8], fetch: 200, k: 50, below: 256, scope: 'u1', known: datetime('2026-02-14T20:00Z'), at: datetime('2026-02-14T20:00Z')}
CALL () {
  MATCH (v:EpisodeVector)
  USING INDEX SEEK v:EpisodeVector(scope)
  WHERE v.scope = $scope
  WITH v LIMIT $below + 1
  RETURN count(v) AS held
}
CALL (held) {
  WITH held WHERE held <= $below
  MATCH (v:EpisodeVector)
  USING INDEX SEEK v:EpisodeVector(scope)
  WHERE v.scope = $scope
  MATCH (e:Episode {episode_id: v.episode_id})
  WHERE e.scope = $scope AND e.recorded_at <= $known AND e.occurred_at <= $at
  WITH e, vector.similarity.cosine(v.recall_vector, $vector) AS score
  ORDER BY score DESC, e.episode_id
  LIMIT $k
  RETURN collect({episode: e {.*}, score: score}) AS scored
}
CALL (held) {
  WITH held WHERE held > $below
  CALL db.index.vector.queryNodes('recall_episode_vectors', $fetch, $vector) YIELD node, score
  WHERE node.scope = $scope
  MATCH (e:Episode {episode_id: node.episode_id})
  WHERE e.scope = $scope AND e.recorded_at <= $known AND e.occurred_at <= $at
  WITH e, score
  ORDER BY score DESC, e.episode_id
  LIMIT $k
  RETURN collect({episode: e {.*}, score: score}) AS shortlisted
}
RETURN held <= $below AS exact, scored + shortlisted AS rows
