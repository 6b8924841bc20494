// As-of lookup of one slot: what held at `valid` in the world, as the store believed at
// `known` (Neo4j DATETIMEs in UTC), for a subject and predicate (`scope` optional,
// null for any). Served by the range index assertion_slot (subject, predicate), pinned by the
// USING INDEX SEEK hint, then a filter over that slot's few revisions.
// :params {subject: 'ana', predicate: 'diet', scope: null, valid: datetime('2026-02-14T20:00Z'), known: datetime('2026-02-14T20:00Z')}
// An open end (null sys_to / valid_to) counts as later than any instant: coalesce() rather
// than "IS NULL OR", which the planner may split into a Union of index scans.
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(subject, predicate)
WHERE a.subject = $subject AND a.predicate = $predicate
  AND ($scope IS NULL OR a.scope = $scope)
  AND a.sys_from <= $known AND coalesce(a.sys_to > $known, true)
  AND a.valid_from <= $valid AND coalesce(a.valid_to > $valid, true)
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.scope, a.subject, a.predicate, a.project, a.valid_from
