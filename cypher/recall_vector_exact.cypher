// Recall: exact cosine over every revision of one scope with a vector, believed at `known` and
// valid at `at`, best `limit` first, as one record (`rows`): the fallback when the index's
// shortlist under-fills (read a best-first prefix at a time), and the reference the index is
// tested against. `score` is (1 + cosine) / 2 as in the index.
// :params {vector: [0.6, 0.8], limit: 50, scope: 'u1-example', known: datetime('2026-02-14T20:00Z'), at: datetime('2026-02-14T20:00Z')}
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(scope)
WHERE a.scope = $scope AND a.recall_vector IS NOT NULL
  AND a.sys_from <= $known AND (a.sys_to IS NULL OR a.sys_to > $known)
  AND a.valid_from <= $at AND (a.valid_to IS NULL OR a.valid_to > $at)
WITH a, vector.similarity.cosine(a.recall_vector, $vector) AS score
ORDER BY score DESC, a.assertion_id, a.revision
LIMIT $limit
RETURN collect({version: a {.*, recall_vector: null}, score: score}) AS rows
