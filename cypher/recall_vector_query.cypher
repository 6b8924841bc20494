// Recall: the native vector index's global shortlist of `fetch` nearest revisions, then those
// of one scope believed at `known` and valid at `at`, best `k` first. The shortlist is global,
// so it can hold none of this scope's: the caller falls back to recall_vector_exact when this
// under-fills. `score` is Neo4j's cosine score, (1 + cosine) / 2.
// :params {vector: [0.6, 0.8], fetch: 200, k: 50, scope: 'u1', known: 1767603600000000, at: 1767603600000000}
CALL db.index.vector.queryNodes('recall_vectors', $fetch, $vector) YIELD node, score
WHERE node.scope = $scope
  AND node.sys_from <= $known AND coalesce(node.sys_to, $known + 1) > $known
  AND node.valid_from <= $at AND coalesce(node.valid_to, $at + 1) > $at
RETURN node {.*, recall_vector: null} AS version, score
ORDER BY score DESC, node.assertion_id, node.revision
LIMIT $k
