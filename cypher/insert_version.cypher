// Append a revision: revision = highest of the assertion + 1, system interval [now, open).
// Each revision is its own :Assertion node (labelled :Current while open and by kind:
// :Stated, :World, :Claim or :Derived) attached to the assertion's :Fact hub, which carries the
// typed edges and NEEDS each dependency's node. value is stored as its own type (string, number,
// boolean); the qualifiers are `project` ('' for none) and `exceptions` (a list of strings); times
// are DATETIMEs in UTC, absent (null) for an open end. `content_hash` is the digest
// `kg-memory check` re-computes (kg_memory.store.neo4j.rows.revision_hash).
// :params {assertion_id: 'as_1', scope: 'u1', subject: 'ana', predicate: 'diet', project: '', exceptions: [], value: 'vegetarian', kind: 'stated', writer: 'user', depends_on: [], confidence: 1.0, valid_from: datetime('2026-02-14T20:00Z'), valid_to: null, now: datetime('2026-02-14T20:00Z'), reason: 'asserted', recorded_by: 'ep_1', content_hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'}
MERGE (f:Node {scope: $scope, id: $assertion_id})
SET f:Fact, f.assertion_id = $assertion_id
WITH f
OPTIONAL MATCH (f)<-[:REVISION_OF_FACT]-(old:Assertion)
WITH f, coalesce(max(old.revision), 0) + 1 AS revision
CREATE (a:Assertion:Current {
  assertion_id: $assertion_id,
  revision: revision,
  scope: $scope,
  subject: $subject,
  predicate: $predicate,
  project: $project,
  value: $value,
  exceptions: $exceptions,
  kind: $kind,
  writer: $writer,
  depends_on: $depends_on,
  confidence: $confidence,
  valid_from: $valid_from,
  valid_to: $valid_to,
  sys_from: $now,
  reason: $reason,
  recorded_by: $recorded_by,
  content_hash: $content_hash
})-[:REVISION_OF_FACT]->(f)
SET a:$(toUpper(substring($kind, 0, 1)) + substring($kind, 1))
FOREACH (dep IN $depends_on |
  MERGE (d:Node {scope: $scope, id: dep})
  MERGE (f)-[:NEEDS]->(d))
RETURN revision
