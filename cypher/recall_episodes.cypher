// Recall: every episode of one scope whose content matches any term (redacted episodes have no
// indexed text). `query` is the terms joined by OR (letters and digits only).
// :params {query: 'vegetarian OR ana', scope: 'u1'}
CALL db.index.fulltext.queryNodes('recall_episodes', $query) YIELD node
WHERE node.scope = $scope
RETURN node {.*} AS episode
ORDER BY node.recorded_at, node.episode_id
