// Batch planning: the currently believed revisions of many slots at once (live_versions for
// each), with the highest revision number of each revision's assertion, closed ones included
// (the next revision is numbered after it). `project` is '' for a fact without a project.
// The revision comes back as the fields the planner reads, instants as ISO-8601 text (the
// driver unpacks a DATETIME in pure Python, ~40 µs each; see kg_memory/store/neo4j/rows.py).
// Every row comes back in one list of one record (`rows`): the Python driver's cost is per
// record (about 35 µs each, measured; the bench's 1,000-slot read returns about 1,700 rows).
// The SEEK hint on `b` keeps the lookup of each revision's siblings a seek of the revision_id
// constraint: planned while the index statistics still describe an empty index (a new or
// wiped store, until Neo4j resamples it) the planner otherwise scanned the whole index for
// every row, about 3 s per call at 5,000 revisions (docs/benchmarks.md, session 19).
// :params {slots: [{scope: 'u1', subject: 'ana', predicate: 'diet', project: ''}]}
UNWIND $slots AS s
MATCH (a:Assertion)
USING INDEX SEEK a:Assertion(subject, predicate)
WHERE a.subject = s.subject AND a.predicate = s.predicate
  AND a.scope = s.scope AND a.project = s.project
  AND a.sys_to IS NULL
CALL (a) {
  MATCH (b:Assertion {assertion_id: a.assertion_id})
  USING INDEX SEEK b:Assertion(assertion_id, revision)
  WHERE b.revision IS NOT NULL
  RETURN max(b.revision) AS top
}
// At least its own number: a read beside a commit may find the revision before the
// assertion_id index does (Neo4j applies a commit's records, then its index entries).
RETURN collect({version: a {.assertion_id, .revision, .scope, .subject, .predicate, .project,
          .exceptions, .value, .kind, .writer, .depends_on, .confidence, .reason, .recorded_by,
          .closed_by, .close_reason, valid_from: toString(a.valid_from),
          valid_to: toString(a.valid_to), sys_from: toString(a.sys_from),
          sys_to: toString(a.sys_to)},
          highest: CASE WHEN top IS NULL OR top < a.revision THEN a.revision ELSE top END}) AS rows
