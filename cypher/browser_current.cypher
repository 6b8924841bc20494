// Browser ready query (not run by the adapter): the current facts of one subject, as a graph.
// Every revision the store believes now (:Current, system interval still open) about `subject`
// (an entity id) in one tenant's `scope`: entity ids are per tenant (two tenants' 'ana' are two
// people), so the scope is required and never a wildcard. Each is drawn with its :Fact hub, the
// entity the fact is ABOUT and the episodes that SUPPORT it (each :Episode carries the gate's
// decision on its envelope: `envelope`, `sent_by`, `sent_over`). `valid` (a DATETIME) keeps the
// revisions valid at that instant; null keeps every believed revision, also those about a valid
// time that has ended. For one instant, run `:param valid => datetime('2026-02-14T20:00Z')`
// after the line below (Browser keeps a datetime() inside a :params map as text).
// :params {scope: 'u1', subject: 'ana', valid: null}
// The first columns read as a table (Table / Text view); the paths draw the graph.
MATCH (a:Assertion:Current)
WHERE a.scope = $scope AND a.subject = $subject
  AND ($valid IS NULL OR (a.valid_from <= $valid AND (a.valid_to IS NULL OR a.valid_to > $valid)))
MATCH revision = (a)-[:REVISION_OF_FACT]->(f:Fact)
OPTIONAL MATCH about = (f)-[:ABOUT]->(:Entity)
OPTIONAL MATCH support = (:Episode)-[:SUPPORTS]->(f)
RETURN a.predicate AS predicate, a.value AS value, a.kind AS kind,
       a.valid_from AS valid_from, a.valid_to AS valid_to,
       revision, collect(DISTINCT about) AS about, collect(DISTINCT support) AS support
ORDER BY predicate, valid_from
