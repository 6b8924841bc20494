// Ids of assertions with any revision in a scope / about a subject / for a project (each null
// for any), with the predicates they have: the adapter applies the predicate glob to those.
// `project` is '' for facts without a project.
// :params {scope: 'acme', subject: 'j17', project: 'c1'}
MATCH (a:Assertion)
WHERE ($scope IS NULL OR a.scope = $scope)
  AND ($subject IS NULL OR a.subject = $subject)
  AND ($project IS NULL OR a.project = $project)
RETURN a.assertion_id AS assertion_id, collect(DISTINCT a.predicate) AS predicates
ORDER BY assertion_id
