// The ids of the assertions with any revision about each of many subjects (`scope` optional,
// null for any): a forget plan's orphan search, without reading the revisions themselves.
// :params {subjects: ['ana', 'R1'], scope: 'u1'}
UNWIND $subjects AS subject
MATCH (a:Assertion)
WHERE a.subject = subject
  AND ($scope IS NULL OR a.scope = $scope)
RETURN DISTINCT subject, a.assertion_id AS assertion_id
