// Batch planning: the currently believed revisions of many slots at once (live_versions for
// each), with the highest revision number of each revision's assertion, closed ones included
// (the next revision is numbered after it). `project` is '' for a fact without a project.
// :params {slots: [{scope: 'u1', subject: 'ana', predicate: 'diet', project: ''}]}
UNWIND $slots AS s
MATCH (a:Assertion)
USING INDEX a:Assertion(subject, predicate)
WHERE a.subject = s.subject AND a.predicate = s.predicate
  AND a.scope = s.scope AND a.project = s.project
  AND a.sys_to IS NULL
CALL (a) {
  MATCH (b:Assertion {assertion_id: a.assertion_id})
  RETURN max(b.revision) AS highest
}
RETURN a {.*, recall_vector: null} AS version, highest
