// Recall: exact cosine over every episode of one scope with a vector, recorded by `known` and
// happened by `at`, best `limit` first, as one record (`rows`): the fallback when the index's
// shortlist under-fills (read a best-first prefix at a time). `score` is (1 + cosine) / 2 as
// in the index.
// :params {vector: [0.6, 0.8], limit: 50, scope: 'u1', known: datetime('2026-02-14T20:00Z'), at: datetime('2026-02-14T20:00Z')}
MATCH (v:EpisodeVector)
USING INDEX SEEK v:EpisodeVector(scope)
WHERE v.scope = $scope
MATCH (e:Episode {episode_id: v.episode_id})
WHERE e.scope = $scope AND e.recorded_at <= $known AND e.occurred_at <= $at
WITH e, vector.similarity.cosine(v.recall_vector, $vector) AS score
ORDER BY score DESC, e.episode_id
LIMIT $limit
RETURN collect({episode: e {.*}, score: score}) AS rows
