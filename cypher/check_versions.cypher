// Integrity check: every revision of every assertion, for `kg-memory check` (read only).
// :params {}
MATCH (a:Assertion)
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.assertion_id, a.revision
