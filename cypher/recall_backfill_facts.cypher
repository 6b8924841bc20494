// Recall's backfill of a store written before recall: up to `limit` revisions that were never
// given recall text, each with the names of its subject and project entities in its own scope.
// (A revision indexed with no text has recall_length 0, so each is visited once.)
// :params {limit: 1000}
MATCH (a:Assertion)
WHERE a.recall_length IS NULL AND a.recall_text IS NULL
WITH a ORDER BY a.assertion_id, a.revision LIMIT $limit
OPTIONAL MATCH (e:Entity {scope: a.scope})
WHERE e.entity_id IN [a.subject, a.project] AND e.name IS NOT NULL
WITH a, e ORDER BY e.entity_id
RETURN a {.*, recall_vector: null} AS version, collect(e.name) AS names
