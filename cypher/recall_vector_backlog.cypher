// Recall: revisions of one scope with indexed text and no vector yet (just written, re-indexed
// after a rename, or written before vectors were used), oldest first, each with the names of
// its subject and project entities in its own scope (the model embeds the revision's words).
// :params {scope: 'u1', limit: 512}
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(scope)
WHERE a.scope = $scope AND a.recall_length > 0 AND a.recall_vector IS NULL
WITH a ORDER BY a.sys_from, a.assertion_id, a.revision LIMIT $limit
OPTIONAL MATCH (e:Entity {scope: a.scope})
WHERE e.entity_id IN [a.subject, a.project] AND e.name IS NOT NULL
WITH a, e ORDER BY e.entity_id
RETURN a {.*, recall_vector: null} AS version, collect(e.name) AS names
