// Recall: every episode of one scope whose content matches any term (redacted episodes have no
// indexed text), and BM25's corpus statistics: the scope's indexed episodes recorded by
// `known`. One record (`episodes`, `documents`, `tokens`). `query` requires the scope in the
// `scope` field and any term in `recall_text`, as in recall_facts.cypher; the exact scope test
// stays. The statistics' hint keeps their seek on the scope: left to itself the planner sought
// recorded_at, every tenant's episodes recorded by `known` (a read that grows with the store).
// :params {query: 'scope:"u1" AND recall_text:(vegetarian OR ana)', scope: 'u1', known: datetime('2026-02-14T20:00Z')}
CALL () {
  CALL db.index.fulltext.queryNodes('recall_episodes_scoped', $query) YIELD node
  WHERE node.scope = $scope
  WITH node
  ORDER BY node.recorded_at, node.episode_id
  RETURN collect(node {.*}) AS episodes
}
CALL () {
  MATCH (e:Episode)
  USING INDEX SEEK e:Episode(scope, channel)
  WHERE e.scope = $scope AND e.channel IS NOT NULL AND e.recall_length > 0
    AND e.recorded_at <= $known
  RETURN count(e) AS documents, coalesce(sum(e.recall_length), 0) AS tokens
}
RETURN episodes, documents, tokens
