// Recall's re-index when its terms change: up to `limit` indexed revisions after the revision
// (`after`, `revision`) in id order, each with the names of its subject and project entities
// in its own scope (as they are now, as a rename's re-index writes them).
// :params {after: '', revision: 0, limit: 1000}
MATCH (a:Assertion)
WHERE a.assertion_id >= $after AND a.recall_text IS NOT NULL
  AND NOT (a.assertion_id = $after AND a.revision <= $revision)
WITH a ORDER BY a.assertion_id, a.revision LIMIT $limit
OPTIONAL MATCH (e:Entity {scope: a.scope})
WHERE e.entity_id IN [a.subject, a.project] AND e.name IS NOT NULL
WITH a, e ORDER BY e.entity_id
RETURN a {.*, recall_vector: null} AS version, collect(e.name) AS names
