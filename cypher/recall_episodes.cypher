// Recall: every episode of one scope whose content matches any term (redacted episodes have no
// indexed text). `query` requires the scope in the `scope` field and any term in `recall_text`,
// as in recall_facts.cypher; the exact scope test stays.
// :params {query: 'scope:"u1" AND recall_text:(vegetarian OR ana)', scope: 'u1'}
CALL db.index.fulltext.queryNodes('recall_episodes_scoped', $query) YIELD node
WHERE node.scope = $scope
RETURN node {.*} AS episode
ORDER BY node.recorded_at, node.episode_id
