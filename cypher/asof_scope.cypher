// As-of snapshot of one scope (`predicate` optional, null for any): what held at `valid`, as
// believed at `known`. Served by the range index assertion_scope
// (pinned by the USING INDEX hint).
// :params {scope: 'u1', predicate: null, valid: datetime('2026-02-14T20:00Z'), known: datetime('2026-02-14T20:00Z')}
// An open end (null sys_to / valid_to) counts as later than any instant.
MATCH (a:Assertion)
USING INDEX a:Assertion(scope)
WHERE a.scope = $scope
  AND ($predicate IS NULL OR a.predicate = $predicate)
  AND a.sys_from <= $known AND (a.sys_to IS NULL OR a.sys_to > $known)
  AND a.valid_from <= $valid AND (a.valid_to IS NULL OR a.valid_to > $valid)
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.scope, a.subject, a.predicate, a.project, a.valid_from
