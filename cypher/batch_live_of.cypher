// Batch planning: the currently believed revisions of each of `ids` (live_versions_of for each,
// in its scope), with the highest revision number of the assertion.
// The revision comes back as the fields the planner reads, instants as ISO-8601 text (the
// driver unpacks a DATETIME in pure Python, ~40 µs each; see kg_memory/store/neo4j/rows.py).
// Every row comes back in one list of one record (`rows`): the Python driver's cost is per
// record (about 35 µs each, measured; the bench's 1,000-slot read returns about 1,700 rows).
// The SEEK hints keep each lookup by id a seek of its constraint: planned while the index
// statistics describe an empty index (a new or wiped store, until Neo4j resamples it) the
// planner scanned the whole index for every row instead (docs/benchmarks.md, session 19).
// :params {ids: [{scope: 'u1', id: 'as_1'}]}
UNWIND $ids AS k
MATCH (a:Assertion {assertion_id: k.id})
USING INDEX SEEK a:Assertion(assertion_id)
WHERE a.sys_to IS NULL AND a.scope = k.scope
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
