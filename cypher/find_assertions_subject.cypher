// Assertion ids about one subject (in one scope, or in any when null; of one project when
// given), each with its predicates across revisions (find_assertions.cypher, read through the
// subject's index rather than every tenant's revisions). `project` is '' for facts without
// a project.
// :params {subject: 'ana', scope: 'u1', project: null}
MATCH (a:Assertion {subject: $subject})
USING INDEX SEEK a:Assertion(subject)
WHERE ($scope IS NULL OR a.scope = $scope)
  AND ($project IS NULL OR a.project = $project)
RETURN a.assertion_id AS assertion_id, collect(DISTINCT a.predicate) AS predicates
ORDER BY assertion_id
