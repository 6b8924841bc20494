// Recall: revisions of one scope with indexed text and no vector yet (just written, re-indexed
// after a rename, or written before vectors were used), oldest first.
// :params {scope: 'u1', limit: 512}
MATCH (a:Assertion)
USING INDEX a:Assertion(scope)
WHERE a.scope = $scope AND a.recall_length > 0 AND a.recall_vector IS NULL
RETURN a.assertion_id AS assertion_id, a.revision AS revision, a.recall_text AS text
ORDER BY a.sys_from, a.assertion_id, a.revision
LIMIT $limit
