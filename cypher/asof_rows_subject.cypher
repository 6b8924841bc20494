// As-of lookup of every predicate of one subject with each revision's supporting episodes, in
// one round trip (`scope` optional, null for any): what held at `valid`, as believed at
// `known`. Served by the range index assertion_subject (pinned by the USING INDEX SEEK hint).
// Each revision's :Fact hub is a seek of the fact_id constraint (hinted: planned on the statistics
// of an empty index, a new or wiped store, the planner scanned that index for every revision).
// :params {subject: 'ana', scope: null, valid: datetime('2026-02-14T20:00Z'), known: datetime('2026-02-14T20:00Z')}
// An open end (null sys_to / valid_to) counts as later than any instant: coalesce() rather
// than "IS NULL OR", which the planner may split into a Union of index scans.
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(subject)
WHERE a.subject = $subject
  AND ($scope IS NULL OR a.scope = $scope)
  AND a.sys_from <= $known AND coalesce(a.sys_to > $known, true)
  AND a.valid_from <= $valid AND coalesce(a.valid_to > $valid, true)
CALL (a) {
  OPTIONAL MATCH (f:Fact {assertion_id: a.assertion_id})<-[g:SUPPORTS]-(e:Episode)
  USING INDEX SEEK f:Fact(assertion_id)
  WHERE g.since <= $known
  WITH e ORDER BY e.occurred_at, e.episode_id
  RETURN collect(e {.episode_id, .source, .occurred_at, .content}) AS supports
}
RETURN a {.*, recall_vector: null} AS version, supports
ORDER BY a.scope, a.subject, a.predicate, a.project, a.valid_from
