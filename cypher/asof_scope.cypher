// As-of snapshot of one scope (`predicate` optional, null for any): what held at `valid`, as
// believed at `known`. Served by the range index assertion_scope
// (pinned by the USING INDEX SEEK hint: a plain USING INDEX let the planner scan the whole
// index and filter when its statistics made the two look alike, as on a nearly empty store).
// :params {scope: 'u1', predicate: null, valid: datetime('2026-02-14T20:00Z'), known: datetime('2026-02-14T20:00Z')}
// An open end (null sys_to / valid_to) counts as later than any instant: coalesce() rather
// than "IS NULL OR", which the planner may split into a Union of index scans.
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(scope)
WHERE a.scope = $scope
  AND ($predicate IS NULL OR a.predicate = $predicate)
  AND a.sys_from <= $known AND coalesce(a.sys_to > $known, true)
  AND a.valid_from <= $valid AND coalesce(a.valid_to > $valid, true)
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.scope, a.subject, a.predicate, a.project, a.valid_from
