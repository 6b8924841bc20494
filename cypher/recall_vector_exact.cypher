// Recall: exact cosine over every revision of one scope with a vector, believed at `known` and
// valid at `at`, best `limit` first (the fallback when the index's shortlist under-fills, and
// the reference the index is tested against). `score` is (1 + cosine) / 2 as in the index.
// :params {vector: [0.6, 0.8], limit: 50, scope: 'u1-example', known: 1767603600000000, at: 1767603600000000}
MATCH (a:Assertion)
USING INDEX a:Assertion(scope)
WHERE a.scope = $scope AND a.recall_vector IS NOT NULL
  AND a.sys_from <= $known AND coalesce(a.sys_to, $known + 1) > $known
  AND a.valid_from <= $at AND coalesce(a.valid_to, $at + 1) > $at
WITH a, vector.similarity.cosine(a.recall_vector, $vector) AS score
RETURN a {.*, recall_vector: null} AS version, score
ORDER BY score DESC, a.assertion_id, a.revision
LIMIT $limit
