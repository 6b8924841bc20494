// Every revision about a subject (`predicate` and `scope` optional, null for any), in
// system-time order per predicate.
// :params {subject: 'ana', predicate: null, scope: null}
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(subject)
WHERE a.subject = $subject
  AND ($predicate IS NULL OR a.predicate = $predicate)
  AND ($scope IS NULL OR a.scope = $scope)
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.predicate, a.sys_from, a.valid_from, a.assertion_id, a.revision
