// Recall: the `k` revisions of one scope nearest `vector`, believed at `known` and valid at
// `at`, best first, as one record (`rows`; the driver's cost is per record). A scope with at
// most `below` vectors is scored exactly (`exact` true: cheaper than the index, and complete);
// a larger one takes the native index's global shortlist of `fetch` and keeps this scope's, so
// it can under-fill (another tenant's vectors, superseded revisions): the caller then falls
// back to recall_vector_exact. `score` is Neo4j's cosine score, (1 + cosine) / 2.
// :params {vector: [0.6, 0.8], fetch: 200, k: 50, below: 256, scope: 'u1', known: datetime('2026-02-14T20:00Z'), at: datetime('2026-02-14T20:00Z')}
CALL () {
  MATCH (a:Assertion)
  USING INDEX SEEK a:Assertion(scope)
  WHERE a.scope = $scope AND a.recall_vector IS NOT NULL
  WITH a LIMIT $below + 1
  RETURN count(a) AS held
}
CALL (held) {
  WITH held WHERE held <= $below
  MATCH (a:Assertion)
  USING INDEX SEEK a:Assertion(scope)
  WHERE a.scope = $scope AND a.recall_vector IS NOT NULL
    AND a.sys_from <= $known AND (a.sys_to IS NULL OR a.sys_to > $known)
    AND a.valid_from <= $at AND (a.valid_to IS NULL OR a.valid_to > $at)
  WITH a, vector.similarity.cosine(a.recall_vector, $vector) AS score
  ORDER BY score DESC, a.assertion_id, a.revision
  LIMIT $k
  RETURN collect({version: a {.*, recall_vector: null}, score: score}) AS scored
}
CALL (held) {
  WITH held WHERE held > $below
  CALL db.index.vector.queryNodes('recall_vectors', $fetch, $vector) YIELD node, score
  WHERE node.scope = $scope
    AND node.sys_from <= $known AND (node.sys_to IS NULL OR node.sys_to > $known)
    AND node.valid_from <= $at AND (node.valid_to IS NULL OR node.valid_to > $at)
  WITH node, score
  ORDER BY score DESC, node.assertion_id, node.revision
  LIMIT $k
  RETURN collect({version: node {.*, recall_vector: null}, score: score}) AS shortlisted
}
RETURN held <= $below AS exact, scored + shortlisted AS rows
