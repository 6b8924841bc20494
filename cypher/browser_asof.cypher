// Browser ready query (not run by the adapter): the as-of snapshot of one scope as a graph.
// What held at `valid` in the world, as the store believed at `known` (DATETIMEs), for `scope`
// and optionally one `subject` (null for every subject): the same revisions as asof_scope.cypher
// (and asof_subject.cypher), each drawn with its :Fact hub, the entity it is ABOUT and the
// episodes whose SUPPORTS was recorded by `known`. Paste the three lines below in this order:
// Browser keeps a datetime() inside a :params map as text, so each instant has its own :param.
// :params {scope: 'u1', subject: null}
// :param valid => datetime('2026-02-14T20:00Z')
// :param known => datetime('2026-02-14T20:00Z')
// An open end (null sys_to / valid_to) counts as later than any instant. A revision the store
// stopped believing after `known` is drawn as closed (no :Current label).
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(scope)
WHERE a.scope = $scope
  AND ($subject IS NULL OR a.subject = $subject)
  AND a.sys_from <= $known AND (a.sys_to IS NULL OR a.sys_to > $known)
  AND a.valid_from <= $valid AND (a.valid_to IS NULL OR a.valid_to > $valid)
MATCH revision = (a)-[:REVISION_OF_FACT]->(f:Fact)
OPTIONAL MATCH about = (f)-[:ABOUT]->(:Entity)
OPTIONAL MATCH support = (:Episode)-[s:SUPPORTS]->(f)
WHERE s.since <= $known
RETURN a.subject AS subject, a.predicate AS predicate, a.value AS value, a.kind AS kind,
       a.assertion_id AS assertion_id, a.revision AS revision_number,
       revision, collect(DISTINCT about) AS about, collect(DISTINCT support) AS support
ORDER BY subject, predicate, assertion_id
