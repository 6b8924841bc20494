// The revisions of one slot the store currently believes (open system interval). `project` is
// '' for a fact without a project.
// :params {scope: 'u1', subject: 'ana', predicate: 'diet', project: ''}
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(subject, predicate)
WHERE a.subject = $subject AND a.predicate = $predicate
  AND a.scope = $scope AND a.project = $project
  AND a.sys_to IS NULL
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.valid_from, a.assertion_id, a.revision
