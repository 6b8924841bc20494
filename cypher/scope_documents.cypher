// JSON bodies of the stored documents of `kind` in one scope (under one key, or null for any),
// oldest first. The (kind, scope, key) constraint's index serves the seek (a composite index
// needs a predicate on each of its properties: every document has a key, put_document MERGEs
// on it); documents.cypher reads every scope's, which no index can narrow to one tenant.
// :params {kind: 'decision', scope: 'acme', key: null}
MATCH (d:Document {kind: $kind, scope: $scope})
// A seek, named: with some statistics the planner took the `kind` index, and a plain USING
// INDEX let it scan the whole composite index (every tenant's documents).
USING INDEX SEEK d:Document(kind, scope, key)
WHERE d.key IS NOT NULL AND ($key IS NULL OR d.key = $key)
RETURN d.body AS body
ORDER BY d.recorded_at, d.key
