// Recall: the native vector index's global shortlist of `fetch` nearest revisions, then those
// of one scope believed at `known` and valid at `at`, best `k` first. The shortlist is global,
// so it can hold none of this scope's: the caller falls back to recall_vector_exact when this
// under-fills. `score` is Neo4j's cosine score, (1 + cosine) / 2.
// :params {vector: [0.6, 0.8], fetch: 200, k: 50, scope: 'u1', known: datetime('2026-02-14T20:00Z'), at: datetime('2026-02-14T20:00Z')}
CALL db.index.vector.queryNodes('recall_vectors', $fetch, $vector) YIELD node, score
WHERE node.scope = $scope
  AND node.sys_from <= $known AND (node.sys_to IS NULL OR node.sys_to > $known)
  AND node.valid_from <= $at AND (node.valid_to IS NULL OR node.valid_to > $at)
RETURN node {.*, recall_vector: null} AS version, score
ORDER BY score DESC, node.assertion_id, node.revision
LIMIT $k
