// Assertion ids of one scope (of one project when given), each with its predicates across
// revisions (find_assertions.cypher, read through the scope's index rather than every
// tenant's revisions). `project` is '' for facts without a project.
// :params {scope: 'u1', project: null}
MATCH (a:Assertion {scope: $scope})
USING INDEX SEEK a:Assertion(scope)
WHERE $project IS NULL OR a.project = $project
RETURN a.assertion_id AS assertion_id, collect(DISTINCT a.predicate) AS predicates
ORDER BY assertion_id
