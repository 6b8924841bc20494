// As-of lookup of every predicate of one subject (`scope` optional, null for any): what held at
// `valid`, as believed at `known`. Served by the range index assertion_subject
// (pinned by the USING INDEX hint).
// :params {subject: 'ana', scope: null, valid: 1767603600000000, known: 1767603600000000}
// An open end (null sys_to / valid_to) counts as later than any instant.
MATCH (a:Assertion)
USING INDEX a:Assertion(subject)
WHERE a.subject = $subject
  AND ($scope IS NULL OR a.scope = $scope)
  AND a.sys_from <= $known AND coalesce(a.sys_to, $known + 1) > $known
  AND a.valid_from <= $valid AND coalesce(a.valid_to, $valid + 1) > $valid
RETURN a {.*} AS version
ORDER BY a.scope, a.subject, a.predicate, a.project, a.valid_from
